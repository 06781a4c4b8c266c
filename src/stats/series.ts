/**
 * The time series: per interval (1 s by default) what was sent, accepted, refused…, how many
 * sessions were open and the latency of that interval's transactions. Intervals are aligned on
 * epoch time (an interval starts at a multiple of its length), so series from several workers
 * merge by adding the points that share a start time.
 */
import { addOutcomes, type OutcomeCounts, outcomesSince, zeroOutcomes } from "./counts.js";
import { ERROR_CLASSES } from "./errors.js";
import { addEncoded, LatencyRecorder } from "./histogram.js";

export const DEFAULT_INTERVAL_MS = 1000;

/** Outcomes: the messages whose outcome came in the interval. */
export interface SeriesPoint extends OutcomeCounts {
  /** Start of the interval, epoch ms, a multiple of the interval length. */
  t: number;
  /** Messages started (MAIL written, or given up as unsent) in the interval. */
  sent: number;
  /** Open model: arrivals dropped in the interval (no session could start them in time). */
  dropped: number;
  connectionsOpened: number;
  /** Sessions open when the interval was closed (summed over workers). */
  openSessions: number;
  /**
   * Sessions open on average over the interval: the mean of the samples taken in it (each
   * sweep, 100 ms), summed over workers. Absent in results saved before it existed.
   */
  openSessionsMean?: number;
  /** Error occurrences in the interval, indexed like ERROR_CLASSES. */
  errors: number[];
  /** Transaction latency of the messages accepted in the interval: encoded HDR, µs. */
  histogram: string;
  /** Connect latency of the connects made in the interval: encoded HDR, µs; absent without. */
  connectHistogram?: string;
}

export interface SeriesSnapshot {
  intervalMs: number;
  points: SeriesPoint[];
}

/** The cumulative counts a point is the difference of. */
export interface SeriesTotals extends OutcomeCounts {
  attempted: number;
  dropped: number;
  connectionsOpened: number;
}

export class SeriesRecorder {
  readonly points: SeriesPoint[] = [];
  /** Points already handed out by takeNew. */
  private taken = 0;
  private openStart = -1;
  private base: SeriesTotals = {
    attempted: 0,
    ...zeroOutcomes(),
    dropped: 0,
    connectionsOpened: 0,
  };
  private baseErrors: number[] = ERROR_CLASSES.map(() => 0);
  /** The open interval's samples of the open sessions: their sum and count. */
  private sessionsSum = 0;
  private sessionsSamples = 0;
  private lastSessions = 0;

  /**
   * Connects of the interval in progress; RunStats records into it. A capacity step judges its
   * connects over its measured window, without the warm-up's.
   */
  readonly connect = new LatencyRecorder();

  constructor(
    readonly intervalMs: number,
    /** Transactions of the interval in progress; RunStats records into it. */
    readonly histogram: LatencyRecorder,
  ) {}

  /**
   * Closes the interval in progress when `epochMs` lies beyond it (or always, with `force`), and
   * opens the one `epochMs` lies in. The first call only opens an interval. Events counted
   * between the interval's end and this call (at most one sweep, 100 ms) land in it.
   */
  sample(
    epochMs: number,
    openSessions: number,
    totals: Readonly<SeriesTotals>,
    errors: readonly number[],
    force: boolean,
  ): void {
    const start = Math.floor(epochMs / this.intervalMs) * this.intervalMs;
    if (this.openStart < 0) {
      this.openStart = start;
      this.rebase(totals, errors);
      return;
    }
    // The final sample (force) comes after every session closed: not a level the run held; an
    // interval shorter than a sweep then keeps the level last sampled.
    if (!force) {
      this.sessionsSum += openSessions;
      this.sessionsSamples++;
      this.lastSessions = openSessions;
    } else if (this.sessionsSamples === 0) {
      this.sessionsSum = this.lastSessions;
      this.sessionsSamples = 1;
    }
    if (!force && start === this.openStart) return;
    const b = this.base;
    const mean = this.sessionsSum / this.sessionsSamples;
    // Encoded only for an interval that had connects: with reuse, most have none.
    const connects = this.connect.read().totalCount > 0 ? this.connect.encoded() : null;
    this.sessionsSum = 0;
    this.sessionsSamples = 0;
    this.points.push({
      t: this.openStart,
      sent: totals.attempted - b.attempted,
      dropped: totals.dropped - b.dropped,
      ...outcomesSince(totals, b),
      connectionsOpened: totals.connectionsOpened - b.connectionsOpened,
      openSessions,
      openSessionsMean: Math.round(mean * 10) / 10,
      errors: errors.map((n, i) => n - this.baseErrors[i]),
      // Summarised now, from the histogram at hand: the result summarises every point, and
      // decoding them all at the run's end was a third of building it.
      histogram: this.histogram.encodedAndSummarised(),
      ...(connects === null ? {} : { connectHistogram: connects }),
    });
    this.histogram.reset();
    if (connects !== null) this.connect.reset();
    this.openStart = start;
    this.rebase(totals, errors);
  }

  private rebase(totals: Readonly<SeriesTotals>, errors: readonly number[]): void {
    this.base = { ...totals };
    this.baseErrors = [...errors];
  }

  /** The points closed since the previous call, to stream them while the run goes (--out). */
  takeNew(): SeriesPoint[] {
    const points = this.points.slice(this.taken);
    this.taken = this.points.length;
    return points;
  }

  snapshot(): SeriesSnapshot {
    return { intervalMs: this.intervalMs, points: this.points.map(copyPoint) };
  }
}

function copyPoint(p: SeriesPoint): SeriesPoint {
  return { ...p, errors: [...p.errors] };
}

/**
 * Adds points with the same start time. `openSessions` is summed across workers
 * (`across: "workers"`), or the last interval's value is kept when intervals of one series
 * are grouped into longer ones (`across: "time"`).
 */
function combine(points: SeriesPoint[], across: "workers" | "time"): SeriesPoint {
  const out = copyPoint(points[0]);
  for (const p of points.slice(1)) {
    out.sent += p.sent;
    out.dropped = (out.dropped ?? 0) + (p.dropped ?? 0);
    addOutcomes(out, p);
    out.connectionsOpened += p.connectionsOpened;
    out.openSessions = across === "workers" ? out.openSessions + p.openSessions : p.openSessions;
    if (out.openSessionsMean !== undefined && p.openSessionsMean !== undefined) {
      out.openSessionsMean += p.openSessionsMean;
    } else delete out.openSessionsMean;
    out.errors = out.errors.map((n, i) => n + (p.errors[i] ?? 0));
  }
  // Over time, the mean of the intervals' means (each interval as long as the next).
  if (across === "time" && out.openSessionsMean !== undefined) {
    out.openSessionsMean = Math.round((out.openSessionsMean / points.length) * 10) / 10;
  }
  out.histogram = addEncoded(points.map((p) => p.histogram));
  const connects = points.flatMap((p) => (p.connectHistogram ? [p.connectHistogram] : []));
  if (connects.length > 0) out.connectHistogram = addEncoded(connects);
  return out;
}

function groupBy(
  points: SeriesPoint[],
  key: (p: SeriesPoint) => number,
  across: "workers" | "time",
): SeriesPoint[] {
  const groups = new Map<number, SeriesPoint[]>();
  for (const p of points) {
    const k = key(p);
    const list = groups.get(k);
    if (list) list.push(p);
    else groups.set(k, [p]);
  }
  return [...groups.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, list]) => ({
      ...combine(
        list.sort((a, b) => a.t - b.t),
        across,
      ),
      t,
    }));
}

/** Series of several workers as one: points aligned on their start time and added. */
export function mergeSeries(parts: readonly SeriesSnapshot[]): SeriesSnapshot {
  const intervalMs = parts.find((p) => p.points.length > 0)?.intervalMs ?? DEFAULT_INTERVAL_MS;
  const all = parts.flatMap((p) => p.points);
  return { intervalMs, points: groupBy(all, (p) => p.t, "workers") };
}

/**
 * The series of several workers joined while they run, for streaming: an interval is complete
 * once every worker has reported one at or after it (each closes its intervals in order); its
 * points are then added in worker order, as mergeSeries adds them, so what streams is what the
 * final series holds.
 */
export class SeriesJoin {
  private readonly latest: number[];
  private readonly pending = new Map<number, (SeriesPoint | undefined)[]>();

  constructor(private readonly workers: number) {
    this.latest = new Array(workers).fill(Number.NEGATIVE_INFINITY);
  }

  add(worker: number, points: readonly SeriesPoint[]): void {
    for (const point of points) {
      let byWorker = this.pending.get(point.t);
      if (byWorker === undefined) {
        byWorker = new Array(this.workers).fill(undefined);
        this.pending.set(point.t, byWorker);
      }
      byWorker[worker] = point;
      this.latest[worker] = Math.max(this.latest[worker], point.t);
    }
  }

  /** The intervals complete since the previous call, in time order. */
  take(): SeriesPoint[] {
    const upTo = Math.min(...this.latest);
    const ready = [...this.pending.keys()].filter((t) => t <= upTo).sort((a, b) => a - b);
    return ready.map((t) => {
      const points = (this.pending.get(t) ?? []).filter((p) => p !== undefined);
      this.pending.delete(t);
      return { ...combine(points, "workers"), t };
    });
  }
}

/**
 * The same series in longer intervals (a re-render's --granularity): `intervalMs` must be a
 * whole multiple of the recorded interval.
 */
export function regroupSeries(series: SeriesSnapshot, intervalMs: number): SeriesSnapshot {
  if (intervalMs === series.intervalMs) return series;
  const points = groupBy(series.points, (p) => Math.floor(p.t / intervalMs) * intervalMs, "time");
  return { intervalMs, points };
}
