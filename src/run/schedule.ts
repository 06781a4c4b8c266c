/**
 * Piecewise-linear stages over time, as `--ramp 0s:100,30s:1000,60s:1000` gives them: the value
 * (an arrival rate, or a number of sessions) moves linearly from one point to the next and holds
 * after the last. For rates, `arrivalTime(k)` inverts the cumulative arrivals so that every
 * message has an exact intended send time (the basis of coordinated-omission correction).
 */
import type { Arrivals } from "../config/load-model.js";
import type { StagePoint } from "../config/stages.js";
import { seededRandom } from "../sink/faults.js";

export type { Arrivals } from "../config/load-model.js";
export type { StagePoint } from "../config/stages.js";

/** The value at `tMs` (before the first point: the first value; after the last: the last). */
export function valueAt(points: readonly StagePoint[], tMs: number): number {
  if (tMs <= points[0].atMs) return points[0].value;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    if (tMs <= b.atMs) return a.value + ((b.value - a.value) * (tMs - a.atMs)) / (b.atMs - a.atMs);
  }
  return points[points.length - 1].value;
}

/**
 * The run's arrival interval at `elapsedMs`: ms between two arrivals of the whole run (not of
 * one share), which is what an arrival's lateness is judged against.
 */
export function arrivalIntervalAt(rate: readonly StagePoint[], elapsedMs: number): number {
  const perSecond = valueAt(rate, elapsedMs);
  return perSecond > 0 ? 1000 / perSecond : Number.POSITIVE_INFINITY;
}

/**
 * Arrival times of a rate that follows `points` (values in messages per second). Arrival k
 * (0-based) is due when the cumulative arrivals reach k + 1 − 1 = k, i.e. the first arrival is
 * at time 0 when the rate there is positive. Queries must come with non-decreasing k.
 */
export class ArrivalSchedule {
  /** Index of the segment the last query fell in, and cumulative arrivals at its start. */
  private segment = 0;
  private cumulativeAtSegment = 0;
  private readonly segments: { t0: number; t1: number; r0: number; r1: number }[] = [];

  constructor(points: readonly StagePoint[]) {
    // Before the first point the rate is the first value; after the last it holds.
    let t = 0;
    let r = points[0].value;
    for (const p of points) {
      if (p.atMs > t) this.segments.push({ t0: t, t1: p.atMs, r0: r, r1: p.value });
      t = p.atMs;
      r = p.value;
    }
    this.segments.push({ t0: t, t1: Number.POSITIVE_INFINITY, r0: r, r1: r });
  }

  /** Milliseconds from the start at which arrival `k` is due, or Infinity if never. */
  arrivalTime(k: number): number {
    while (this.segment < this.segments.length) {
      const s = this.segments[this.segment];
      const inSegment = arrivalsIn(s);
      const need = k - this.cumulativeAtSegment;
      if (need < inSegment) return s.t0 + timeToReach(s, need);
      this.cumulativeAtSegment += inSegment;
      this.segment++;
    }
    return Number.POSITIVE_INFINITY;
  }
}

/** Where arrival `k` of a run falls: evenly spaced, or at Poisson times around the rate. */
export interface ArrivalTimes {
  /** Milliseconds from the start at which arrival `k` is due, or Infinity if never. Non-decreasing k. */
  arrivalTime(k: number): number;
}

/**
 * Poisson arrivals around the rate stages (a non-homogeneous Poisson process, by time
 * rescaling): the gaps between arrivals, counted in expected arrivals, are exponential with
 * mean 1, so arrival k is due where the constant schedule's cumulative arrivals reach
 * E₀ + … + E₍k−1₎ rather than k. Arrival 0 is due at 0, as in the constant schedule, and the
 * mean count over any stretch is the rate's integral. The gaps depend on the seed and k only,
 * so every thread and shard that stripes arrivals out of the run sees the same times.
 */
export class PoissonSchedule implements ArrivalTimes {
  private readonly constant: ArrivalSchedule;
  private readonly random: () => number;
  /** Arrivals whose gap has been drawn, and the sum of those gaps (in expected arrivals). */
  private drawn = 0;
  private cumulative = 0;

  constructor(points: readonly StagePoint[], seed: number) {
    this.constant = new ArrivalSchedule(points);
    this.random = seededRandom(seed);
  }

  arrivalTime(k: number): number {
    while (this.drawn < k) {
      // 1 − U lies in (0, 1]: the logarithm stays finite.
      this.cumulative += -Math.log(1 - this.random());
      this.drawn++;
    }
    return this.constant.arrivalTime(this.cumulative);
  }
}

/** The run's arrival times as `arrivals` spaces them (constant when absent). */
export function arrivalSchedule(points: readonly StagePoint[], arrivals?: Arrivals): ArrivalTimes {
  return arrivals?.kind === "poisson"
    ? new PoissonSchedule(points, arrivals.seed)
    : new ArrivalSchedule(points);
}

/**
 * How many of the schedule's arrivals are due before `tMs` (Infinity when the rate never falls
 * to 0 for good and `tMs` is Infinity): what a run bounded by a duration was asked for. The
 * integral of the rate gives the count to within rounding; arrivalTime, which the scheduler
 * itself uses, settles the arrivals right at the boundary.
 */
export function arrivalsBefore(
  points: readonly StagePoint[],
  tMs: number,
  arrivals?: Arrivals,
): number {
  if (arrivals?.kind === "poisson") return poissonBefore(points, tMs, arrivals.seed);
  const timeOf = (k: number) => new ArrivalSchedule(points).arrivalTime(k);
  let total = 0;
  let t = 0;
  let r = points[0].value;
  const add = (s: { t0: number; t1: number; r0: number; r1: number }) => {
    if (tMs <= s.t0) return;
    const end = Math.min(tMs, s.t1);
    if (end === Number.POSITIVE_INFINITY) {
      total += s.r0 > 0 ? Number.POSITIVE_INFINITY : 0;
      return;
    }
    const dt = end - s.t0;
    const slope = s.t1 === Number.POSITIVE_INFINITY ? 0 : (s.r1 - s.r0) / (s.t1 - s.t0);
    total += (s.r0 * dt + (slope * dt * dt) / 2) / 1000;
  };
  for (const p of points) {
    if (p.atMs > t) add({ t0: t, t1: p.atMs, r0: r, r1: p.value });
    t = p.atMs;
    r = p.value;
  }
  add({ t0: t, t1: Number.POSITIVE_INFINITY, r0: r, r1: r });
  if (!Number.isFinite(total)) return Number.POSITIVE_INFINITY;
  let k = Math.max(0, Math.ceil(total - 1e-6));
  while (k > 0 && timeOf(k - 1) >= tMs) k--;
  while (timeOf(k) < tMs) k++;
  return k;
}

/** Poisson arrivals due before `tMs`: counted one by one, as the schedule draws them. */
function poissonBefore(points: readonly StagePoint[], tMs: number, seed: number): number {
  // A rate that never falls to 0 for good has no end; one that does ends after a finite count.
  if (!Number.isFinite(arrivalsBefore(points, tMs))) return Number.POSITIVE_INFINITY;
  const schedule = new PoissonSchedule(points, seed);
  let k = 0;
  while (schedule.arrivalTime(k) < tMs) k++;
  return k;
}

/** Arrivals within a segment (rates per second, times in ms). */
function arrivalsIn(s: { t0: number; t1: number; r0: number; r1: number }): number {
  if (s.t1 === Number.POSITIVE_INFINITY) return s.r0 > 0 ? Number.POSITIVE_INFINITY : 0;
  return (((s.r0 + s.r1) / 2) * (s.t1 - s.t0)) / 1000;
}

/** Time into the segment at which `n` arrivals have accumulated: solve r0·t + (r1−r0)/(2T)·t² = n. */
function timeToReach(s: { t0: number; t1: number; r0: number; r1: number }, n: number): number {
  const r0 = s.r0 / 1000;
  if (s.t1 === Number.POSITIVE_INFINITY || s.r1 === s.r0) return n / r0;
  const a = (s.r1 / 1000 - r0) / (2 * (s.t1 - s.t0));
  const disc = r0 * r0 + 4 * a * n;
  return (-r0 + Math.sqrt(Math.max(0, disc))) / (2 * a);
}

/** What the closed model's session ramps read of the load model. */
interface SessionRamp {
  readonly rampSessions: readonly StagePoint[] | null;
  readonly rampUpMs: number;
  readonly rate: readonly StagePoint[] | null;
}

/**
 * Closed-model session ramp: how many of a share's `slots` may be active `elapsedMs` into the
 * run (`runSessions`: the run's -s, of which the share has `slots`).
 */
export function activeSessions(
  load: SessionRamp,
  slots: number,
  runSessions: number,
  elapsedMs: number,
): number {
  if (load.rampSessions) {
    return Math.round(valueAt(load.rampSessions, elapsedMs) * (slots / runSessions));
  }
  if (load.rampUpMs > 0)
    return Math.min(slots, Math.floor((slots * elapsedMs) / load.rampUpMs) + 1);
  return slots;
}

/**
 * With --ramp-up and -m each session owns its share of the messages, as JMeter's threads own
 * their loops: the first sessions cannot finish the run before the last have started. The
 * quota of each slot (they add up to `messages`), or null when slots share one pool.
 */
export function sessionQuotas(load: SessionRamp, messages: number, slots: number): number[] | null {
  if (load.rampUpMs <= 0 || load.rate !== null || !Number.isFinite(messages)) return null;
  const each = Math.floor(messages / slots);
  const extra = messages % slots;
  return Array.from({ length: slots }, (_, i) => each + (i < extra ? 1 : 0));
}

/** A new session's cap on its messages (-M, or drawn uniformly from a range such as 50-100). */
export function sessionCap(range: { readonly min: number; readonly max: number }): number {
  const { min, max } = range;
  return min === max ? min : min + Math.floor(Math.random() * (max - min + 1));
}
