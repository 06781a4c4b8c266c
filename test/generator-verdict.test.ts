/**
 * The limitedBy rule on fixed inputs, one test per branch: the verdict, and the figures its
 * reasons name.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  generatorResult,
  generatorSeries,
  HEADROOM_BUSY,
  type LimitedByInputs,
  limitedBy,
  MIN_STEADY_INTERVALS,
  SATURATED_BUSY,
  STARVED_WAIT,
} from "../src/result/generator-verdict.js";
import type { CpuScope, ThreadLoad, ThreadLoadPoint } from "../src/stats/generator-load.js";
import { LATE_FLOOR_MS, StartLateness } from "../src/stats/start-lateness.js";

interface PointOptions {
  /** Event-loop utilisation of every point; the CPU figure is `busy`. */
  elu?: number;
  delayP99Ms?: number;
  /** Seconds of each 1 s interval runnable but waiting for a CPU. */
  wait?: number;
}

/** A thread's series: the first and the last point are 100% busy (start-up, drain). */
function thread(
  name: string,
  steadyBusy: readonly number[],
  options: PointOptions & { scope?: CpuScope } = {},
): ThreadLoad {
  const point = (t: number, busy: number): ThreadLoadPoint => ({
    t,
    wallSeconds: 1,
    cpuSeconds: busy,
    cpuUtilisation: busy,
    eventLoopUtilisation: options.elu ?? busy / 2,
    waitSeconds: options.wait ?? 0,
    eventLoopDelay: { p50Ms: 0, p99Ms: options.delayP99Ms ?? 0, maxMs: options.delayP99Ms ?? 0 },
  });
  const busy = [1, ...steadyBusy, 1];
  return {
    name,
    cpuScope: options.scope ?? "thread",
    wallSeconds: busy.length,
    cpuSeconds: busy.reduce((a, b) => a + b, 0),
    cpuUtilisation: 0.5,
    waitSeconds: 0,
    eventLoopUtilisation: 0.5,
    eventLoopDelay: { p50Ms: 0, p99Ms: 0, maxMs: 0 },
    intervalMs: 1000,
    points: busy.map((b, i) => point(i * 1000, b)),
  };
}

const repeat = (value: number, n: number) => Array.from({ length: n }, () => value);
const idle = (name = "main") => thread(name, repeat(0.3, 9));
const closed = (...threads: ThreadLoad[]): LimitedByInputs => ({ threads, open: null });
const open = (
  threads: ThreadLoad[],
  figures: { latenessP99Ms?: number; dropped?: number } = {},
): LimitedByInputs => ({
  threads,
  open: {
    arrivalIntervalMs: 20,
    latenessP99Ms: figures.latenessP99Ms ?? 1,
    dropped: figures.dropped ?? 0,
  },
});

describe("limitedBy", () => {
  test("thresholds are the documented ones", () => {
    assert.equal(SATURATED_BUSY, 0.9);
    assert.equal(STARVED_WAIT, 0.25);
    assert.equal(HEADROOM_BUSY, 0.7);
    assert.equal(MIN_STEADY_INTERVALS, 3);
  });

  test("generator: a thread ≥ 90% busy in most steady intervals, named with its figures", () => {
    const main = thread("main", [0.97, 0.97, 0.98, 0.95, 0.97, 0.99, 0.97, 0.96, 0.5]);
    const v = limitedBy(closed(main));
    assert.equal(v.verdict, "generator");
    assert.deepEqual(v.reasons, ["main thread 97% busy: ≥ 90% in 8 of 9 steady intervals"]);
    assert.match(v.advice, /add --workers/);
    assert.match(v.advice, /--shard/);
  });

  test("generator: the busy thread is named among idle ones", () => {
    const v = limitedBy(closed(idle(), idle("worker 1"), thread("worker 2", repeat(0.95, 5))));
    assert.equal(v.verdict, "generator");
    assert.equal(v.reasons.length, 1);
    assert.match(v.reasons[0], /^worker 2 95% busy: ≥ 90% in 5 of 5/);
  });

  test("a thread starved of its core reads busy by its event-loop utilisation", () => {
    const starved = thread("main", repeat(0.4, 6), { elu: 0.96 });
    assert.equal(limitedBy(closed(starved)).verdict, "generator");
  });

  test("a thread other processes keep off the CPU is busy by its waiting, and the advice says so", () => {
    const starved = thread("main", repeat(0.3, 6), { elu: 0.4, wait: 0.65 });
    const v = limitedBy(closed(starved));
    assert.equal(v.verdict, "generator");
    assert.deepEqual(v.reasons, [
      "main thread 95% busy (65% waiting for a CPU): ≥ 90% in 6 of 6 steady intervals",
    ]);
    assert.match(v.advice, /other processes held its cores/);
    const lessWait = thread("main", repeat(0.3, 6), { elu: 0.4, wait: 0.2 });
    assert.equal(limitedBy(closed(lessWait)).verdict, "target");
  });

  test("a process-wide CPU figure is not judged; the thread's own ELU is", () => {
    const row = thread("main", repeat(1.6, 6), { elu: 0.2, scope: "process" });
    assert.equal(limitedBy(closed(row)).verdict, "target");
  });

  test("exactly half the steady intervals is not most", () => {
    const half = thread("main", [0.95, 0.95, 0.95, 0.95, 0.75, 0.75, 0.75, 0.75]);
    const v = limitedBy(closed(half));
    assert.equal(v.verdict, "undetermined");
    assert.deepEqual(v.reasons, [
      "main thread 95% busy: ≥ 70% in 8 of 8 steady intervals, ≥ 90% in 4",
    ]);
  });

  test("the first and the last interval are not judged", () => {
    const main = thread("main", repeat(0.2, 3)); // 100% busy in its first and last
    assert.equal(limitedBy(closed(main)).verdict, "target");
  });

  test("generator: event-loop delay p99 over the tolerance in most steady intervals", () => {
    const stalled = thread("worker 1", repeat(0.3, 6), { delayP99Ms: 45 });
    const v = limitedBy(closed(idle(), stalled));
    assert.equal(v.verdict, "generator");
    assert.deepEqual(v.reasons, [
      "worker 1 event loop late by up to 45.000 ms (p99): above 10.0 ms in 6 of 6 steady intervals",
    ]);
    // Within the tolerance (one arrival interval of 50 ms here) the delay is not a problem.
    const slowRate = {
      ...open([stalled]),
      open: { arrivalIntervalMs: 50, latenessP99Ms: 1, dropped: 0 },
    };
    // Every arrival on time, none dropped, threads with headroom: the schedule set the rate.
    assert.equal(limitedBy(slowRate).verdict, "schedule");
  });

  test("generator: start lateness over one arrival interval while a thread lacks headroom", () => {
    const warm = thread("main", repeat(0.8, 6));
    const v = limitedBy(open([warm], { latenessP99Ms: 42 }));
    assert.equal(v.verdict, "generator");
    assert.deepEqual(v.reasons, [
      "start lateness p99 42.000 ms, over the 20.0 ms tolerance, while main thread was ≥ 70% busy in 6 of 6 steady intervals",
    ]);
  });

  test("generator: arrivals dropped while a thread lacks headroom", () => {
    const warm = thread("worker 1", [0.8, 0.8, 0.8, 0.3, 0.3, 0.3]);
    const v = limitedBy(open([idle(), warm], { dropped: 120 }));
    assert.equal(v.verdict, "generator");
    assert.deepEqual(v.reasons, [
      "120 arrivals dropped while worker 1 was ≥ 70% busy in 3 of 6 steady intervals",
    ]);
  });

  test("target: every thread had headroom", () => {
    const v = limitedBy(closed(idle(), thread("worker 1", repeat(0.5, 9))));
    assert.equal(v.verdict, "target");
    assert.deepEqual(v.reasons, [
      "every generator thread had headroom; the busiest, worker 1, was 50% busy, < 70% in 9 of 9 steady intervals",
    ]);
    assert.equal(v.advice, "the target set this rate");
  });

  test("target: lateness and drops with an idle generator are the sessions waiting on the target", () => {
    const v = limitedBy(open([idle()], { latenessP99Ms: 900, dropped: 35 }));
    assert.equal(v.verdict, "target");
    assert.equal(v.reasons.length, 3);
    assert.match(v.reasons[1], /start lateness p99 900\.000 ms with the generator idle/);
    assert.match(v.reasons[2], /35 arrivals dropped with the generator idle/);
    assert.match(v.advice, /raise --sessions/);
  });

  test("schedule: open model, every arrival on time and none dropped, the generator idle", () => {
    const v = limitedBy(open([idle()], { latenessP99Ms: 1, dropped: 0 }));
    assert.equal(v.verdict, "schedule");
    assert.match(
      v.reasons[1],
      /start lateness p99 1\.000 ms, within the 20\.0 ms tolerance, and no arrival dropped/,
    );
    assert.match(v.advice, /^the schedule set this rate/);
    // One arrival dropped and the target, not the schedule, set the rate.
    assert.equal(limitedBy(open([idle()], { latenessP99Ms: 1, dropped: 1 })).verdict, "target");
  });

  test("undetermined: a thread between 70% and 90% busy, no lateness problem", () => {
    const v = limitedBy(open([idle(), thread("worker 1", repeat(0.8, 6))]));
    assert.equal(v.verdict, "undetermined");
    assert.deepEqual(v.reasons, [
      "worker 1 80% busy: ≥ 70% in 6 of 6 steady intervals, ≥ 90% in 0",
    ]);
    assert.match(v.advice, /add --workers/);
  });

  test("too few steady intervals: the thread is judged over its whole window", () => {
    // Two steady intervals at 99%, but the window's own figures decide: 50% busy is headroom.
    const idle = thread("main", [0.99, 0.99]);
    const v = limitedBy(closed(idle));
    assert.equal(v.verdict, "target");
    assert.match(
      v.reasons[0],
      /main thread, was 50% busy, < 70% over the whole 4 s run \(too short for 3 steady intervals\)/,
    );
    const hot = { ...idle, cpuUtilisation: 0.97, eventLoopUtilisation: 0.99 };
    const w = limitedBy(closed(hot));
    assert.equal(w.verdict, "generator");
    assert.deepEqual(w.reasons, [
      "main thread 99% busy: ≥ 90% over the whole 4 s run (too short for 3 steady intervals)",
    ]);
    const warm = limitedBy(closed({ ...idle, cpuUtilisation: 0.8, eventLoopUtilisation: 0.8 }));
    assert.equal(warm.verdict, "undetermined");
    assert.deepEqual(warm.reasons, [
      "main thread 80% busy over the whole 4 s run (too short for 3 steady intervals)",
    ]);
  });

  test("undetermined: no thread sampled", () => {
    const v = limitedBy(closed());
    assert.equal(v.verdict, "undetermined");
    assert.deepEqual(v.reasons, ["no generator thread was sampled"]);
  });
});

describe("the generator section", () => {
  test("open model: lateness summarised beside the verdict built from it", () => {
    const lateness = new StartLateness(20);
    for (let i = 0; i < 100; i++) lateness.record(i, i + (i < 95 ? 1 : 60));
    const section = generatorResult([thread("main", repeat(0.8, 6))], {
      arrivalIntervalMs: 20,
      lateness: lateness.snapshot(),
      dropped: 0,
    });
    assert.equal(section.limitedBy, "generator");
    assert.equal(section.lateness?.started, 100);
    assert.equal(section.lateness?.late, 5);
    assert.equal(section.lateness?.toleranceMs, 20);
    const p99 = section.lateness?.startMs.p99 ?? 0;
    assert.ok(Math.abs(p99 - 60) <= 0.06, `p99 ${p99}`); // HDR: 3 significant digits
    assert.match(section.reasons[0], /start lateness p99 60\.\d{3} ms/);
    assert.deepEqual(structuredClone(section), section);
  });

  test("closed model: no lateness, the floor as tolerance", () => {
    const section = generatorResult([idle()], null);
    assert.equal(section.lateness, null);
    assert.equal(section.limitedBy, "target");
    const stalled = thread("main", repeat(0.3, 6), { delayP99Ms: LATE_FLOOR_MS + 1 });
    assert.equal(generatorResult([stalled], null).limitedBy, "generator");
  });

  test("per interval: the busiest thread, the worst delay, the CPU of all threads", () => {
    const a = thread("main", [0.2, 0.9], { delayP99Ms: 3 });
    const b = thread("worker 1", [0.5, 0.4], { delayP99Ms: 7 });
    const series = generatorSeries([a, b]);
    assert.deepEqual(
      series.map((p) => [p.t, p.busiestThread, p.busy, p.eventLoopDelayP99Ms]),
      [
        [0, "main", 1, 7],
        [1000, "worker 1", 0.5, 7],
        [2000, "main", 0.9, 7],
        [3000, "main", 1, 7],
      ],
    );
    assert.equal(series[1].cpuSeconds, 0.7);
  });
});
