/**
 * The Result's `delivery` (--receive): each message the gateway accepted, joined with what
 * arrived at the run's receiving sink. delivery/delivery-verdict.ts computes every figure defined here.
 */
import { Type } from "@sinclair/typebox";
import { enumOf, mapOf, nullable, ref } from "./define.js";
import { Count, EpochMs, Histogram, LatencySummary } from "./kinds.js";

const outcome = {
  accepted: "Messages the gateway accepted (its 2xx to the data): the join's population.",
  delivered: "Every recipient arrived, each once (in one copy or several).",
  partial:
    "Some recipients arrived, not all, by the end of the drain, and the gateway gave up on none of the others (no 5xx, no notice).",
  bounced:
    "The gateway gave up on a recipient: the receiver refused it with 5xx, or a delivery notice (DSN) came back, whether or not the notice came. Never counts as delivered.",
  lost: "Nothing arrived by the end of the drain (nor within --late-window), nor was refused with 5xx.",
  duplicated: "A recipient arrived more than once.",
  late: "First arrival after the drain ended, within --late-window: never lost, never in the latency.",
  notWaited:
    "Not every recipient had arrived when the drain was cut short (Ctrl-C, or --drain-timeout 0): not waited for, never counted lost.",
  retried: "A recipient arrived after the receiver had refused it (4xx): the gateway retried it.",
  extra: "Recipients beyond the ones sent, each arrived once (list expansion, rewriting).",
};

/** The outcome counts, each with its definition, for the whole run and per class. */
const outcomeCounts = () => ({
  accepted: ref(Count, outcome.accepted),
  delivered: ref(Count, outcome.delivered),
  partial: ref(Count, outcome.partial),
  bounced: ref(Count, outcome.bounced),
  lost: ref(Count, outcome.lost),
  duplicated: ref(Count, outcome.duplicated),
  late: ref(Count, outcome.late),
  notWaited: ref(Count, outcome.notWaited),
  retried: ref(Count, outcome.retried),
  extra: ref(Count, outcome.extra),
});

/** The counts of a population of accepted messages: the run's, or one class's. */
export const DeliveryCounts = Type.Object(outcomeCounts(), { additionalProperties: false });

const latency = {
  endToEndMs: "Intended send time → first arrival, ms",
  insideGatewayMs: "The gateway's 250 → first arrival, ms",
  retryDelayMs: "A retried recipient's first refusal → its arrival, ms, one per retried recipient",
};

const latencyProperties = () => ({
  endToEndMs: ref(LatencySummary, `${latency.endToEndMs}.`),
  insideGatewayMs: ref(LatencySummary, `${latency.insideGatewayMs}.`),
  retryDelayMs: ref(LatencySummary, `${latency.retryDelayMs}.`),
});

/** The three latencies of the messages of one final state that arrived in time. */
export const DeliveryLatencies = Type.Object(latencyProperties(), { additionalProperties: false });

const stateLatencies = (state: string) =>
  Type.Optional(
    Type.Object(latencyProperties(), {
      description: `The latencies of the ${state} messages that arrived in time.`,
      additionalProperties: false,
    }),
  );

/** Bounced messages by the enhanced status (RFC 3463) of the 5xx refusal or notice. */
const bounceStatuses = (whose: string) =>
  Type.Record(Type.String(), ref(Count), {
    description: `Of ${whose}: how many by each enhanced status (RFC 3463) of the receiver's 5xx refusal or the notice; a message given two statuses counts under each.`,
  });

/** How a run's drain ended. */
const DRAIN_ENDS = ["arrived", "timedOut", "interrupted", "skipped", "none"] as const;

/** How the arrivals were timed: by the run's own clock, or another host's. */
const RECEIVER_CLOCKS = ["same", "other"] as const;

export const DeliveryClass = Type.Object(
  {
    ...outcomeCounts(),
    bounceStatuses: bounceStatuses("this class's bounced messages"),
    endToEndMs: ref(
      LatencySummary,
      "Intended send time → first arrival, ms, of this class's messages that arrived in time.",
    ),
    insideGatewayMs: ref(
      LatencySummary,
      "The gateway's 250 → first arrival, ms, of this class's messages that arrived in time.",
    ),
  },
  { additionalProperties: false },
);

/** One message as a user finds it: its number, RUNID.SEQ, class and the gateway's queue id. */
export const MessageRef = Type.Object(
  {
    seq: ref(Count, "The message's number in the run."),
    id: Type.String({ description: "RUNID.SEQ, as in X-Mailvolley-Id and ENVID." }),
    className: Type.String({ description: "The message's class." }),
    queueId: Type.String({
      description:
        "From the gateway's 250 (`queued as X`); \"\" when it named none, or when a duplicate came after the join had released the message's record.",
    }),
  },
  { additionalProperties: false },
);

const perSecond = (what: string) =>
  Type.Array(ref(Count), { description: `Per second from the first connect: ${what}.` });

/** The accepted messages that were due in one second, whatever became of them. */
const DueSecond = Type.Object(
  {
    t: ref(
      EpochMs,
      "Start of the second, epoch ms (a multiple of 1000, as the time series' intervals are): the messages' intended send time fell in it.",
    ),
    accepted: ref(Count, "Messages due in this second that the gateway accepted."),
    lost: ref(Count, "Of them, lost (see lost)."),
    endToEndHistogram: nullable(
      ref(Histogram),
      "Intended send time → first arrival of those that arrived in time, HDR compressed base64, µs (as endToEndMs); null when none did. accepted less its count did not arrive in time: lost, late, bounced without a copy, or not waited for.",
    ),
  },
  { additionalProperties: false },
);

export const DeliverySection = Type.Object(
  {
    receiver: Type.String({
      description:
        "Where the gateway relayed to (--receive), or `another host (FILES)` after report --arrivals.",
    }),
    ...outcomeCounts(),
    retryAttempts: ref(
      Count,
      "Delivery attempts of the retried recipients, as the gateway's log shows them: each refusal, and the attempt that arrived.",
    ),
    foreign: ref(Count, "Messages at the receiver that carried no key of this run."),
    unconfirmed: ref(
      Count,
      "Arrived, but the client never saw the gateway's 2xx for it (a timeout, a lost reply).",
    ),
    notices: ref(Count, "Delivery notices (DSNs) received."),
    noticesUnjoined: ref(Count, "Delivery notices joined to no message of this run."),
    keys: Type.Object(
      {
        traceHeader: ref(Count, "Arrivals found by the X-Mailvolley-Id trace header."),
        messageId: ref(Count, "Arrivals found by their Message-ID."),
        envid: ref(Count, "Arrivals found by MAIL's ENVID (RFC 3461)."),
        tag: ref(Count, "Arrivals found by a recipient's +RUNID.SEQ tag (--tag-recipients)."),
      },
      {
        description:
          "How each arrival was found: trace header, Message-ID, ENVID or recipient tag.",
        additionalProperties: false,
      },
    ),
    drainMs: Type.Number({
      description:
        "The last acceptance to the last arrival (not late), ms; 0 when nothing arrived.",
    }),
    drainTimedOut: Type.Boolean({
      description: "The drain waited its whole --drain-timeout with messages still missing.",
    }),
    drain: Type.Object(
      {
        end: enumOf(
          DRAIN_ENDS,
          'How the drain ended: "arrived" (every accepted message accounted for), "timedOut" (--drain-timeout ran out), "interrupted" (Ctrl-C), "skipped" (--drain-timeout 0: nothing waited for), "none" (an offline join, report --arrivals).',
        ),
        waitedMs: Type.Number({
          minimum: 0,
          description: "How long the run waited after the load ended, ms.",
        }),
        missing: ref(
          Count,
          "Accepted messages not yet accounted for (not every recipient arrived or given up on) when the drain ended.",
        ),
      },
      {
        description: "The wait after the load for what was still inside the gateway.",
        additionalProperties: false,
      },
    ),
    windowMs: Type.Number({
      description: "The first connect to the last arrival, ms: the whole job's time.",
    }),
    deliveredPerSecond: Type.Number({
      description: "Delivered messages per second over windowMs.",
    }),
    acceptedPerSecond: Type.Number({
      description: "Accepted messages per second, first connect to the last acceptance.",
    }),
    relayedPerSecond: Type.Number({
      description: "Delivered messages per second, first connect to the last arrival.",
    }),
    backlogPerSecond: Type.Number({
      description:
        "What the gateway held back: accept rate minus relay rate, per second (0 when none).",
    }),
    plateau: Type.Object(
      {
        fromSecond: ref(Count, "First second of the plateau, from the first connect."),
        toSecond: ref(Count, "The second after the plateau's last."),
        acceptedPerSecond: Type.Number({
          description: "Messages the gateway accepted per second over the plateau.",
        }),
        relayedPerSecond: Type.Number({
          description:
            "Messages that came out (first arrivals, notices included) per second over the plateau.",
        }),
      },
      {
        description:
          "The seconds the gateway accepted at its steady rate: every second with an acceptance but the first and the last (when more than two).",
        additionalProperties: false,
      },
    ),
    backlogTrend: Type.Object(
      {
        perSecond: Type.Number({
          description:
            "Least-squares slope of the messages inside the gateway over the plateau, per second (negative: it shrank).",
        }),
        trend: enumOf(
          ["growing", "flat", "shrinking"] as const,
          "growing or shrinking when the slope is beyond the tolerance, else flat.",
        ),
        tolerancePerSecond: Type.Number({
          description:
            "The slope within which the backlog is flat: 2% of the plateau's accept rate, at least 1 message a second.",
        }),
      },
      {
        description:
          "Whether the backlog inside the gateway grew, held or shrank while the gateway accepted at its plateau.",
        additionalProperties: false,
      },
    ),
    backlogMax: ref(
      Count,
      "The most messages inside the gateway at once: accepted, not yet arrived (nor bounced).",
    ),
    endToEndMs: ref(
      LatencySummary,
      "Intended send time → first arrival, ms, of every message that arrived in time.",
    ),
    insideGatewayMs: ref(LatencySummary, "The gateway's 250 → first arrival, ms."),
    retryDelayMs: ref(LatencySummary, "First refusal → arrival, ms, of retried messages."),
    byState: Type.Object(
      {
        delivered: stateLatencies("delivered"),
        partial: stateLatencies("partial"),
        bounced: stateLatencies("bounced"),
        lost: stateLatencies("lost"),
        duplicated: stateLatencies("duplicated"),
        late: stateLatencies("late"),
        notWaited: stateLatencies("not waited for"),
      },
      {
        description:
          "The end-to-end, inside-the-gateway and retry-delay latencies split by the message's final state: only states whose messages arrived in time (delivered, partial, duplicated, bounced with a copy).",
        additionalProperties: false,
      },
    ),
    receiverClock: enumOf(
      RECEIVER_CLOCKS,
      'Where the arrivals were timed: "same" when the run\'s own receiving sink timed them (--receive ADDR); "other" when a sink on another host did (report --arrivals), so every latency includes the offset between the two hosts\' clocks.',
    ),
    clockBehindMs: Type.Number({
      minimum: 0,
      description:
        "With receiverClock other: the largest amount, ms, by which an arrival was timed before the gateway's 250 for it (the receiver's clock behind, or a relay faster than the reply); such latencies count as 0. Always 0 with one clock.",
    }),
    perSecond: Type.Object(
      {
        accepted: perSecond("messages the gateway accepted in that second"),
        delivered: perSecond(
          "messages delivered (first arrivals, notices included) in that second",
        ),
        inside: perSecond("messages inside the gateway at that second's end"),
      },
      {
        description:
          "Per second from the first connect to the last arrival: messages accepted and delivered (first arrivals, notices included) in that second, and those inside the gateway at its end.",
        additionalProperties: false,
      },
    ),
    dueSeconds: Type.Optional(
      Type.Array(DueSecond, {
        description:
          "Per second the messages were due (intended send time), in time order: a part of the run (capacity's measured window, without its warm-up) is judged on the messages it offered, whenever they came out. Absent in results saved before it existed.",
      }),
    ),
    bounceStatuses: bounceStatuses("the bounced messages"),
    classes: mapOf(DeliveryClass, "Per message class."),
    firstLost: Type.Array(MessageRef, {
      description:
        "The first lost messages (by number), so a user can look for them in the gateway's log.",
    }),
    firstDuplicated: Type.Array(MessageRef, {
      description: "The first duplicated messages, to look up in the gateway's log.",
    }),
  },
  {
    description:
      "Through the gateway (--receive): each message the gateway accepted, joined with what arrived at the run's receiving sink.",
    additionalProperties: false,
  },
);

/**
 * Each message the gateway accepted, kept in the result with --receive elsewhere, for `report
 * --arrivals` to join with what a sink on another host received. Column-wise, one entry per
 * accepted message; one ledger per run (per shard after `merge`).
 */
export const AcceptLedger = Type.Object(
  {
    runId: Type.String({ description: "The run whose messages these are." }),
    firstConnectMs: Type.Number({
      description: "Epoch ms of the run's first connect, by the generator's clock.",
    }),
    classes: Type.Array(Type.String(), {
      description: "The run's message classes; classIndex points into it.",
    }),
    seq: Type.Array(ref(Count), { description: "Each accepted message's number." }),
    intendedMs: Type.Array(Type.Number(), {
      description:
        "Epoch ms the message was due (the open model's schedule; its start in the closed model).",
    }),
    acceptedMs: Type.Array(Type.Number(), { description: "Epoch ms of the gateway's final 2xx." }),
    queueId: Type.Array(Type.String(), {
      description: 'The queue id from `250 … queued as X`; "" when the reply named none.',
    }),
    classIndex: Type.Array(ref(Count), { description: "The message's class, in classes." }),
    recipients: Type.Array(ref(Count), { description: "Recipients the message was sent to." }),
  },
  { additionalProperties: false },
);
