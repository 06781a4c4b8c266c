/**
 * The headline figures of a run, each defined once with which way is better, and the Result's
 * `repeat` section: the same load run N times (`--repeat N`), each run's headline figures and
 * their spread. `mailvolley diff` compares two sets of these figures (result-schema/diff.ts).
 */
import { Type } from "@sinclair/typebox";
import { type Better, better, def, nullable, recordOf, ref } from "./define.js";
import { Count, IsoTime, NonNegative, PositiveInteger } from "./kinds.js";
import { HEADLINE_FIGURES, type HeadlineFigure } from "./names.js";

/** A headline figure: a number, or null where the run has none (no TLS, no --receive). */
const headline = (direction: Better, description: string) =>
  better(
    direction,
    nullable(
      Type.Number(),
      `${description} ${direction === "higher" ? "Higher" : "Lower"} is better.`,
    ),
  );

export const HeadlineFigures = def(
  "headlineFigures",
  Type.Object(
    {
      throughput: headline(
        "higher",
        "Accepted messages per second over the whole run (throughput.messagesPerSecond).",
      ),
      plateauThroughput: headline(
        "higher",
        "Accepted messages per second over the plateau (throughput.plateau.messagesPerSecond); null without a plateau.",
      ),
      transactionP50Ms: headline(
        "lower",
        "Median transaction latency, ms (latency.transactionMs.p50); null when no message was accepted.",
      ),
      transactionP99Ms: headline(
        "lower",
        "99th percentile transaction latency, ms (latency.transactionMs.p99); null when no message was accepted.",
      ),
      connectP99Ms: headline(
        "lower",
        "99th percentile connect latency, ms (latency.connectMs.p99); null when nothing connected.",
      ),
      errorPercent: headline(
        "lower",
        "Rejected and failed messages, % of attempted (allClasses.errorPercent).",
      ),
      connectionsPerMessage: headline(
        "lower",
        "Connections opened per message attempted (connections.perMessage).",
      ),
      cpuMsPerMessage: headline(
        "lower",
        "The generator's CPU time per message attempted, ms: every thread's cpuSeconds (a process-wide row counted once) × 1000 / messages.attempted. null without the generator's figures or without a message.",
      ),
      tlsHandshakeP50Ms: headline(
        "lower",
        "Median TLS handshake, ms (latency.tlsMs.p50); null without TLS.",
      ),
      deliveryP95Ms: headline(
        "lower",
        "95th percentile end-to-end delivery, ms (delivery.endToEndMs.p95); null without --receive or without an arrival.",
      ),
      relayedPerSecond: headline(
        "higher",
        "Messages the gateway relayed per second (delivery.relayedPerSecond); null without --receive.",
      ),
      backlogMax: headline(
        "lower",
        "The most messages inside the gateway at once (delivery.backlogMax); null without --receive.",
      ),
    } satisfies Record<HeadlineFigure, unknown>,
    {
      description:
        "A run's headline figures, each with the keyword `better` (higher or lower): which way the better run lies, read by `mailvolley diff`.",
      additionalProperties: false,
    },
  ),
);

export const Spread = def(
  "spread",
  Type.Object(
    {
      runs: ref(PositiveInteger, "Runs that had the figure."),
      mean: Type.Number({ description: "The mean over those runs." }),
      sd: ref(NonNegative, "The sample standard deviation (n − 1); 0 for one run."),
      ciLow: nullable(
        Type.Number(),
        "Low end of the 95 % confidence interval of the mean (Student's t, n − 1 degrees of freedom); null for one run.",
      ),
      ciHigh: nullable(Type.Number(), "High end of that interval; null for one run."),
      min: Type.Number({ description: "The smallest run's value." }),
      max: Type.Number({ description: "The largest run's value." }),
      cv: nullable(
        ref(NonNegative),
        "Coefficient of variation: sd / mean (0.1 = 10 %); null when the mean is 0. Over 0.1 the reports call the runs unstable.",
      ),
    },
    {
      description: "How a figure spread over repeated runs.",
      additionalProperties: false,
    },
  ),
);

export const RepeatRun = Type.Object(
  {
    runId: Type.String({ description: "The run's id (its messages' X-Mailvolley-Run)." }),
    startedAt: ref(IsoTime, "Wall-clock time of the run's first connect."),
    accepted: ref(Count, "Messages accepted in the run."),
    figures: ref(HeadlineFigures, "The run's headline figures."),
  },
  { description: "One run of the repeat.", additionalProperties: false },
);

export const RepeatSection = Type.Object(
  {
    count: ref(PositiveInteger, "Runs made (--repeat; fewer when a signal stopped them)."),
    pauseMs: ref(NonNegative, "Pause between the runs (--pause), ms."),
    runs: Type.Array(RepeatRun, { description: "Each run's figures, in the order they ran." }),
    spread: recordOf(
      HEADLINE_FIGURES,
      (name) => nullable(ref(Spread), `The spread of ${name}; null when no run had it.`),
      "Each headline figure's mean, standard deviation, 95 % confidence interval, min, max and coefficient of variation over the runs.",
    ),
  },
  {
    description:
      "`--repeat N`: the same load run N times. The rest of the Result is the last run's; this section keeps every run's headline figures and their spread. Absent without --repeat.",
    additionalProperties: false,
  },
);
