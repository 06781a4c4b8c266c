/**
 * What the receiving sink records per message and the join's states: types only. The join
 * (delivery/delivery-verdict.ts) computes the Result's delivery section from them, whose types
 * (result/delivery-result.ts) are named here too, so that the join's files read both from one
 * place.
 */
export type {
  DeliveryClass,
  DeliveryCounts,
  DeliveryLatencies,
  DeliveryResult,
  MessageRef,
} from "../result/delivery-result.js";

/**
 * Which key found a message's arrival: the trace header, the Message-ID, MAIL's ENVID, or the
 * `+RUNID.SEQ` tag of a recipient (--tag-recipients).
 */
export type JoinKey = "traceHeader" | "messageId" | "envid" | "tag";

/** What the receiving sink saw of one message of this run (keyed by its number). */
export interface ArrivalRecord {
  /**
   * Epoch ms of the first copy's arrival; before any copy, of the notice or the 5xx refusal
   * that bounced it; 0 when nothing came but 4xx refusals.
   */
  firstMs: number;
  /** Transactions that delivered this message (copies). */
  copies: number;
  /** Recipients that arrived, each counted once. */
  rcpts: number;
  /** Arrivals of a recipient that had arrived before (a duplicate). */
  dupRcpts: number;
  /** Refusals of the retried recipients before they arrived. */
  refusals: number;
  /** Recipients that arrived after the receiver had refused them: retried by the gateway. */
  retried: number;
  /** Per retried recipient: its first refusal to its arrival, ms. */
  retryDelaysMs: readonly number[];
  /** Recipients the gateway gave up on (refused with 5xx, or failed in a notice), not arrived. */
  gaveUp: number;
  /** Recipients refused with 4xx and not arrived: still inside the gateway. */
  pending: number;
  /**
   * The enhanced status of the 5xx refusal or notice that bounced it, each once, space-separated
   * ("5.3.0"); "" when neither came.
   */
  bounceStatus: string;
  /** The key its first copy was found by. */
  key: JoinKey;
  /** The first copy came after the drain ended (within --late-window). */
  late: boolean;
  /**
   * Each recipient by address, while the receiving end keeps the record; the address alone
   * while one copy for one recipient is all that came; null when nothing came or not kept.
   */
  recipients: RecipientLog | string | null;
}

/** What the receiver saw of one recipient of a message (recipients compare case-blind). */
export interface RecipientSeen {
  /** Copies that brought it. */
  arrived: number;
  /** Refusals before it arrived. */
  refusals: number;
  /** Epoch ms of its first refusal: its retry delay runs from here. */
  firstRefusalMs: number;
  /** The gateway gave up on it: refused with 5xx, or failed in a notice. */
  gaveUp: boolean;
}

/** A message's recipients, by address (lower case). */
export type RecipientLog = Map<string, RecipientSeen>;

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
export type DeliveryState =
  | "delivered"
  | "partial"
  | "bounced"
  | "lost"
  | "duplicated"
  | "late"
  | "notWaited";

/** The final states, in the order the reports list them. */
export const DELIVERY_STATES: readonly DeliveryState[] = [
  "delivered",
  "partial",
  "bounced",
  "lost",
  "duplicated",
  "late",
  "notWaited",
];
