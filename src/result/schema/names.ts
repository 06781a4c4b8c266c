/**
 * The names the Result's definition and the code that fills a Result both read: its schema id
 * and the order of its latencies and histograms. No TypeBox here, so that the hot path's
 * modules (the collector, the workers) can import these without loading the schema builders.
 */
import type { Latency } from "../../smtp/phases.js";

/** Fields are only ever added under one schema; it changes when a field changes meaning. */
export const RESULT_SCHEMA = "mailvolley/result@1";

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

/** `mailvolley compare --json`: the two runs of one load, each a Result. */
export const COMPARE_SCHEMA = "mailvolley/compare@1";

/** `mailvolley capacity --json`: the search, its steps (each a Result) and its levels. */
export const CAPACITY_SCHEMA = "mailvolley/capacity@1";

/** How a capacity search ended: who set the rate it found. */
export const CAPACITY_LIMITED_BY = ["target", "generator", "nobody"] as const;

/** Why a capacity step was run. */
export const STEP_PURPOSES = ["estimate", "search", "level"] as const;

/** How a run holds its sessions: reuse keeps them open, per-message opens one a message. */
export const MODES = ["reuse", "per-message"] as const;

/** The signals that stop a run early, as a Result's `stoppedBy` names them. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * The headline figures of a run: what `--repeat` gives a spread for and `mailvolley diff`
 * compares, in report order. Each is defined once, with its description and which way is
 * better, in result-schema/repeat.ts (HeadlineFigures).
 */
export const HEADLINE_FIGURES = [
  "throughput",
  "plateauThroughput",
  "transactionP50Ms",
  "transactionP99Ms",
  "connectP99Ms",
  "errorPercent",
  "connectionsPerMessage",
  "cpuMsPerMessage",
  "tlsHandshakeP50Ms",
  "deliveryP95Ms",
  "relayedPerSecond",
  "backlogMax",
] as const;

export type HeadlineFigure = (typeof HEADLINE_FIGURES)[number];

/** `mailvolley diff --json`: two sets of runs compared figure by figure. */
export const DIFF_SCHEMA = "mailvolley/diff@1";
