/** A latency distribution as the Result gives it; defined in result/schema/kinds.ts. */
import type { Static } from "@sinclair/typebox";
import type { LatencySummary as LatencySummarySchema } from "./schema/kinds.js";

export type LatencySummary = Static<typeof LatencySummarySchema>;
