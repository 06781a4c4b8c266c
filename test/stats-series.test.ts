/**
 * The summarising maths: error classes, per-class rows and Apdex, the time series and its merge
 * across workers, and the plateau rate.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { firstSeenSpan } from "../src/report/figures.js";
import { mergeSnapshots } from "../src/result/merge-snapshots.js";
import type { SeriesPointResult } from "../src/result/result.js";
import { buildResult, firstSeen, plateau, seriesResult } from "../src/result/summarise.js";
import { RunStats } from "../src/stats/collector.js";
import type { MessageOutcome } from "../src/stats/counts.js";
import { classifyError } from "../src/stats/errors.js";
import { regroupSeries } from "../src/stats/series.js";

const META = { mode: "reuse" as const, target: "t", runId: "r", sessions: 1 };
const T0 = 1_764_683_700_000; // a multiple of 1000

/** One message of class `cls` started and settled with `outcome`. */
function settle(stats: RunStats, cls: number, outcome: MessageOutcome, ms: number): void {
  stats.messageStarted(1);
  stats.messageSettled(cls, outcome, ms);
}

describe("error classes", () => {
  const cases: [string, string, string, string][] = [
    ["421", "4.7.0", "banner", "refused"],
    ["554", "5.7.1", "banner", "refused"],
    ["refused", "", "connect", "refused"],
    ["450", "4.7.1", "mail", "rateLimited"],
    ["421", "4.7.0", "mail", "rateLimited"],
    ["452", "4.5.3", "rcpt", "temporary"],
    ["451", "", "dot", "temporary"],
    ["550", "5.1.1", "rcpt", "rejected"],
    ["timeout", "", "dot", "transport"],
    ["closed", "", "mail", "transport"],
    ["unsent", "", "connect", "unsent"],
  ];
  for (const [reply, enhanced, phase, expected] of cases) {
    test(`${reply} ${enhanced} at ${phase} is ${expected}`, () => {
      assert.equal(classifyError(reply, enhanced, phase as never), expected);
    });
  }

  test("the Result sums error rows by class and labels each row", () => {
    const stats = new RunStats();
    stats.reply(421, "4.7.0", "banner", "too many connections", 3);
    stats.reply(450, "4.7.1", "mail", "too much mail");
    const result = buildResult(stats.snapshot(), META);
    assert.equal(result.errorClasses.refused, 3);
    assert.equal(result.errorClasses.rateLimited, 1);
    assert.equal(result.errors[0].class, "refused");
  });
});

describe("per-class rows and Apdex", () => {
  test("settled messages merge by class name across workers", () => {
    const a = new RunStats(["bulk", "alerts"]);
    const b = new RunStats(["bulk", "alerts"]);
    settle(a, 0, "accepted", 10);
    settle(a, 1, "rejected", 5);
    settle(b, 0, "accepted", 30);
    settle(b, 0, "failed", 1);
    const merged = mergeSnapshots([a.snapshot(), b.snapshot()]);
    assert.deepEqual(
      merged.classes.map((c) => [c.name, c.accepted, c.rejected, c.failed]),
      [
        ["bulk", 2, 0, 1],
        ["alerts", 0, 1, 0],
      ],
    );
  });

  test("Apdex: satisfied ≤ T, tolerating ≤ 4T counts half, errors frustrate", () => {
    const stats = new RunStats(["x"]);
    for (const ms of [10, 20, 30, 40]) settle(stats, 0, "accepted", ms); // satisfied
    for (const ms of [150, 190]) settle(stats, 0, "accepted", ms); // tolerating (T = 50)
    settle(stats, 0, "accepted", 500); // frustrated
    settle(stats, 0, "failed", 0); // frustrated
    stats.touch(T0);
    stats.touch(T0 + 2000);
    const result = buildResult(stats.snapshot(), { ...META, apdexMs: 50 });
    const [x] = result.classes;
    assert.equal(x.attempted, 8);
    assert.equal(x.apdex, 0.625); // (4 + 2/2) / 8
    assert.equal(x.errorPercent, 12.5);
    assert.equal(x.messagesPerSecond, 3.5);
    assert.equal(x.transactionMs.count, 7);
    assert.deepEqual(result.apdex, { satisfiedMs: 50, toleratingMs: 200 });
  });
});

/** A worker that accepts `perSecond[i]` messages in second i, sampled like the run loop does. */
function worker(perSecond: number[], offsetMs: number): RunStats {
  const stats = new RunStats();
  stats.sample(T0 + offsetMs, 0);
  perSecond.forEach((n, second) => {
    for (let k = 0; k < n; k++) {
      stats.messageStarted(1);
      stats.messageSettled(0, "accepted", 1 + second);
    }
    stats.sample(T0 + (second + 1) * 1000 + offsetMs, 2);
  });
  stats.sample(T0 + perSecond.length * 1000 + offsetMs + 1, 0, true);
  return stats;
}

describe("time series", () => {
  test("intervals are aligned on epoch time and merge across workers by start", () => {
    const merged = mergeSnapshots([
      worker([5, 7, 9], 20).snapshot(),
      worker([1, 1, 1], 60).snapshot(),
    ]);
    const points = seriesResult(merged.series).points;
    assert.deepEqual(
      points.map((p) => [p.t - T0, p.accepted, p.openSessions]),
      [
        [0, 6, 4],
        [1000, 8, 4],
        [2000, 10, 4],
        [3000, 0, 0],
      ],
    );
    assert.ok(Math.abs((points[2].p50Ms ?? 0) - 3) < 0.01, String(points[2].p50Ms)); // HDR: 3 digits
    // Nothing accepted in the last interval: no latency, not 0 ms (issue 13 item 4).
    assert.deepEqual([points[3].p50Ms, points[3].p99Ms], [null, null]);
  });

  test("open sessions: the interval's mean of its samples; the final sample is not a level", () => {
    const stats = new RunStats(["default"], 1000);
    stats.sample(T0, 0); // opens the series
    for (const [ms, open] of [
      [100, 2],
      [400, 4],
      [900, 6],
      [1100, 10],
      [1500, 10],
    ]) {
      stats.sample(T0 + ms, open);
    }
    stats.sample(T0 + 2050, 10); // closes the second second; opens a third
    stats.sample(T0 + 2080, 0, true); // every session closed: the run's end
    const points = seriesResult(stats.snapshot().series).points;
    assert.deepEqual(
      points.map((p) => [p.t - T0, p.openSessions, p.openSessionsMean]),
      [
        [0, 10, 5.5], // 2, 4, 6 and the sample that closed it (10)
        [1000, 10, 10],
        [2000, 0, 10], // shorter than a sweep: the level last sampled, not the end's 0
      ],
    );
  });

  test("regrouping into longer intervals adds counts and keeps the last open-session count", () => {
    const snap = worker([5, 7, 9, 11], 0).snapshot();
    const grouped = regroupSeries(snap.series, 2000);
    assert.deepEqual(
      grouped.points.map((p) => [p.t - T0, p.accepted, p.openSessions]),
      [
        [0, 12, 2],
        [2000, 20, 2],
        [4000, 0, 0],
      ],
    );
  });
});

describe("plateau", () => {
  const series = (counts: number[]) => ({
    intervalMs: 1000,
    points: counts.map((accepted, i) => ({ t: T0 + i * 1000, accepted }) as SeriesPointResult),
  });

  test("drops the partial edges and the ramps, keeps interior dips", () => {
    // partial, ramp up, steady (with one dip), ramp down, partial
    const p = plateau(series([3, 40, 90, 100, 100, 60, 100, 100, 50, 7]));
    assert.ok(p);
    assert.equal(p.intervals, 6);
    assert.equal(p.messagesPerSecond, 91.7); // (90+100+100+60+100+100) / 6
    assert.equal(p.fromMs, T0 + 2000);
    assert.equal(p.toMs, T0 + 8000);
  });

  test("null when fewer than three steady intervals remain", () => {
    assert.equal(plateau(series([1, 100, 100, 1])), null);
    assert.equal(plateau(series([])), null);
  });

  test("idle intervals do not pull the median down (issue 16 item 2)", () => {
    // 25 idle seconds around a 6-second burst of about 70k/s: the median of all intervals
    // is 0, which trimmed nothing and gave the burst spread over 31 intervals.
    const burst = [69_000, 74_000, 76_000, 71_000, 73_000, 70_000];
    const p = plateau(series([0, ...Array(12).fill(0), ...burst, ...Array(13).fill(0), 0]));
    assert.ok(p);
    assert.equal(p.intervals, 6);
    assert.equal(p.messagesPerSecond, 72_166.7);
    assert.equal(p.fromMs, T0 + 13_000);
  });

  test("no plateau from intervals that accepted nothing (issue 15: 'plateau 0.0/s')", () => {
    assert.equal(plateau(series([0, 0, 0, 0, 0, 0, 0])), null);
    assert.equal(plateau(series([0, 0, 50, 0, 0, 60, 0, 0])), null);
  });
});

describe("first seen", () => {
  const point = (i: number, opened: number, sent: number, open: number, errors = {}) =>
    ({
      t: T0 + i * 1000,
      sent,
      connectionsOpened: opened,
      openSessions: open,
      errors: {
        refused: 0,
        rateLimited: 0,
        temporary: 0,
        rejected: 0,
        transport: 0,
        unsent: 0,
        ...errors,
      },
    }) as SeriesPointResult;

  test("each class at its first interval, with the counts through it, in order of appearance", () => {
    const series = {
      intervalMs: 1000,
      points: [
        point(0, 10, 100, 10),
        point(1, 10, 150, 20, { rateLimited: 2 }),
        point(2, 30, 200, 50, { refused: 5, rateLimited: 1 }),
        point(3, 5, 90, 50, { refused: 9 }),
      ],
    };
    // The first connect came 0.25 s into the first interval; the run lasted 3.5 s.
    assert.deepEqual(firstSeen(series, T0 + 250, 3.5), [
      {
        class: "rateLimited",
        fromSeconds: 0.75,
        toSeconds: 1.75,
        openSessions: 20,
        connectionsOpened: 20,
        sent: 250,
      },
      {
        class: "refused",
        fromSeconds: 1.75,
        toSeconds: 2.75,
        openSessions: 50,
        connectionsOpened: 50,
        sent: 450,
      },
    ]);
  });

  test("bounds are clamped to the run, and a run without errors has none", () => {
    const series = { intervalMs: 1000, points: [point(0, 4, 10, 4, { transport: 1 })] };
    const [f] = firstSeen(series, T0 + 900, 0.05);
    assert.deepEqual([f.class, f.fromSeconds, f.toSeconds], ["transport", 0, 0.05]);
    assert.deepEqual(firstSeen({ intervalMs: 1000, points: [point(0, 4, 10, 4)] }, T0, 1), []);
  });

  test("in words: a range, or one time when the clamped interval rounds to one", () => {
    const base = { class: "refused" as const, openSessions: 1, connectionsOpened: 1, sent: 0 };
    assert.equal(firstSeenSpan({ ...base, fromSeconds: 3, toSeconds: 4 }), "3.0–4.0 s");
    assert.equal(firstSeenSpan({ ...base, fromSeconds: 0, toSeconds: 0.0004 }), "0.0 s");
  });
});
