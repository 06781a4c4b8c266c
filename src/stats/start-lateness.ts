/**
 * Open model: how late arrivals started against the schedule. Lateness is actual start −
 * intended start, in whole microseconds, into an HDR histogram that crosses threads encoded
 * and merges by addition; beside it, how many arrivals started more than one arrival interval
 * late. Arrivals never started are `dropped`, counted elsewhere, not here.
 */

import { summariseHistogram } from "./collector.js";
import { addEncoded, LatencyRecorder, type LatencySummary } from "./histogram.js";

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
  /**
   * Of them, the arrivals of the start-up (see StartLateness): absent in results saved before
   * it was told apart, where every arrival counts as steady.
   */
  startup?: { started: number; late: number };
  /** The histogram of the arrivals after the start-up, µs (absent: the same as histogram). */
  steadyHistogram?: string;
}

/** The start-up lasts this many intervals at most: a target that never lets an arrival start on
 * time is slow, not starting up. */
export const STARTUP_MAX_INTERVALS = 3;

/**
 * Where a run's start-up ends: the first interval of the time series, and beyond it for as long
 * as no arrival has yet started on time (the first sessions are still connecting, so the
 * arrivals queue behind their handshakes), STARTUP_MAX_INTERVALS at most. That lateness is the
 * start-up's, not the target's, unless the start-up held most of the run's arrivals (the
 * verdict then judges them all: generatorResult).
 */
export interface StartupWindow {
  /** The schedule's origin, on the clock of record() (performance.now()). */
  originMs: number;
  /** The first interval's length, ms. */
  intervalMs: number;
}

/**
 * The run's arrival interval (ms between arrivals of the whole run, not of one worker's share)
 * at an arrival's intended time; a constant for a constant rate.
 */
export type ArrivalInterval = number | ((intendedMs: number) => number);

export class StartLateness {
  private readonly recorder = new LatencyRecorder();
  private readonly steady = new LatencyRecorder();
  private startedCount = 0;
  private lateCount = 0;
  private startupStarted = 0;
  private startupLate = 0;
  /** An arrival has started on time: the sessions are up. */
  private onTime = false;

  /** Without a start-up window every arrival is steady. */
  constructor(
    private readonly arrivalIntervalMs: ArrivalInterval,
    private readonly startup: StartupWindow | null = null,
  ) {}

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
    const us = lateMs > 0 ? Math.round(lateMs * 1000) : 0;
    this.recorder.record(us);
    this.startedCount++;
    const interval =
      typeof this.arrivalIntervalMs === "number"
        ? this.arrivalIntervalMs
        : this.arrivalIntervalMs(intendedMs);
    const late = lateMs > lateToleranceMs(interval);
    if (late) this.lateCount++;
    if (!late) this.onTime = true;
    if (this.inStartup(intendedMs)) {
      this.startupStarted++;
      if (late) this.startupLate++;
    } else {
      this.steady.record(us);
    }
  }

  private inStartup(intendedMs: number): boolean {
    const w = this.startup;
    if (w === null) return false;
    const since = intendedMs - w.originMs;
    return since < w.intervalMs || (!this.onTime && since < STARTUP_MAX_INTERVALS * w.intervalMs);
  }

  snapshot(): StartLatenessSnapshot {
    return {
      started: this.startedCount,
      late: this.lateCount,
      histogram: this.recorder.encoded(),
      startup: { started: this.startupStarted, late: this.startupLate },
      steadyHistogram: this.steady.encoded(),
    };
  }
}

/**
 * A recorder for a schedule that starts now: `intervalAt` gives the run's arrival interval at
 * a time since the start, and the start-up window opens now and lasts `intervalMs` at least.
 */
export function scheduleLateness(
  intervalAt: (sinceStartMs: number) => number,
  intervalMs: number,
): StartLateness {
  const originMs = performance.now();
  return new StartLateness((intended) => intervalAt(intended - originMs), { originMs, intervalMs });
}

/** Recorders of several threads (or shards) as one: counts add, histograms add. */
export function mergeStartLateness(parts: readonly StartLatenessSnapshot[]): StartLatenessSnapshot {
  let started = 0;
  let late = 0;
  const startup = { started: 0, late: 0 };
  for (const p of parts) {
    started += p.started;
    late += p.late;
    startup.started += p.startup?.started ?? 0;
    startup.late += p.startup?.late ?? 0;
  }
  return {
    started,
    late,
    histogram: addEncoded(parts.map((p) => p.histogram)),
    startup,
    steadyHistogram: addEncoded(parts.map((p) => p.steadyHistogram ?? p.histogram)),
  };
}

/** The Result's figures of a (merged) snapshot: counts and the lateness distribution in ms. */
export function summariseStartLateness(snapshot: StartLatenessSnapshot): {
  started: number;
  late: number;
  startMs: LatencySummary;
  startup: { started: number; late: number };
  steadyStartMs: LatencySummary;
  steadyHistogram: string;
} {
  const steadyHistogram = snapshot.steadyHistogram ?? snapshot.histogram;
  return {
    started: snapshot.started,
    late: snapshot.late,
    startMs: summariseHistogram(snapshot.histogram),
    startup: snapshot.startup ?? { started: 0, late: 0 },
    steadyStartMs: summariseHistogram(steadyHistogram),
    steadyHistogram,
  };
}
