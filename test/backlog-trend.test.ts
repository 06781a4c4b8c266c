import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { backlogTrend } from "../src/delivery/backlog-trend.js";

describe("backlogTrend: the slope of the messages inside the gateway", () => {
  test("a queue that grows by 120 a second while 500/s are accepted is growing", () => {
    const inside = Array.from({ length: 20 }, (_, s) => 40 + 120 * s);
    assert.deepEqual(backlogTrend(inside, 500), {
      perSecond: 120,
      trend: "growing",
      tolerancePerSecond: 10,
    });
  });

  test("a queue that holds steady with noise is flat", () => {
    const inside = [200, 204, 197, 201, 199, 203, 198, 202, 200, 201];
    const t = backlogTrend(inside, 500);
    assert.equal(t.trend, "flat");
    assert.ok(Math.abs(t.perSecond) <= t.tolerancePerSecond);
  });

  test("a queue that drains is shrinking", () => {
    const inside = [900, 700, 500, 300, 100];
    assert.deepEqual(backlogTrend(inside, 100), {
      perSecond: -200,
      trend: "shrinking",
      tolerancePerSecond: 2,
    });
  });

  test("the tolerance is 2% of the accept rate, at least one message a second", () => {
    assert.equal(backlogTrend([0, 1], 10).tolerancePerSecond, 1);
    assert.equal(backlogTrend([0, 1], 10).trend, "flat");
    assert.equal(backlogTrend([0, 3], 10).trend, "growing");
    assert.equal(backlogTrend([0, 1], 1000).tolerancePerSecond, 20);
    assert.equal(backlogTrend([0, 19], 1000).trend, "flat");
    assert.equal(backlogTrend([0, 21], 1000).trend, "growing");
  });

  test("fewer than two seconds give a flat slope of 0", () => {
    assert.deepEqual(backlogTrend([], 50), { perSecond: 0, trend: "flat", tolerancePerSecond: 1 });
    assert.deepEqual(backlogTrend([7], 50), { perSecond: 0, trend: "flat", tolerancePerSecond: 1 });
  });

  test("a non-finite accept rate or sample does not poison the slope", () => {
    const t = backlogTrend([0, 10, Number.NaN, 30], Number.NaN);
    assert.equal(t.perSecond, 10);
    assert.equal(t.tolerancePerSecond, 1);
    assert.equal(t.trend, "growing");
  });
});
