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

/**
 * What a chart's x axis needs of a run: its label, span, marks and each point's start. The
 * run's own series (ChartRun.points) and its delivery per second both have these.
 */
export interface ChartAxisRun {
  label: string;
  endX: number;
  markers: ChartMarker[];
  points: { x: number }[];
}

/**
 * Through the gateway (--receive, Result.delivery.perSecond): per second from the first
 * connect, messages accepted and delivered in it, and inside the gateway at its end.
 */
export interface ChartDelivery {
  accepted: number[];
  delivered: number[];
  inside: number[];
}

/** One run's series as the page embeds it. */
export interface ChartRun {
  label: string;
  intervalMs: number;
  /** Seconds from the first connect to the run's last reply (Result.elapsedSeconds). */
  endX: number;
  markers: ChartMarker[];
  /** Absent without --receive. */
  delivery?: ChartDelivery;
  /** Open model (--rate, --ramp): the scheduled rate is drawn under the achieved one. */
  scheduled: boolean;
  points: {
    /** Start of the interval, seconds since the first connect; 0 for the first interval. */
    x: number;
    /**
     * The interval's real length, seconds: to the next interval's start, the last one to the
     * run's end, the first one from the first connect. A rate is a count over this.
     */
    seconds: number;
    sent: number;
    /** Absent in results saved before it existed. */
    dropped?: number;
    accepted: number;
    failed: number;
    rejected: number;
    connectionsOpened: number;
    openSessions: number;
    /** The interval's mean of open sessions; absent in results saved before it existed. */
    openSessionsMean?: number;
    errors: Record<string, number>;
    /** null: nothing accepted in the interval (a gap in the latency chart). */
    p50Ms: number | null;
    p99Ms: number | null;
    generator?: { busy: number; eventLoopDelayP99Ms: number };
  }[];
}

/** One line of a chart: one run's figure over its intervals. */
export interface ChartLine {
  run: number;
  label: string;
  values: (number | null)[];
  colour: string;
  dash?: number[];
  /** Drawn against the chart's right axis (ChartSpec.rightUnit): a figure of another unit. */
  right?: boolean;
}

export interface ChartSpec {
  id: string;
  /** The left y axis's unit: one unit an axis. */
  unit: string;
  /** The right y axis's unit, for the lines marked `right`; absent: no right axis. */
  rightUnit?: string;
  lines: ChartLine[];
  /** What the chart says when it has no line. */
  empty: string;
}

/** Colours and dashes: one colour a run in a compare; in one run, one a line or error class. */
export interface ChartStyle {
  runColours: string[];
  lineColours: string[];
  classColours: string[];
  classDashes: number[][];
}
