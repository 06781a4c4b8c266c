/** The Result's `generator` section: a part of the Result type (stats/result.ts). */
import type { ThreadLoad } from "./generator-load.js";
import type { LatencySummary } from "./latency-summary.js";

/**
 * Who set the run's rate (see GeneratorResult.limitedBy): the generator, the target, the
 * user's schedule (open model, every arrival on time), nobody (nothing reached the target).
 */
export type LimitedBy = "generator" | "target" | "schedule" | "nobody" | "undetermined";

/**
 * The generator's own load: whose numbers these are. Every thread of mailvolley (the main
 * thread and each worker; after a merge, of every shard) is sampled over the run's window and
 * per interval of the time series, and the verdict `limitedBy` says whether mailvolley or the
 * target set the rate.
 */
export interface GeneratorResult {
  /**
   * `generator`: mailvolley's own limits set the rate, so the figures measure mailvolley, not
   * the target; `target`: every generator thread had headroom; `undetermined`: in between, or
   * too few intervals to say. The rule is written once, on limitedBy in
   * stats/generator-verdict.ts, and docs/result.md's "Whose numbers are these" quotes it:
   * generator when a thread was ≥ 90% busy (on a CPU or waiting for one, or its event loop
   * not idle) in most steady intervals, or its event-loop delay p99 exceeded the tolerance in
   * most, or (open model) starts ran late or arrivals were dropped while a thread was ≥ 70%
   * busy; target when every thread was < 70% busy in most steady intervals.
   */
  limitedBy: LimitedBy;
  /** The figures the verdict rests on, naming the thread: "main thread 97% busy in 8 of 9 …". */
  reasons: string[];
  /** What to do about it, one sentence. */
  advice: string;
  /** One row per generator thread, with its per-interval points (the time series' intervals). */
  threads: ThreadLoad[];
  /** Open model only: start lateness against the schedule; null in the closed model. */
  lateness: {
    /** Milliseconds between two arrivals of the whole run, at its highest rate. */
    arrivalIntervalMs: number;
    /** Lateness beyond this counts an arrival as late (one arrival interval, at least 10 ms). */
    toleranceMs: number;
    /** Arrivals started, and of them those started later than the tolerance. */
    started: number;
    late: number;
    /** actual − intended start (the start is when a session took the arrival). */
    startMs: LatencySummary;
    /** The histogram behind startMs, HDR compressed base64, µs. */
    histogram: string;
  } | null;
}
