/**
 * The histograms a thread records (stats/collector.ts), named once here, where the leaf that
 * fills them can read them: the Result's definition and merges read the same list through
 * result/schema/names.ts.
 */
import type { Latency } from "../smtp/phases.js";

/**
 * The order of `latency`'s fields (and of `histograms`) in a saved Result: the order they
 * joined the schema, so that saved results stay byte-for-byte what they were. Reports list
 * the latencies in LATENCIES order (smtp/phases.ts), the phases' session order.
 */
export const RESULT_LATENCIES = [
  "transaction",
  "connect",
  "banner",
  "ehlo",
  "envelope",
  "data",
  "quit",
  "session",
  "tls",
  "auth",
] as const satisfies readonly Latency[];

// Compiles only while RESULT_LATENCIES names every latency of smtp/phases.ts.
const _everyLatencySaved: Record<Exclude<Latency, (typeof RESULT_LATENCIES)[number]>, never> = {};

/**
 * The run's histograms, in a saved Result's order: one per latency of the Result
 * (RESULT_LATENCIES), and after the transaction's the one without coordinated-omission
 * correction.
 */
export type HistogramName = Latency | "transactionUncorrected";

export const HISTOGRAM_NAMES: readonly HistogramName[] = Object.freeze(
  RESULT_LATENCIES.flatMap((latency): HistogramName[] =>
    latency === "transaction" ? [latency, "transactionUncorrected"] : [latency],
  ),
);
