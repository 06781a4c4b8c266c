/**
 * The knee (issue 16 item 8): where success fell below 100%, the rates sent and accepted then,
 * and the mean throughput while success held, from synthetic series and from a real ramp.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { kneeText } from "../src/report/figures.js";
import { renderSummary } from "../src/report/terminal.js";
import { knee } from "../src/result/knee.js";
import type { FirstSeen, SeriesPointResult } from "../src/result/result.js";
import { runClient } from "./helpers/run-client.js";
import { portOf, withSink } from "./sink-helpers.js";

const T0 = 1_764_683_700_000;

function series(rows: [sent: number, accepted: number, failed: number, dropped?: number][]) {
  return {
    intervalMs: 1000,
    points: rows.map(
      ([sent, accepted, failed, dropped = 0], i) =>
        ({ t: T0 + i * 1000, sent, accepted, rejected: 0, failed, dropped }) as SeriesPointResult,
    ),
  };
}

describe("knee", () => {
  test("a ramp: 100% while the rate climbs, then the first interval with a failure", () => {
    const s = series([
      [0, 0, 0],
      [100, 100, 0],
      [200, 200, 0],
      [300, 300, 0],
      [400, 380, 20, 5],
      [500, 300, 200],
    ]);
    const k = knee(s, T0 + 500, []);
    assert.ok(k?.fell);
    assert.deepEqual(k.fell, {
      atSeconds: 3.5,
      fromSeconds: 3.5,
      toSeconds: 4.5,
      // 380 accepted of 400 settled and 5 dropped arrivals.
      successPercent: 93.83,
      sentPerSecond: 400,
      scheduledPerSecond: 405,
      acceptedPerSecond: 380,
    });
    assert.deepEqual(k.cleanWindow, {
      fromSeconds: 0.5,
      toSeconds: 3.5,
      intervals: 3,
      messagesPerSecond: 200,
    });
    assert.equal(
      kneeText(k),
      "success fell to 93.83 % at 3.500 s: sent 400.0/s, scheduled 405.0/s, accepted 380.0/s; 100 % before it for 3.0 s, mean 200.0/s",
    );
  });

  test("dropped arrivals alone are a knee: an overloaded target fails no reply, it drops", () => {
    const s = series([
      [20, 20, 0],
      [40, 40, 0, 0],
      [40, 40, 0, 60],
    ]);
    const k = knee(s, T0, []);
    assert.equal(k?.fell?.fromSeconds, 2);
    assert.equal(k?.fell?.successPercent, 40);
    assert.equal(k?.fell?.scheduledPerSecond, 100);
  });

  test("the clean window ends inside the run, not after its last reply", () => {
    const s = series([
      [5, 5, 0],
      [5, 5, 0],
    ]);
    const k = knee(s, T0, [], T0 + 1500);
    assert.equal(k?.fell, null);
    assert.equal(k?.cleanWindow?.toSeconds, 1.5);
  });

  test("the moment is the first error's exact time when it lies in the knee's interval", () => {
    const s = series([
      [10, 10, 0],
      [10, 9, 1],
    ]);
    const first = [{ class: "transport", atSeconds: 1.234 } as FirstSeen];
    assert.equal(knee(s, T0, first)?.fell?.atSeconds, 1.234);
    const elsewhere = [{ class: "transport", atSeconds: 0.2 } as FirstSeen];
    assert.equal(knee(s, T0, elsewhere)?.fell?.atSeconds, 1);
  });

  test("success never fell: no knee, the whole run is the clean window", () => {
    const k = knee(
      series([
        [5, 5, 0],
        [5, 5, 0],
      ]),
      T0,
      [],
    );
    assert.deepEqual(k, {
      fell: null,
      cleanWindow: { fromSeconds: 0, toSeconds: 2, intervals: 2, messagesPerSecond: 5 },
    });
    assert.equal(kneeText(k), null);
    assert.equal(knee(series([[0, 0, 0]]), T0, []), null);
  });

  test("a real run into a message rate limit: the knee and its line in the terminal", async () => {
    await withSink({ maxMessageRate: "50/60s" }, async (sink) => {
      const result = await runClient(`127.0.0.1:${portOf(sink)}`, { sessions: 1, messages: 80 });
      assert.equal(result.messages.accepted, 50);
      const fell = result.knee?.fell;
      assert.ok(fell, JSON.stringify(result.knee));
      const first = result.firstSeen?.find((f) => f.class === "rateLimited");
      assert.equal(fell.atSeconds, first?.atSeconds);
      assert.ok(fell.successPercent < 100);
      assert.match(renderSummary(result, { color: false }), /^Knee {10}success fell to /m);
    });
  });
});
