/**
 * The generator's own load, per thread: on-CPU time of the thread, event-loop utilisation and
 * event-loop delay, per interval and over the whole run. Any thread runs its own sampler (the
 * main thread, each piscina worker); what it hands back is plain data that crosses a
 * MessagePort, and the run keeps one row per thread.
 *
 * Node 20 has no per-thread CPU clock, so on Linux the thread reads its own
 * /proc/thread-self/schedstat (nanoseconds on a CPU, then nanoseconds runnable but waiting for
 * one), or /proc/thread-self/stat (utime + stime in clock ticks) where schedstat is missing.
 * The read must be synchronous: an asynchronous read runs on a libuv pool thread, and
 * /proc/thread-self would then name that thread. Without /proc, process.cpuUsage() stands in
 * and the row says its CPU figures are process-wide.
 */
import { readFileSync } from "node:fs";
import { type IntervalHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks";
import { epochMs as epochNow } from "./clock.js";

/** Whose CPU time a row's CPU figures count: this thread's, or the whole process's. */
export type CpuScope = "thread" | "process";

/** Where CPU time is read from; "auto" takes the first of these that works here. */
export type CpuSource = "auto" | "schedstat" | "stat" | "process";

/*
 * The shapes a sampler hands back. Each field is described once, in the Result's definition
 * (result/schema/generator.ts), which result/generator-result.ts checks against these.
 */

/** Event-loop delay: how late the loop ran a timer due now, milliseconds. */
export interface EventLoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** One interval of one thread. */
export interface ThreadLoadPoint {
  t: number;
  wallSeconds: number;
  cpuSeconds: number;
  cpuUtilisation: number;
  eventLoopUtilisation: number;
  waitSeconds: number | null;
  eventLoopDelay: EventLoopDelay;
}

/** One thread's load over the run's window, and per interval. */
export interface ThreadLoad {
  name: string;
  cpuScope: CpuScope;
  wallSeconds: number;
  cpuSeconds: number;
  cpuUtilisation: number;
  waitSeconds: number | null;
  eventLoopUtilisation: number;
  eventLoopDelay: EventLoopDelay;
  intervalMs: number;
  points: ThreadLoadPoint[];
}

/** A thread's CPU clock: on-CPU and waiting nanoseconds so far. */
interface CpuClock {
  scope: CpuScope;
  read(): { cpuNs: number; waitNs: number | null };
}

/** USER_HZ: the unit of /proc's utime and stime, 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

type Reading = { cpuNs: number; waitNs: number | null };

/**
 * A /proc read can fail in the middle of a run (EMFILE once the sessions hold every descriptor
 * `ulimit -n` allows): the last reading stands in, instead of the error ending the run. The
 * first read still throws, so that cpuClock falls back to the next source.
 */
function steady(read: () => Reading): () => Reading {
  let last = read();
  return () => {
    try {
      last = read();
    } catch {
      // keep the last reading
    }
    return last;
  };
}

function schedstatClock(): CpuClock {
  const read = steady(() => {
    const [cpu, wait] = readFileSync("/proc/thread-self/schedstat", "latin1").split(" ");
    return { cpuNs: Number(cpu), waitNs: Number(wait) };
  });
  if (!Number.isFinite(read().cpuNs)) throw new Error("unreadable schedstat");
  return { scope: "thread", read };
}

function statClock(): CpuClock {
  const read = steady(() => {
    const stat = readFileSync("/proc/thread-self/stat", "latin1");
    // The command name may hold spaces and parentheses: fields count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return { cpuNs: (ticks * 1e9) / CLOCK_TICKS_PER_SECOND, waitNs: null };
  });
  if (!Number.isFinite(read().cpuNs)) throw new Error("unreadable stat");
  return { scope: "thread", read };
}

function processClock(): CpuClock {
  return {
    scope: "process",
    read: () => {
      const { user, system } = process.cpuUsage();
      return { cpuNs: (user + system) * 1000, waitNs: null };
    },
  };
}

/** This thread's CPU clock from `source`; "auto" falls back to process-wide without /proc. */
export function cpuClock(source: CpuSource = "auto"): CpuClock {
  if (source === "schedstat") return schedstatClock();
  if (source === "stat") return statClock();
  if (source === "process") return processClock();
  for (const make of [schedstatClock, statClock]) {
    try {
      return make();
    } catch {
      // not Linux, or /proc not mounted: try the next
    }
  }
  return processClock();
}

/** The event-loop delay monitor's timer period: finer costs more wake-ups, coarser hides stalls. */
export const EVENT_LOOP_DELAY_RESOLUTION_MS = 10;

/**
 * The monitor records the time between its timer's runs, the period included; the delay is
 * what exceeds the period (percentiles shift by the same constant, so they stay percentiles).
 */
function delayOf(h: IntervalHistogram, resolutionMs: number): EventLoopDelay {
  if (h.count === 0) return { p50Ms: 0, p99Ms: 0, maxMs: 0 };
  const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - resolutionMs) * 1000) / 1000);
  return { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max) };
}

export interface SamplerOptions {
  cpu?: CpuSource;
  resolutionMs?: number;
}

/** The clocks at a moment: what a window's figures are differences of. */
interface Mark {
  wallMs: number;
  cpuNs: number;
  waitNs: number | null;
  elu: ReturnType<typeof performance.eventLoopUtilization>;
}

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

function waitBetween(from: Mark, to: Mark): number | null {
  return from.waitNs === null || to.waitNs === null ? null : (to.waitNs - from.waitNs) / 1e9;
}

/**
 * Samples the calling thread. `sample(epochMs)` closes the interval in progress once `epochMs`
 * lies beyond it (as the time series does), so call it from a sweep that runs more often than
 * the interval, or let `drive()` run one.
 */
export class GeneratorLoadSampler {
  readonly points: ThreadLoadPoint[] = [];
  private readonly clock: CpuClock;
  private readonly resolutionMs: number;
  private readonly intervalDelay: IntervalHistogram;
  private readonly runDelay: IntervalHistogram;
  private first: Mark | null = null;
  private last: Mark | null = null;
  private openStart = -1;
  private timer: NodeJS.Timeout | null = null;
  private final: ThreadLoad | null = null;

  constructor(
    readonly name: string,
    readonly intervalMs = 1000,
    options: SamplerOptions = {},
  ) {
    this.clock = cpuClock(options.cpu);
    this.resolutionMs = options.resolutionMs ?? EVENT_LOOP_DELAY_RESOLUTION_MS;
    // Two monitors: the interval's is reset at each interval, the run's never (Node's
    // histograms of the loop's delay cannot be added into another).
    this.intervalDelay = monitorEventLoopDelay({ resolution: this.resolutionMs });
    this.runDelay = monitorEventLoopDelay({ resolution: this.resolutionMs });
  }

  get cpuScope(): CpuScope {
    return this.clock.scope;
  }

  /**
   * Starts the window and its first interval (the one `epochMs` lies in). Start it before the
   * load: the delay monitor measures from its first tick on, one resolution later.
   */
  start(epochMs = epochNow()): this {
    this.intervalDelay.enable();
    this.runDelay.enable();
    this.first = this.mark();
    this.last = this.first;
    this.openStart = this.alignedStart(epochMs);
    return this;
  }

  /** Samples on this thread's own timer (a thread that has no sweep of its own). */
  drive(everyMs = 100): this {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
    return this;
  }

  /** Closes the interval in progress when `epochMs` lies beyond it, or with `force`. */
  sample(epochMs = epochNow(), force = false): void {
    if (this.last === null || this.final !== null) return;
    const start = this.alignedStart(epochMs);
    if (!force && start === this.openStart) return;
    const now = this.mark();
    const wallSeconds = (now.wallMs - this.last.wallMs) / 1000;
    const cpuSeconds = (now.cpuNs - this.last.cpuNs) / 1e9;
    this.points.push({
      t: this.openStart,
      wallSeconds,
      cpuSeconds,
      cpuUtilisation: ratio(cpuSeconds, wallSeconds),
      eventLoopUtilisation: performance.eventLoopUtilization(now.elu, this.last.elu).utilization,
      waitSeconds: waitBetween(this.last, now),
      eventLoopDelay: delayOf(this.intervalDelay, this.resolutionMs),
    });
    this.intervalDelay.reset();
    this.last = now;
    this.openStart = start;
  }

  /** The window so far (or, once stopped, the whole window), as plain data. */
  snapshot(): ThreadLoad {
    if (this.final !== null) return copyThreadLoad(this.final);
    if (this.first === null) throw new Error("the sampler was never started");
    const now = this.mark();
    const first = this.first;
    const wallSeconds = (now.wallMs - first.wallMs) / 1000;
    const cpuSeconds = (now.cpuNs - first.cpuNs) / 1e9;
    const waitSeconds = waitBetween(first, now);
    return {
      name: this.name,
      cpuScope: this.clock.scope,
      wallSeconds,
      cpuSeconds,
      cpuUtilisation: ratio(cpuSeconds, wallSeconds),
      waitSeconds,
      eventLoopUtilisation: performance.eventLoopUtilization(now.elu, first.elu).utilization,
      eventLoopDelay: delayOf(this.runDelay, this.resolutionMs),
      intervalMs: this.intervalMs,
      points: this.points.map(copyPoint),
    };
  }

  /** Closes the last (partial) interval and the window; stops the monitors and the timer. */
  stop(epochMs = epochNow()): ThreadLoad {
    if (this.final !== null) return copyThreadLoad(this.final);
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample(epochMs, true);
    const load = this.snapshot();
    this.intervalDelay.disable();
    this.runDelay.disable();
    this.final = load;
    return copyThreadLoad(load);
  }

  private alignedStart(epochMs: number): number {
    return Math.floor(epochMs / this.intervalMs) * this.intervalMs;
  }

  private mark(): Mark {
    const { cpuNs, waitNs } = this.clock.read();
    return {
      wallMs: performance.now(),
      cpuNs,
      waitNs,
      elu: performance.eventLoopUtilization(),
    };
  }
}

function copyPoint(p: ThreadLoadPoint): ThreadLoadPoint {
  return { ...p, eventLoopDelay: { ...p.eventLoopDelay } };
}

function copyThreadLoad(load: ThreadLoad): ThreadLoad {
  return {
    ...load,
    eventLoopDelay: { ...load.eventLoopDelay },
    points: load.points.map(copyPoint),
  };
}

/**
 * The rows of several runs' threads as one list, one row per thread (figures of different
 * threads are never added). With `labels` (one per group, e.g. "shard 1/4"), each row's name
 * is prefixed so rows of different shards stay apart.
 */
export function mergeThreadLoads(
  groups: readonly (readonly ThreadLoad[])[],
  labels?: readonly string[],
): ThreadLoad[] {
  const rows = groups.flatMap((group, i) =>
    group.map((row) => {
      const copy = copyThreadLoad(row);
      if (labels) copy.name = `${labels[i]} ${row.name}`;
      return copy;
    }),
  );
  const names = new Set(rows.map((r) => r.name));
  if (names.size !== rows.length) {
    throw new Error("two threads with the same name: label each group of threads");
  }
  return rows;
}

/** The name of worker `index` (0-based) of a run: "worker 1", "worker 2", … */
export function workerThreadName(index: number): string {
  return `worker ${index + 1}`;
}

/**
 * How busy a thread was in an interval, the figure the verdict judges: the larger of its
 * event-loop utilisation and the share of the interval it wanted a CPU (on one, or runnable
 * and waiting for one); ELU alone when the CPU figure counts the whole process. A thread that
 * other processes starve of a core, or that blocks in system calls, is busy by this measure
 * though its CPU figure is low.
 */
export function busyFraction(point: ThreadLoadPoint, scope: CpuScope): number {
  const elu = point.eventLoopUtilisation;
  if (scope === "process") return elu;
  return Math.max(point.cpuUtilisation + waitFraction(point), elu);
}

/** The share of an interval a thread was runnable but waiting for a CPU (0 when unknown). */
export function waitFraction(point: ThreadLoadPoint): number {
  return point.waitSeconds !== null ? ratio(point.waitSeconds, point.wallSeconds) : 0;
}
