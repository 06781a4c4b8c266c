/**
 * The generator's own load: a thread's sampler reads its own CPU (not the process's), its
 * event-loop utilisation and delay, per interval and over its window; start lateness records,
 * crosses threads encoded and merges exactly. Relations only, never absolute timings.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import hdr from "hdr-histogram-js";
import {
  GeneratorLoadSampler,
  mergeThreadLoads,
  type ThreadLoad,
  workerThreadName,
} from "../src/stats/generator-load.js";
import { newHistogram } from "../src/stats/histogram.js";
import {
  LATE_FLOOR_MS,
  lateToleranceMs,
  mergeStartLateness,
  StartLateness,
  summariseStartLateness,
} from "../src/stats/start-lateness.js";

/** Burns the CPU for a fixed number of iterations (no clock involved). */
function burn(iterations: number): number {
  let x = 1;
  for (let i = 0; i < iterations; i++) x = (x * 1_103_515_245 + 12_345) % 2_147_483_647;
  return x;
}

const BURN_ITERATIONS = 10_000_000;

/** The delay monitor measures from its first tick on, one resolution after start. */
const FIRST_TICK_MS = 30;

describe("GeneratorLoadSampler", () => {
  test("a thread burning the CPU reads busier than one awaiting a timer", async () => {
    const busy = new GeneratorLoadSampler("main").start();
    await sleep(FIRST_TICK_MS);
    burn(BURN_ITERATIONS);
    await sleep(25); // lets the delay monitor record the stalled tick
    const busyLoad = busy.stop();
    const idle = new GeneratorLoadSampler("main").start();
    await sleep(FIRST_TICK_MS + 100);
    const idleLoad = idle.stop();
    assert.ok(busyLoad.cpuSeconds > idleLoad.cpuSeconds, "cpu seconds");
    assert.ok(busyLoad.cpuUtilisation > idleLoad.cpuUtilisation, "cpu utilisation");
    assert.ok(busyLoad.eventLoopUtilisation > idleLoad.eventLoopUtilisation, "elu");
    assert.ok(busyLoad.eventLoopDelay.maxMs > idleLoad.eventLoopDelay.maxMs, "delay max");
    assert.ok(idleLoad.cpuUtilisation < 0.5 && idleLoad.eventLoopUtilisation < 0.5);
  });

  test("intervals close on epoch-aligned boundaries, like the time series", () => {
    const sampler = new GeneratorLoadSampler("main", 1000).start(10_000);
    sampler.sample(10_500);
    assert.equal(sampler.points.length, 0);
    sampler.sample(11_000);
    sampler.sample(13_200); // nothing ran between: the next interval opened is 13 000
    const load = sampler.stop(13_500);
    assert.deepEqual(
      load.points.map((p) => p.t),
      [10_000, 11_000, 13_000],
    );
    for (const p of load.points) {
      assert.ok(p.cpuSeconds >= 0 && Number.isFinite(p.cpuUtilisation));
      assert.ok(p.wallSeconds >= 0 && (p.waitSeconds ?? -1) >= 0);
      assert.ok(p.eventLoopUtilisation >= 0 && p.eventLoopUtilisation <= 1);
    }
    assert.equal(load.intervalMs, 1000);
    assert.equal(load.cpuScope, "thread"); // Linux: /proc/thread-self
    assert.equal(typeof load.waitSeconds, "number");
    // Plain data: it crosses a MessagePort unchanged, and a stopped sampler stays stopped.
    assert.deepEqual(structuredClone(load), load);
    assert.deepEqual(JSON.parse(JSON.stringify(load)), load);
    sampler.sample(20_000);
    assert.deepEqual(sampler.stop(), load);
  });

  test("the per-interval points of a burnt interval read busier than an idle one", async () => {
    const sampler = new GeneratorLoadSampler("main", 1000).start(1_000);
    await sleep(FIRST_TICK_MS);
    burn(BURN_ITERATIONS);
    await sleep(25);
    sampler.sample(2_000);
    await sleep(100);
    const [busy, idle] = sampler.stop(2_500).points;
    assert.ok(busy.cpuSeconds > idle.cpuSeconds);
    assert.ok(busy.eventLoopUtilisation > idle.eventLoopUtilisation);
    assert.ok(busy.eventLoopDelay.maxMs > idle.eventLoopDelay.maxMs);
  });

  test("every CPU source reads; only process.cpuUsage is marked process-wide", () => {
    for (const cpu of ["schedstat", "stat", "process"] as const) {
      const load = new GeneratorLoadSampler("main", 1000, { cpu }).start().stop();
      assert.equal(load.cpuScope, cpu === "process" ? "process" : "thread");
      assert.ok(load.cpuSeconds >= 0 && Number.isFinite(load.cpuSeconds), cpu);
      assert.equal(load.waitSeconds === null, cpu !== "schedstat");
      assert.equal(load.points[0].waitSeconds === null, cpu !== "schedstat");
    }
  });

  test("a worker thread reads its own CPU, not the main thread's burn", async () => {
    const url = new URL("../src/stats/generator-load.js", import.meta.url).href;
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       import(workerData.url).then(({ GeneratorLoadSampler }) => {
         const own = new GeneratorLoadSampler("worker 1").start();
         const whole = new GeneratorLoadSampler("worker 1", 1000, { cpu: "process" }).start();
         parentPort.once("message", () =>
           setTimeout(() => parentPort.postMessage({ own: own.stop(), whole: whole.stop() }), 20));
         parentPort.postMessage("started");
       });`,
      { eval: true, workerData: { url } },
    );
    try {
      const next = () => new Promise<unknown>((resolve) => worker.once("message", resolve));
      assert.equal(await next(), "started");
      const main = new GeneratorLoadSampler("main").start();
      burn(BURN_ITERATIONS * 2);
      const mainLoad = main.stop();
      const reply = next();
      worker.postMessage("stop");
      const { own, whole } = (await reply) as { own: ThreadLoad; whole: ThreadLoad };
      assert.equal(own.cpuScope, "thread");
      assert.ok(mainLoad.cpuSeconds > 0);
      assert.ok(
        own.cpuSeconds < mainLoad.cpuSeconds / 4,
        `worker ${own.cpuSeconds}s vs main ${mainLoad.cpuSeconds}s`,
      );
      // The contrast that makes the assertion above mean something: a process-wide clock in the
      // same worker counts the main thread's burn.
      assert.equal(whole.cpuScope, "process");
      assert.ok(whole.cpuSeconds >= mainLoad.cpuSeconds * 0.9);
    } finally {
      await worker.terminate();
    }
  });

  test("merge keeps one row per thread, labelled per group", () => {
    const row = (name: string) => new GeneratorLoadSampler(name).start(0).stop(500);
    const one = [row("main"), row(workerThreadName(0)), row(workerThreadName(1))];
    assert.deepEqual(
      mergeThreadLoads([one]).map((r) => r.name),
      ["main", "worker 1", "worker 2"],
    );
    const merged = mergeThreadLoads([one, [row("main")]], ["shard 1/2", "shard 2/2"]);
    assert.deepEqual(
      merged.map((r) => r.name),
      ["shard 1/2 main", "shard 1/2 worker 1", "shard 1/2 worker 2", "shard 2/2 main"],
    );
    assert.equal(one[0].name, "main"); // the inputs are not renamed
    assert.throws(() => mergeThreadLoads([one, [row("main")]]), /same name/);
  });
});

describe("StartLateness", () => {
  test("records actual − intended in µs and counts arrivals late by more than an interval", () => {
    const lateness = new StartLateness(20);
    lateness.record(1000, 999.5); // early by rounding: on time
    lateness.record(1000, 1005);
    lateness.record(1000, 1020); // exactly one interval: not late
    lateness.record(1000, 1020.5);
    assert.equal(lateness.started, 4);
    assert.equal(lateness.late, 1);
    const snapshot = lateness.snapshot();
    assert.equal(snapshot.started, 4);
    assert.equal(snapshot.late, 1);
    const h = hdr.decodeFromCompressedBase64(snapshot.histogram);
    assert.equal(h.totalCount, 4);
    assert.ok(Math.abs(h.maxValue - 20_500) <= 20_500 / 1000, `max ${h.maxValue}`); // 3 digits
    assert.equal(h.getValueAtPercentile(25), 0);
    assert.equal(h.minNonZeroValue, 5000);
  });

  test("below the timer floor, one arrival interval is not counted as late", () => {
    assert.equal(lateToleranceMs(1), LATE_FLOOR_MS);
    assert.equal(lateToleranceMs(50), 50);
    const lateness = new StartLateness(1);
    lateness.record(0, LATE_FLOOR_MS - 1);
    lateness.record(0, LATE_FLOOR_MS + 1);
    assert.equal(lateness.snapshot().late, 1);
  });

  test("a ramping rate gives each arrival the interval at its intended time", () => {
    const lateness = new StartLateness((intendedMs) => (intendedMs < 1000 ? 100 : 20));
    lateness.record(500, 550); // 50 ms late, interval 100: on time
    lateness.record(1500, 1550); // 50 ms late, interval 20: late
    assert.equal(lateness.snapshot().late, 1);
  });

  test("snapshots of several threads merge into exactly what one recorder records", () => {
    let seed = 11;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const whole = new StartLateness(10);
    const parts = [new StartLateness(10), new StartLateness(10), new StartLateness(10)];
    const direct = newHistogram();
    for (let i = 0; i < 30_000; i++) {
      const intended = i * 0.5;
      const actual = intended + next() * [2, 40, 200_000][i % 3];
      whole.record(intended, actual);
      parts[i % 3].record(intended, actual);
      direct.recordValue(Math.round((actual - intended) * 1000));
    }
    // Each part crosses a thread boundary as plain data first.
    const merged = mergeStartLateness(parts.map((p) => structuredClone(p.snapshot())));
    const expected = whole.snapshot();
    assert.equal(merged.started, expected.started);
    assert.equal(merged.late, expected.late);
    assert.ok(expected.late > 0 && expected.late < expected.started);
    assert.equal(merged.histogram, expected.histogram);
    assert.equal(merged.histogram, hdr.encodeIntoCompressedBase64(direct));
    const summary = summariseStartLateness(merged);
    assert.equal(summary.startMs.count, 30_000);
    assert.ok(summary.startMs.p99 > summary.startMs.p50);
  });

  test("nothing recorded: empty figures, and a merge of nothing is empty", () => {
    const empty = summariseStartLateness(new StartLateness(10).snapshot());
    assert.equal(empty.started, 0);
    assert.equal(empty.startMs.count, 0);
    assert.equal(mergeStartLateness([]).started, 0);
  });
});
