/** A latency distribution as the Result gives it; defined in result/schema/kinds.ts. */
import type { Static } from "@sinclair/typebox";
import type { LatencySummary as LeafSummary } from "../stats/histogram.js";
import type { SameShape } from "./leaf-shape.js";
import type { LatencySummary as LatencySummarySchema } from "./schema/kinds.js";

export type LatencySummary = Static<typeof LatencySummarySchema>;

// Compiles only while stats/' summary of a histogram is the Result's latency summary.
const _leafSummary: SameShape<LatencySummary, LeafSummary> = true;
