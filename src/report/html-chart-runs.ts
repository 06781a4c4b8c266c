/**
 * What the HTML report's charts are drawn from, made in Node from a Result and embedded in the
 * page as JSON (html-charts.ts draws it in the browser). The x axis is time since the run's
 * first connect: the clock of Result.knee and Result.firstSeen.
 */
import { ERROR_CLASS_LABELS } from "../stats/errors.js";
import type { Result } from "../stats/result.js";
import { fmt } from "./figures.js";

/** A mark on the charts' x axis: where success fell (knee) or an error class first appeared. */
export interface ChartMarker {
  /** Seconds since the run's first connect. */
  x: number;
  /** "knee", "first refused (connection 31)". */
  label: string;
  /** An error class (its first occurrence), or null for the knee. */
  class: string | null;
}

/** One run's series as the page embeds it. */
export interface ChartRun {
  label: string;
  intervalMs: number;
  /** Seconds from the first connect to the run's last reply (Result.elapsedSeconds). */
  endX: number;
  markers: ChartMarker[];
  points: {
    /** Start of the interval, seconds since the first connect; 0 for the first interval. */
    x: number;
    sent: number;
    /** Absent in results saved before it existed. */
    dropped?: number;
    accepted: number;
    failed: number;
    rejected: number;
    connectionsOpened: number;
    openSessions: number;
    errors: Record<string, number>;
    /** null: nothing accepted in the interval (a gap in the latency chart). */
    p50Ms: number | null;
    p99Ms: number | null;
    generator?: { busy: number; eventLoopDelayP99Ms: number };
  }[];
}

/**
 * One run as the charts draw it: x in seconds since the first connect (the clock of Result.knee
 * and Result.firstSeen), each interval from its start (the first one from the first connect).
 */
export function chartRun(r: Result): ChartRun {
  const start = Date.parse(r.startedAt);
  const points = (r.series?.points ?? []).map(({ histogram: _h, t, ...p }) => ({
    x: Math.max(0, (t - start) / 1000),
    ...p,
  }));
  return {
    label: r.mode,
    intervalMs: r.series?.intervalMs ?? 1000,
    endX: Math.max(r.elapsedSeconds, ...points.map((p) => p.x)),
    markers: chartMarkers(r),
    points,
  };
}

/** The knee and where each error class first appeared (exact when the Result has it). */
export function chartMarkers(r: Result): ChartMarker[] {
  const knee: ChartMarker[] = r.knee?.fell
    ? [{ x: r.knee.fell.atSeconds, label: "knee", class: null }]
    : [];
  const firsts = (r.firstSeen ?? []).map((f) => ({
    x: f.atSeconds ?? f.fromSeconds,
    label: `first ${ERROR_CLASS_LABELS[f.class]}${f.connection ? ` (connection ${fmt(f.connection)})` : ""}`,
    class: f.class,
  }));
  return [...knee, ...firsts];
}
