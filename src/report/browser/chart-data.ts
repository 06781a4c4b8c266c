/**
 * What the HTML report embeds as JSON for its charts: written in Node by html-chart-runs.ts,
 * read in the browser by charts.ts. Types only, so both sides can import it.
 */

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
