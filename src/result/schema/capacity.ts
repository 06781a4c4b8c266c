/**
 * `mailvolley capacity --json`: the highest rate a target sustained within its service levels,
 * every step that was judged on the way (each with its full Result), and the steps at 80 %,
 * 100 % and 120 % of the rate found. src/capacity/ computes every figure defined here.
 */
import { Type } from "@sinclair/typebox";
import { def, enumOf, nullable, ref } from "./define.js";
import { Count, NonNegative } from "./kinds.js";
import { CAPACITY_LIMITED_BY, CAPACITY_SCHEMA, MODES, STEP_PURPOSES } from "./names.js";
import { ResultSchema } from "./result.js";

const Check = Type.Object(
  {
    criterion: Type.String({
      description:
        "The service level: connect, transaction, errors, waiting (arrivals queued at the front door, not growing), delivery, lost, backlog, or a --qos threshold's own expression.",
    }),
    expression: Type.String({
      description: 'The level as written, "connect p95<=5s"; the backlog\'s is "backlog flat".',
    }),
    actual: nullable(
      Type.Number(),
      "What the measured window showed, in `unit` (a further --qos threshold: the whole step); null when it had no sample of it.",
    ),
    unit: Type.String({ description: 'The unit of actual: "ms", "%", "/s" or "".' }),
    pass: Type.Boolean({ description: "Whether the step met this level." }),
    compliancePercent: nullable(
      Type.Number({ minimum: 0, maximum: 100 }),
      "SPECmail's figure over the measured window: the share within the level's limit, % (connects and transactions within the limit; arrivals not in error; of the accepted messages due in the window, those that arrived within the delivery limit, and those not lost). null where no share exists (the waiting and backlog trends, a further --qos threshold) or the window had no sample of it.",
    ),
  },
  { additionalProperties: false },
);

const BacklogTrend = Type.Object(
  {
    perSecond: Type.Number({
      description:
        "Least-squares slope of the messages inside the gateway, per second of the measured window (negative: it shrank).",
    }),
    trend: enumOf(
      ["growing", "flat", "shrinking"] as const,
      "The slope read against the tolerance.",
    ),
    tolerancePerSecond: Type.Number({
      description:
        "A slope within ± this is flat: 2 % of the step's accept rate, at least 1 message/s.",
    }),
  },
  { additionalProperties: false },
);

const Step = Type.Object(
  {
    purpose: enumOf(
      STEP_PURPOSES,
      "estimate: the short closed-model step that guessed a first rate (without --from); search: a step of the doubling and bisection; level: a step at 80, 100 or 120 % of the rate found.",
    ),
    percent: nullable(
      Type.Number(),
      "A level step's share of the rate found (80, 100, 120); null for other steps.",
    ),
    ratePerSecond: ref(
      NonNegative,
      "The arrival rate the step offered (open model), messages/s; an estimate step's is its accepted rate.",
    ),
    warmupMs: ref(Count, "The step's warm-up, ms: run, and left out of the judgment."),
    measuredMs: ref(Count, "The measured window after the warm-up, ms (--step)."),
    pass: Type.Boolean({
      description: "Whether every service level held over the step's measured window.",
    }),
    failed: Type.Array(Type.String(), {
      description: "The criteria that did not hold, in the order of `checks`.",
    }),
    limitedBy: Type.String({
      description:
        "The step's own generator.limitedBy: generator ends the search (this machine's ceiling), nobody too (nothing was measured).",
    }),
    arrivalsPerSecond: ref(
      NonNegative,
      "Arrivals in the measured window per second: started plus dropped.",
    ),
    acceptedPerSecond: ref(NonNegative, "Messages accepted per second in the measured window."),
    deliveredPerSecond: nullable(
      ref(NonNegative),
      "Messages delivered per second in the measured window (--receive); null without.",
    ),
    connectP95Ms: nullable(
      ref(NonNegative),
      "Connect p95 of the connections made in the measured window, ms; null without one (reuse connects as its sessions open, in the warm-up).",
    ),
    transactionP95Ms: nullable(
      ref(NonNegative),
      "Transaction p95 (intended start to the final reply) over the measured window, ms.",
    ),
    deliveryP95Ms: nullable(
      ref(NonNegative),
      "Delivery p95 (intended send to arrival) of the messages due in the measured window that arrived in time, ms (--receive); null without, or when none arrived.",
    ),
    errorPercent: Type.Number({
      minimum: 0,
      maximum: 100,
      description:
        "Rejected, failed and dropped arrivals in the measured window, % of its arrivals.",
    }),
    backlog: nullable(
      BacklogTrend,
      "The trend of the messages inside the gateway over the measured window (--receive); null without.",
    ),
    checks: Type.Array(Check, { description: "Each service level and how the step met it." }),
    result: ref(ResultSchema, "The step's full Result, as `mailvolley run --json` writes it."),
  },
  { additionalProperties: false },
);

const Level = Type.Object(
  {
    percent: Type.Number({ description: "80, 100 or 120: the share of the rate found." }),
    ratePerSecond: ref(NonNegative, "The arrival rate of that step, messages/s."),
    pass: Type.Boolean({ description: "Whether every service level held at it." }),
    step: ref(Count, "The step's index in `steps`."),
  },
  { additionalProperties: false },
);

const Section = Type.Object(
  {
    mode: enumOf(MODES, "How the steps held their sessions."),
    target: Type.String({ description: "The target, as the steps' Results name it." }),
    throughGateway: Type.Boolean({
      description: "With --receive: delivery, loss and the backlog were judged too.",
    }),
    arrivals: enumOf(["constant", "poisson"] as const, "How the steps spaced their arrivals."),
    sustainedPerSecond: nullable(
      ref(NonNegative),
      "The highest rate that passed every service level, messages/s; null when no step passed.",
    ),
    atLeast: Type.Boolean({
      description:
        "The search stopped before a step failed on the target (the generator's ceiling, or --budget): the target sustains at least sustainedPerSecond.",
    }),
    limitedBy: enumOf(
      CAPACITY_LIMITED_BY,
      "How the search ended. target: a step failed on the target's side, and the rate was bisected to --resolution (or --budget ran out); generator: mailvolley could not offer a step (its own generator.limitedBy said generator), so the figure is this machine's ceiling; nobody: a step measured nothing (no connection reached the target).",
    ),
    reason: Type.String({ description: "Why the search ended, one sentence." }),
    headline: Type.String({ description: "The finding in words, as the terminal prints it." }),
    levelsJudged: Type.Array(Type.String(), {
      description:
        'The service levels every step was judged against, as written ("connect p95<=5s").',
    }),
    resolutionPercent: Type.Number({
      description:
        "The search bisected until the lowest failing rate was within this % of the highest passing.",
    }),
    elapsedMs: ref(Count, "The whole search, levels included, ms."),
    steps: Type.Array(Step, { description: "Every step, in the order it ran." }),
    levels: Type.Array(Level, {
      description:
        "The steps at 80, 100 and 120 % of the rate found, as SPECmail's tables show them; empty when no rate was found or the search did not end on the target.",
    }),
  },
  { additionalProperties: false },
);

export const CapacitySection = def("capacitySection", Section);

export const CapacitySchema = def(
  "capacity",
  Type.Object(
    {
      schema: Type.Literal(CAPACITY_SCHEMA, { description: "This document's kind and version." }),
      capacity: ref(
        CapacitySection,
        "The capacity search; with --mode both, the one with session reuse.",
      ),
      perMessage: Type.Optional(
        ref(
          CapacitySection,
          "With --mode both: the same search with one connection per message; absent otherwise.",
        ),
      ),
    },
    {
      description:
        "`mailvolley capacity`: the highest rate the target sustained within its service levels.",
      additionalProperties: false,
    },
  ),
);
