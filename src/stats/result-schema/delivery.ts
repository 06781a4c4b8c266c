/**
 * The Result's `delivery` (--receive): each message the gateway accepted, joined with what
 * arrived at the run's receiving sink. stats/delivery.ts computes every figure defined here.
 */
import { Type } from "@sinclair/typebox";
import { mapOf, ref } from "./define.js";
import { Count, LatencySummary } from "./kinds.js";

const outcome = {
  accepted: "Messages the gateway accepted (its 2xx to the data): the join's population.",
  delivered: "Every recipient arrived, each once (in one copy or several).",
  partial: "Some recipients arrived, not all, by the end of the drain.",
  bounced: "A delivery notice (DSN) came back for it; it never counts as delivered.",
  lost: "Nothing arrived by the end of the drain (nor within --late-window).",
  duplicated: "A recipient arrived more than once (more recipients over several copies than sent).",
  late: "First arrival after the drain ended, within --late-window: never lost, never in the latency.",
  retried: "Arrived only after the receiver refused it at least once (a retry by the gateway).",
};

/** The eight outcome counts, each with its definition, for the whole run and per class. */
const outcomeCounts = () => ({
  accepted: ref(Count, outcome.accepted),
  delivered: ref(Count, outcome.delivered),
  partial: ref(Count, outcome.partial),
  bounced: ref(Count, outcome.bounced),
  lost: ref(Count, outcome.lost),
  duplicated: ref(Count, outcome.duplicated),
  late: ref(Count, outcome.late),
  retried: ref(Count, outcome.retried),
});

export const DeliveryClass = Type.Object(
  {
    ...outcomeCounts(),
    endToEndMs: ref(
      LatencySummary,
      "Intended send time → first arrival, ms, of this class's messages that arrived in time.",
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
      description: 'From the gateway\'s 250 (`queued as X`); "" when it named none.',
    }),
  },
  { additionalProperties: false },
);

const perSecond = (what: string) =>
  Type.Array(ref(Count), { description: `Per second from the first connect: ${what}.` });

export const DeliverySection = Type.Object(
  {
    receiver: Type.String({ description: "Where the gateway relayed to (--receive)." }),
    ...outcomeCounts(),
    retryAttempts: ref(
      Count,
      "Delivery attempts of the retried messages: refusals plus the one that arrived.",
    ),
    foreign: ref(Count, "Messages at the receiver that carried no key of this run."),
    extra: ref(
      Count,
      "Recipients beyond the ones sent, in a single copy (list expansion, rewriting).",
    ),
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
      },
      {
        description: "How each arrival was found: trace header, Message-ID, or ENVID.",
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
