/**
 * Open model: how late arrivals started against the schedule. Lateness is actual start −
 * intended start, in whole microseconds, into an HDR histogram that crosses threads encoded
 * and merges by addition; beside it, how many arrivals started more than one arrival interval
 * late. Arrivals never started are `dropped`, counted elsewhere, not here.
 */
import { summariseHistogram } from "./collector.js";
import { addEncoded, LatencyRecorder } from "./histogram.js";
import type { LatencySummary } from "./result.js";

/**
 * The least lateness counted as late, whatever the arrival interval: Node's timers are not
 * finer (a 1 ms timer fires 1–2 ms late on an idle loop; arrivals are released in ticks), so
 * at thousands of arrivals a second one interval late says nothing about the generator.
 */
export const LATE_FLOOR_MS = 10;

/** Lateness beyond this counts an arrival as late: one arrival interval, at least LATE_FLOOR_MS. */
export function lateToleranceMs(arrivalIntervalMs: number): number {
  return Math.max(arrivalIntervalMs, LATE_FLOOR_MS);
}

/** What a thread's recorder hands back: plain data, safe to post between threads. */
export interface StartLatenessSnapshot {
  /** Arrivals started (each recorded once). */
  started: number;
  /** Of them, started later than lateToleranceMs(arrival interval at their intended time). */
  late: number;
  /** actual − intended start, µs, HDR compressed base64. */
  histogram: string;
}

/**
 * The run's arrival interval (ms between arrivals of the whole run, not of one worker's share)
 * at an arrival's intended time; a constant for a constant rate.
 */
export type ArrivalInterval = number | ((intendedMs: number) => number);

export class StartLateness {
  private readonly recorder = new LatencyRecorder();
  private startedCount = 0;
  private lateCount = 0;

  constructor(private readonly arrivalIntervalMs: ArrivalInterval) {}

  /** Running counts, for the time series to take differences of per interval. */
  get started(): number {
    return this.startedCount;
  }

  get late(): number {
    return this.lateCount;
  }

  /**
   * One arrival started. Both times on one clock (performance.now()); a start before its
   * intended time (clock rounding) counts as on time.
   */
  record(intendedMs: number, actualMs: number): void {
    const lateMs = actualMs - intendedMs;
    this.recorder.record(lateMs > 0 ? Math.round(lateMs * 1000) : 0);
    this.startedCount++;
    const interval =
      typeof this.arrivalIntervalMs === "number"
        ? this.arrivalIntervalMs
        : this.arrivalIntervalMs(intendedMs);
    if (lateMs > lateToleranceMs(interval)) this.lateCount++;
  }

  snapshot(): StartLatenessSnapshot {
    return {
      started: this.startedCount,
      late: this.lateCount,
      histogram: this.recorder.encoded(),
    };
  }
}

/** Recorders of several threads (or shards) as one: counts add, histograms add. */
export function mergeStartLateness(parts: readonly StartLatenessSnapshot[]): StartLatenessSnapshot {
  let started = 0;
  let late = 0;
  for (const p of parts) {
    started += p.started;
    late += p.late;
  }
  return { started, late, histogram: addEncoded(parts.map((p) => p.histogram)) };
}

/** The Result's figures of a (merged) snapshot: counts and the lateness distribution in ms. */
export function summariseStartLateness(snapshot: StartLatenessSnapshot): {
  started: number;
  late: number;
  startMs: LatencySummary;
} {
  return {
    started: snapshot.started,
    late: snapshot.late,
    startMs: summariseHistogram(snapshot.histogram),
  };
}
