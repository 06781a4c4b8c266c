/**
 * The Result's delivery section (--receive) as TypeScript types: every figure is defined in
 * result/schema/delivery.ts; delivery/'s join computes them.
 */
import type { Static } from "@sinclair/typebox";
import type {
  DeliveryClass as DeliveryClassSchema,
  DeliveryCounts as DeliveryCountsSchema,
  DeliveryLatencies as DeliveryLatenciesSchema,
  DeliverySection,
  MessageRef as MessageRefSchema,
} from "./schema/delivery.js";

/** The counts of a population of accepted messages: the run's, or one class's. */
export type DeliveryCounts = Static<typeof DeliveryCountsSchema>;

/** The three latencies of messages that arrived in time (defined in result-schema/delivery.ts). */
export type DeliveryLatencies = Static<typeof DeliveryLatenciesSchema>;

/** One message class's delivery counts (defined in result/schema/delivery.ts). */
export type DeliveryClass = Static<typeof DeliveryClassSchema>;

/** One message as a user finds it: its number, RUNID.SEQ, class and the gateway's queue id. */
export type MessageRef = Static<typeof MessageRefSchema>;

/** The Result's `delivery`: every figure is defined in result/schema/delivery.ts. */
export type DeliveryResult = Static<typeof DeliverySection>;
