/**
 * Who set a run's rate: the generator or the target. The rule is written once, on limitedBy;
 * the Result's doc and docs/result.md quote it.
 */
import {
  busyFraction,
  type ThreadLoad,
  type ThreadLoadPoint,
  waitFraction,
} from "../stats/generator-load.js";
import { grouped } from "../stats/number-format.js";
import type { GeneratorResult, LimitedBy, Result } from "./result.js";

export type { GeneratorResult, LimitedBy } from "./result.js";

import {
  LATE_FLOOR_MS,
  lateToleranceMs,
  type StartLatenessSnapshot,
  summariseStartLateness,
} from "../stats/start-lateness.js";

/** A thread at least this busy in an interval is saturated in it. */
export const SATURATED_BUSY = 0.9;
/** A thread less busy than this in an interval has headroom in it. */
export const HEADROOM_BUSY = 0.7;
/**
 * Fewer steady intervals than this (per thread) and the thread is judged over its whole window
 * instead, start-up and drain included, as if it were one steady interval.
 */
export const MIN_STEADY_INTERVALS = 3;

export interface Verdict {
  verdict: LimitedBy;
  /** The figures the verdict rests on, naming the thread: "main thread 97% busy in 8 of 9 …". */
  reasons: string[];
  /** What to do about it, one sentence. */
  advice: string;
}

export interface LimitedByInputs {
  /** One row per generator thread (main and each worker; of every shard, after a merge). */
  threads: readonly ThreadLoad[];
  /** Open model only (null in the closed model). */
  open: {
    /** Milliseconds between two arrivals of the whole run, at its highest rate. */
    arrivalIntervalMs: number;
    /** p99 of start lateness (actual − intended start) after the start-up, ms. */
    latenessP99Ms: number;
    /** The start-up's arrivals and how many of them started late: reported, never judged. */
    startup?: { started: number; late: number };
    /** Arrivals no session started in time (Result.messages.dropped). */
    dropped: number;
  } | null;
}

/** How one thread spent its steady intervals. */
interface ThreadJudgement {
  label: string;
  /** Judged over the whole window (seconds), too short for MIN_STEADY_INTERVALS; else null. */
  windowSeconds: number | null;
  steady: number;
  saturated: number;
  /** Intervals without headroom (busy ≥ HEADROOM_BUSY). */
  warm: number;
  /** Intervals whose event-loop delay p99 exceeded the tolerance. */
  stalled: number;
  medianBusy: number;
  /** Median share of a steady interval spent waiting for a CPU (other processes had it). */
  medianWait: number;
  /** Highest interval p99 of the event-loop delay among the steady intervals. */
  worstDelayMs: number;
}

/** More than half: "most" in the rule. */
const most = (count: number, of: number) => 2 * count > of;
const pct = (fraction: number) => `${Math.round(fraction * 100)}%`;
/** A measured time as the reports' tables print it: 59.679 ms. */
const ms = (value: number) => `${grouped(value, 3, 3)} ms`;
/** The tolerance as the open model's lateness line prints it: 10.0 ms. */
const tolerance = (value: number) => `${grouped(value, 1, 1)} ms`;

/** "in 8 of 9 steady intervals", or for a short run "over its whole 0.8 s (too short for …)". */
function within(t: ThreadJudgement, count: number): string {
  if (t.windowSeconds === null) {
    return `in ${grouped(count, 0, 0)} of ${grouped(t.steady, 0, 0)} steady intervals`;
  }
  const secs = Math.round(t.windowSeconds * 10) / 10;
  return `over the whole ${secs} s run (too short for ${MIN_STEADY_INTERVALS} steady intervals)`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)] : 0;
}

/** "main thread", "worker 2", "shard 1/4 main thread". */
function threadLabel(name: string): string {
  return name === "main" || name.endsWith(" main") ? `${name} thread` : name;
}

/** The whole window of a thread as one point: for runs too short for steady intervals. */
function wholeWindow(thread: ThreadLoad): ThreadLoadPoint {
  return {
    t: thread.points[0]?.t ?? 0,
    wallSeconds: thread.wallSeconds,
    cpuSeconds: thread.cpuSeconds,
    cpuUtilisation: thread.cpuUtilisation,
    eventLoopUtilisation: thread.eventLoopUtilisation,
    waitSeconds: thread.waitSeconds,
    eventLoopDelay: thread.eventLoopDelay,
  };
}

function judge(thread: ThreadLoad, toleranceMs: number): ThreadJudgement {
  // The first and the last interval are partial and hold the start-up and the drain.
  const intervals = thread.points.slice(1, -1);
  const short = intervals.length < MIN_STEADY_INTERVALS;
  const steady = short ? [wholeWindow(thread)] : intervals;
  const busy = steady.map((p) => busyFraction(p, thread.cpuScope));
  return {
    label: threadLabel(thread.name),
    windowSeconds: short ? thread.wallSeconds : null,
    steady: steady.length,
    saturated: busy.filter((b) => b >= SATURATED_BUSY).length,
    warm: busy.filter((b) => b >= HEADROOM_BUSY).length,
    stalled: steady.filter((p) => p.eventLoopDelay.p99Ms > toleranceMs).length,
    medianBusy: median(busy),
    medianWait: median(steady.map(waitFraction)),
    worstDelayMs: Math.max(0, ...steady.map((p) => p.eventLoopDelay.p99Ms)),
  };
}

/** A thread waiting this share of its intervals for a CPU was starved by other processes. */
export const STARVED_WAIT = 0.25;

export const ADVICE = {
  generator:
    "this rate measures mailvolley, not the target: add --workers, or split the run into shards (--shard) on more machines",
  starved:
    "this rate measures mailvolley's machine, not the target: other processes held its cores; give mailvolley a machine of its own, or split the run into shards (--shard) on more machines",
  target: "the target set this rate",
  targetSessions:
    "the target set this rate: every session was waiting on it; raise --sessions if the target should take more concurrency",
  short: "nothing to judge: the run sampled no generator thread",
  schedule:
    "the schedule set this rate: the arrivals started on time and none was dropped; raise --rate or the ramp to load the target harder",
  scheduleLate:
    "the schedule set this rate, met without a drop, though starts ran late on mailvolley's side with sessions free; give it a quieter machine for exact start times",
  nobody:
    "no connection reached the target, so nothing was measured: check its address and that it listens",
  noneAccepted: "no message got through, so no rate was measured: read the error classes below",
  targetRefused:
    "the target turned most of the load away, so this rate is its policy: read where refusals began (first refusal) and lower --rate or --sessions to find what it takes",
  targetStopped:
    "the target stopped taking sessions before the run was done: read the error classes below, and check that it is up",
  between:
    "add --workers (or shards) and run again: the generator was close to its limit, so the rate may be partly its own",
};

/**
 * The verdict `limitedBy`. The rule, once:
 *
 * - Steady intervals are a thread's time-series intervals without its first and its last.
 *   A thread's busy fraction in an interval is the larger of its event-loop utilisation and
 *   the share of the interval it wanted a CPU: on one, or runnable and waiting for one (ELU
 *   alone when the CPU figure is process-wide).
 *   The tolerance is one arrival interval of the whole run (open model), at least 10 ms
 *   (LATE_FLOOR_MS: the event loop's timers are not finer); 10 ms in the closed model.
 *   A thread with fewer than 3 steady intervals (MIN_STEADY_INTERVALS: a run of a few
 *   seconds) is judged over its whole window instead, as one steady interval.
 * - **undetermined** when no thread was sampled.
 * - **generator** when any of:
 *   1. a thread was busy ≥ 90% (SATURATED_BUSY) in more than half of its steady intervals;
 *   2. a thread's event-loop delay p99 exceeded the tolerance in more than half of its steady
 *      intervals (its timers and reads ran late, so its starts and latencies did too);
 *   3. open model: start lateness p99 exceeded the tolerance, or arrivals were dropped, while a
 *      thread was busy ≥ 70% (HEADROOM_BUSY) in at least half of its steady intervals.
 * - **target** when every thread was busy < 70% in more than half of its steady intervals (late
 *   or dropped arrivals then mean every session was waiting on the target).
 * - **schedule** instead of target in the open model when no arrival was dropped and start
 *   lateness p99 after the start-up stayed within the tolerance: the user's --rate or ramp was
 *   met on time. The start-up (StartupWindow: the first interval, and until an arrival first
 *   started on time, while the first sessions connect; 3 intervals at most) is reported, not
 *   judged: lateness there is the sessions' handshakes, not a target every session waits on.
 *   When the start-up held half the run's arrivals or more, every arrival is judged.
 * - **schedule** instead of target (outcomeVerdict) when arrivals ran late after the start-up, none
 *   was dropped, and the sessions were free: busy with the target on average (Little's law over
 *   the phases' latencies, outcome-verdict.ts sessionsInUse) under 90% of -s (SESSIONS_BUSY).
 *   The starts then ran late on mailvolley's side, not because every session waited.
 * - **target** instead of schedule (outcomeVerdict) when any message was rejected or failed, or
 *   any connection refused: the target turned load away.
 * - **nobody** over every other answer (outcomeVerdict) when no connection reached a banner, or
 *   when no message was accepted or rejected: every one failed before the target answered it.
 * - **target** over the threads' verdict (outcomeVerdict) when the target answered, then every
 *   session gave up before the load was done (Result.accounting.endedEarly).
 * - **target** over the threads' verdict (outcomeVerdict) when the target turned away half the
 *   attempted messages or more (connections refused plus messages rejected).
 * - **undetermined** otherwise: a thread between 70% and 90% busy, no lateness problem.
 */
export function limitedBy(inputs: LimitedByInputs): Verdict {
  const { open } = inputs;
  const toleranceMs = open ? lateToleranceMs(open.arrivalIntervalMs) : LATE_FLOOR_MS;
  const threads = inputs.threads.map((t) => judge(t, toleranceMs));
  if (threads.length === 0) {
    return {
      verdict: "undetermined",
      reasons: ["no generator thread was sampled"],
      advice: ADVICE.short,
    };
  }
  const generator = generatorReasons(threads, open, toleranceMs);
  if (generator.length > 0) {
    const starved = threads.some((t) => t.medianWait >= STARVED_WAIT);
    return {
      verdict: "generator",
      reasons: generator,
      advice: starved ? ADVICE.starved : ADVICE.generator,
    };
  }
  const warm = threads.filter((t) => !most(t.steady - t.warm, t.steady));
  if (warm.length === 0) return targetVerdict(threads, open, toleranceMs);
  return {
    verdict: "undetermined",
    reasons: warm.map((t) =>
      t.windowSeconds === null
        ? `${t.label} ${pct(t.medianBusy)} busy: ≥ ${pct(HEADROOM_BUSY)} in ${t.warm} of ${t.steady} steady intervals, ≥ ${pct(SATURATED_BUSY)} in ${t.saturated}`
        : `${t.label} ${pct(t.medianBusy)} busy ${within(t, 1)}`,
    ),
    advice: ADVICE.between,
  };
}

function generatorReasons(
  threads: readonly ThreadJudgement[],
  open: LimitedByInputs["open"],
  toleranceMs: number,
): string[] {
  const reasons: string[] = [];
  for (const t of threads) {
    if (most(t.saturated, t.steady)) {
      const waiting =
        t.medianWait >= STARVED_WAIT ? ` (${pct(t.medianWait)} waiting for a CPU)` : "";
      reasons.push(
        `${t.label} ${pct(t.medianBusy)} busy${waiting}: ≥ ${pct(SATURATED_BUSY)} ${within(t, t.saturated)}`,
      );
    }
    if (most(t.stalled, t.steady)) {
      reasons.push(
        `${t.label} event loop late by up to ${ms(t.worstDelayMs)} (p99): above ${tolerance(toleranceMs)} ${within(t, t.stalled)}`,
      );
    }
  }
  if (open === null) return reasons;
  const warm = threads.find((t) => 2 * t.warm >= t.steady);
  if (warm === undefined) return reasons;
  const busy = `while ${warm.label} was ≥ ${pct(HEADROOM_BUSY)} busy ${within(warm, warm.warm)}`;
  if (open.latenessP99Ms > toleranceMs) {
    reasons.push(
      `start lateness p99 ${ms(open.latenessP99Ms)}, over the ${tolerance(toleranceMs)} tolerance, ${busy}`,
    );
  }
  if (open.dropped > 0) reasons.push(`${grouped(open.dropped, 0, 0)} arrivals dropped ${busy}`);
  return reasons;
}

function targetVerdict(
  threads: readonly ThreadJudgement[],
  open: LimitedByInputs["open"],
  toleranceMs: number,
): Verdict {
  const busiest = threads.reduce((a, b) => (b.medianBusy > a.medianBusy ? b : a));
  const reasons = [
    `every generator thread had headroom; the busiest, ${busiest.label}, was ${pct(busiest.medianBusy)} busy, < ${pct(HEADROOM_BUSY)} ${within(busiest, busiest.steady - busiest.warm)}`,
  ];
  let advice = ADVICE.target;
  if (open && open.latenessP99Ms > toleranceMs) {
    reasons.push(
      `start lateness p99 ${ms(open.latenessP99Ms)} with the generator idle: arrivals waited for a free session`,
    );
    advice = ADVICE.targetSessions;
  }
  if (open && open.dropped > 0) {
    reasons.push(
      `${grouped(open.dropped, 0, 0)} arrivals dropped with the generator idle: no session was free`,
    );
    advice = ADVICE.targetSessions;
  }
  if (open && open.dropped === 0 && open.latenessP99Ms <= toleranceMs) {
    const after = open.startup?.started ? " after the start-up" : "";
    reasons.push(
      `start lateness p99 ${ms(open.latenessP99Ms)}${after}, within the ${tolerance(toleranceMs)} tolerance, and no arrival dropped`,
      ...startupReason(open),
    );
    return { verdict: "schedule", reasons, advice: ADVICE.schedule };
  }
  return { verdict: "target", reasons: [...reasons, ...startupReason(open)], advice };
}

/** The start-up's late arrivals, said and set aside: "start-up: 29 of 30 arrivals …". */
function startupReason(open: LimitedByInputs["open"]): string[] {
  const s = open?.startup;
  if (!s || s.late === 0) return [];
  return [
    `start-up: ${grouped(s.late, 0, 0)} of its ${grouped(s.started, 0, 0)} arrivals started late while the first sessions connected (the first interval, and until an arrival started on time); not held against the target`,
  ];
}

/** Builds the section from the run's thread rows and, in the open model, its lateness. */
export function generatorResult(
  threads: readonly ThreadLoad[],
  open: { arrivalIntervalMs: number; lateness: StartLatenessSnapshot; dropped: number } | null,
): GeneratorResult {
  const lateness = open && {
    arrivalIntervalMs: open.arrivalIntervalMs,
    toleranceMs: lateToleranceMs(open.arrivalIntervalMs),
    ...summariseStartLateness(open.lateness),
    histogram: open.lateness.histogram,
  };
  // A start-up that held most of the arrivals is the run itself: then every arrival is judged.
  const excused = lateness !== null && 2 * lateness.startup.started < lateness.started;
  const { verdict, reasons, advice } = limitedBy({
    threads,
    open: open && {
      arrivalIntervalMs: open.arrivalIntervalMs,
      latenessP99Ms: (excused ? lateness?.steadyStartMs : lateness?.startMs)?.p99 ?? 0,
      startup: excused ? lateness?.startup : undefined,
      dropped: open.dropped,
    },
  });
  return { limitedBy: verdict, reasons, advice, threads: [...threads], lateness };
}

/** The generator's figures of one interval of the time series, over all its threads. */
export interface GeneratorSeriesPoint {
  /** Start of the interval, epoch ms (the series point's `t`). */
  t: number;
  /** The busiest thread's busy fraction (see busyFraction), and its name. */
  busy: number;
  busiestThread: string;
  /** The highest event-loop delay p99 of any thread in the interval, ms. */
  eventLoopDelayP99Ms: number;
  /** CPU seconds of every thread in the interval (process-wide rows counted once). */
  cpuSeconds: number;
}

/** Per interval, the threads' points combined, aligned on their start time. */
export function generatorSeries(threads: readonly ThreadLoad[]): GeneratorSeriesPoint[] {
  const byT = new Map<number, GeneratorSeriesPoint>();
  for (const thread of threads) {
    for (const p of thread.points) {
      const busy = busyFraction(p, thread.cpuScope);
      let out = byT.get(p.t);
      if (!out) {
        out = { t: p.t, busy, busiestThread: thread.name, eventLoopDelayP99Ms: 0, cpuSeconds: 0 };
        byT.set(p.t, out);
      } else if (busy > out.busy) {
        out.busy = busy;
        out.busiestThread = thread.name;
      }
      out.eventLoopDelayP99Ms = Math.max(out.eventLoopDelayP99Ms, p.eventLoopDelay.p99Ms);
      if (thread.cpuScope === "thread") out.cpuSeconds += p.cpuSeconds;
      else out.cpuSeconds = Math.max(out.cpuSeconds, p.cpuSeconds);
    }
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

/**
 * The Result's time series with the generator's per-interval figures in it (each point's
 * `generator`), a new series, so it shows the generator's load beside the rate it produced.
 */
export function annotatedSeries(result: Result): Result["series"] {
  const threads = result.generator?.threads;
  if (!threads || !result.series) return result.series;
  const byT = new Map(generatorSeries(threads).map((p) => [p.t, p]));
  const points = result.series.points.map((point) => {
    const g = byT.get(point.t);
    if (!g) return point;
    const generator = {
      busy: Math.round(g.busy * 1000) / 1000,
      busiestThread: g.busiestThread,
      eventLoopDelayP99Ms: g.eventLoopDelayP99Ms,
      cpuSeconds: Math.round(g.cpuSeconds * 1e6) / 1e6,
    };
    return { ...point, generator };
  });
  return { ...result.series, points };
}
