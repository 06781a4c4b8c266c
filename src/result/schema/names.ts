/**
 * The names the Result's definition and the code that fills a Result both read: its schema id,
 * the order of its latencies and histograms (the thread's recorders name them, in
 * stats/histogram-names.ts), its modes and headline figures. No TypeBox here, so that the hot
 * path's modules (the workers) can import these without loading the schema builders.
 */
export {
  HISTOGRAM_NAMES,
  type HistogramName,
  RESULT_LATENCIES,
} from "../../stats/histogram-names.js";

/** Fields are only ever added under one schema; it changes when a field changes meaning. */
export const RESULT_SCHEMA = "mailvolley/result@1";

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
