/**
 * The delivery section of a Result (--receive) and what the receiving sink records per message:
 * types only, so that the Result type can name them without the join's code. The figures are
 * defined in stats/result-schema/delivery.ts; stats/delivery.ts computes them.
 */
import type { Static } from "@sinclair/typebox";
import type {
  DeliveryClass as DeliveryClassSchema,
  DeliverySection,
  MessageRef as MessageRefSchema,
} from "./result-schema/delivery.js";

/** Which key found a message's arrival: the trace header, the Message-ID, or MAIL's ENVID. */
export type JoinKey = "traceHeader" | "messageId" | "envid";

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

/** One message class's delivery counts (defined in stats/result-schema/delivery.ts). */
export type DeliveryClass = Static<typeof DeliveryClassSchema>;

/** One message as a user finds it: its number, RUNID.SEQ, class and the gateway's queue id. */
export type MessageRef = Static<typeof MessageRefSchema>;

/** The Result's `delivery`: every figure is defined in stats/result-schema/delivery.ts. */
export type DeliveryResult = Static<typeof DeliverySection>;
