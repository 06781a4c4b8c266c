/** A latency distribution as the Result gives it; defined in stats/result-schema/kinds.ts. */
import type { Static } from "@sinclair/typebox";
import type { LatencySummary as LatencySummarySchema } from "./result-schema/kinds.js";

export type LatencySummary = Static<typeof LatencySummarySchema>;
