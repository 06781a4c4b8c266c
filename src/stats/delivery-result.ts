/**
 * The delivery section of a Result (--receive) and what the receiving sink records per message:
 * types only, so that the Result type can name them without the join's code. The doc comments
 * are the one definition of each figure; stats/delivery.ts computes them.
 */
import type { LatencySummary } from "./latency-summary.js";

/**
 * Which key found a message's arrival: the trace header, the Message-ID, MAIL's ENVID, or the
 * `+RUNID.SEQ` tag of a recipient (--trace-recipient-tag).
 */
export type JoinKey = "traceHeader" | "messageId" | "envid" | "tag";

/** What the receiving sink saw of one message of this run (keyed by its number). */
export interface ArrivalRecord {
  /** Epoch ms of the first copy's arrival; 0 when only a refusal or a notice was seen. */
  firstMs: number;
  /** Transactions that delivered this message (copies). */
  copies: number;
  /** Recipients over every copy. */
  rcpts: number;
  /** Times the receiver refused it (4xx/5xx at RCPT or after its data) before it arrived. */
  refusals: number;
  /** Epoch ms of the first refusal: the retry delay runs from here; 0 when none. */
  firstRefusalMs: number;
  /** The Status of the delivery notice that came back for it; "" when none did. */
  bounceStatus: string;
  /** The key its first copy was found by. */
  key: JoinKey;
  /** The first copy came after the drain ended (within --late-window). */
  late: boolean;
}

/** What a receiving sink recorded of one run: its messages by number. */
export interface RunArrivals {
  readonly arrivals: Map<number, ArrivalRecord>;
  /** Epoch ms of the last arrival (not late) of this run; 0: none. */
  lastArrivalMs: number;
}

/** The receiving sink's counts beside the per-message records. */
export interface ArrivalCounts {
  /** Messages that carried no key of this run (other runs, other senders). */
  foreign: number;
  /** Delivery notices (DSNs) received, joined to a message of this run or not. */
  notices: number;
  /** Delivery notices no key of this run was found in. */
  noticesUnjoined: number;
  /** Epoch ms of the last arrival that was not late; 0: none. */
  lastArrivalMs: number;
}

/** The one final state of each accepted message. */
export type DeliveryState = "delivered" | "partial" | "bounced" | "lost" | "duplicated" | "late";

/** The final states, in the order the reports list them. */
export const DELIVERY_STATES: readonly DeliveryState[] = [
  "delivered",
  "partial",
  "bounced",
  "lost",
  "duplicated",
  "late",
];

/** The counts of a population of accepted messages: the run's, or one class's. */
export interface DeliveryCounts {
  /** Messages the gateway accepted (its 2xx to the data): the join's population. */
  accepted: number;
  /** Every recipient arrived, each once (in one copy or several). */
  delivered: number;
  /** Some recipients arrived, not all, by the end of the drain. */
  partial: number;
  /** A delivery notice (DSN) came back for it; it never counts as delivered. */
  bounced: number;
  /** Nothing arrived by the end of the drain (nor within --late-window). */
  lost: number;
  /** A recipient arrived more than once (more recipients over several copies than sent). */
  duplicated: number;
  /** First arrival after the drain ended, within --late-window: never lost, never in the latency. */
  late: number;
  /** Arrived only after the receiver refused it at least once (a retry by the gateway). */
  retried: number;
  /** Recipients beyond the ones sent, in a single copy (list expansion, rewriting). */
  extra: number;
}

/** The latencies of messages that arrived in time. */
export interface DeliveryLatencies {
  /** Intended send time → first arrival, ms. */
  endToEndMs: LatencySummary;
  /** The gateway's 250 → first arrival, ms. */
  insideGatewayMs: LatencySummary;
  /** First refusal → arrival, ms, of retried messages. */
  retryDelayMs: LatencySummary;
}

export interface DeliveryClass extends DeliveryCounts {
  /** Intended send time → first arrival, ms, of this class's messages that arrived in time. */
  endToEndMs: LatencySummary;
  /** The gateway's 250 → first arrival, ms, of this class's messages that arrived in time. */
  insideGatewayMs: LatencySummary;
}

/** One message as a user finds it: its number, RUNID.SEQ, class and the gateway's queue id. */
export interface MessageRef {
  seq: number;
  /** RUNID.SEQ, as in X-Mailvolley-Id and ENVID. */
  id: string;
  className: string;
  /** From the gateway's 250 (`queued as X`); "" when it named none. */
  queueId: string;
}

export interface DeliveryResult extends DeliveryCounts, DeliveryLatencies {
  /** Where the gateway relayed to (--receive), or the arrivals files (report --arrivals). */
  receiver: string;
  /** Delivery attempts of the retried messages: refusals plus the one that arrived. */
  retryAttempts: number;
  /** Messages at the receiver that carried no key of this run. */
  foreign: number;
  /** Arrived, but the client never saw the gateway's 2xx for it (a timeout, a lost reply). */
  unconfirmed: number;
  /** Delivery notices received, and those joined to no message of this run. */
  notices: number;
  noticesUnjoined: number;
  /** How each arrival was found: trace header, Message-ID, ENVID or recipient tag. */
  keys: Record<JoinKey, number>;
  /** The last acceptance to the last arrival (not late), ms; 0 when nothing arrived. */
  drainMs: number;
  /** The drain waited its whole --drain-timeout with messages still missing. */
  drainTimedOut: boolean;
  /** The first connect to the last arrival, ms: the whole job's time. */
  windowMs: number;
  /** Delivered messages per second over windowMs. */
  deliveredPerSecond: number;
  /** Accepted messages per second, first connect to the last acceptance. */
  acceptedPerSecond: number;
  /** Delivered messages per second, first connect to the last arrival (same as above). */
  relayedPerSecond: number;
  /** What the gateway held back: accept rate minus relay rate, per second (0 when none). */
  backlogPerSecond: number;
  /** The most messages inside the gateway at once: accepted, not yet arrived (nor bounced). */
  backlogMax: number;
  /**
   * The same three latencies split by the message's final state: only states whose messages
   * arrived in time (delivered, partial, duplicated, bounced with a copy, retried ones).
   */
  byState: Partial<Record<DeliveryState, DeliveryLatencies>>;
  /**
   * Where the arrivals were timed: "same" when the receiving sink ran in the run's process
   * (--receive ADDR); "other" when another host's sink recorded them (report --arrivals), so
   * every latency above includes the offset between the two hosts' clocks.
   */
  receiverClock: "same" | "other";
  /**
   * The largest amount, ms, by which an arrival was timed before the gateway's 250 for it; 0
   * when none was. Above 0 the receiver's clock is behind the client's by at least this much
   * (such a message's latencies are recorded as 0).
   */
  clockBehindMs: number;
  /**
   * Per second from the first connect to the last arrival: messages accepted and delivered
   * (first arrivals, notices included) in that second, and those inside the gateway at its end.
   */
  perSecond: { accepted: number[]; delivered: number[]; inside: number[] };
  /** Per message class. */
  classes: Record<string, DeliveryClass>;
  /** The first lost messages (by number), so a user can look for them in the gateway's log. */
  firstLost: MessageRef[];
  /** The first duplicated messages, likewise. */
  firstDuplicated: MessageRef[];
}
