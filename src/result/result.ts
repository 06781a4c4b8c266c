/**
 * The Result of a run, as TypeScript types: each is `Static<typeof …>` of its definition in
 * result/schema/, where every figure's description (its one definition) is written and
 * from which the build writes schema/result.schema.json. Add a figure there, not here.
 */

import type { Static } from "@sinclair/typebox";
import type { ErrorRow as LeafErrorRow } from "../stats/errors.js";
import type { SameShape } from "./leaf-shape.js";
import type { ClassResult as ClassResultSchema } from "./schema/classes.js";
import type { ThresholdOutcome as ThresholdOutcomeSchema } from "./schema/context.js";
import type { ErrorRow as ErrorRowSchema } from "./schema/errors.js";
import type { MODES } from "./schema/names.js";
import type { ResultSchema } from "./schema/result.js";
import type { SeriesPoint } from "./schema/series.js";

export type { Phase } from "../smtp/phases.js";
/** The latencies `latency` holds, one field each, in report order: reports list them from here. */
export { LATENCIES, type Latency, type LatencyField, latencyField } from "../smtp/phases.js";
export type { ErrorClass } from "../stats/errors.js";
export type { WarningRow } from "../stats/warnings.js";
export type { DeliveryResult } from "./delivery-result.js";
export type { GeneratorResult, LimitedBy } from "./generator-result.js";
export type { LatencySummary } from "./latency-summary.js";
export type { FirstSeen, Knee, RunRecord } from "./result-context.js";
export type { HistogramName } from "./schema/names.js";
export {
  COMPARE_SCHEMA,
  HISTOGRAM_NAMES,
  RESULT_LATENCIES,
  RESULT_SCHEMA,
} from "./schema/names.js";
export type { ShardHeader } from "./shard-header.js";
export type { TlsResult } from "./tls-result.js";

export type Mode = (typeof MODES)[number];

/** An error row of the Result: the reply, its phase and text, how often, and its class. */
export type ResultErrorRow = Static<typeof ErrorRowSchema>;

/** An error row as a thread counts it, before it is classed. */
export type ErrorRow = Omit<ResultErrorRow, "class">;

// Compiles only while the row a thread counts (stats/errors.ts) is the Result's row unclassed.
const _leafErrorRow: SameShape<ErrorRow, LeafErrorRow> = true;

/** One row of the statistics table: a message class, or all of them. */
export type ClassResult = Static<typeof ClassResultSchema>;

/** One interval of the time series. */
export type SeriesPointResult = Static<typeof SeriesPoint>;

export type ThresholdOutcome = Static<typeof ThresholdOutcomeSchema>;

export type Result = Static<typeof ResultSchema>;
