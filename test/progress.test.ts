/** The live progress line: percent done and ETA by whichever bound ends the run, in 80 columns. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { doneFraction, formatProgress, pauseLine } from "../src/cli/progress.js";
import { zeroProgressCounts } from "../src/run/progress.js";
import type { Progress } from "../src/run/thread-run.js";
import { newHistogramEncoded, summariseHistogram } from "../src/stats/collector.js";

function progress(counts: Partial<Progress>): Progress {
  const none = summariseHistogram(newHistogramEncoded());
  return {
    ...zeroProgressCounts(),
    recentP99Ms: 0,
    transactionMs: none,
    points: [],
    ...counts,
  };
}

const INFINITE = Number.POSITIVE_INFINITY;

describe("progress", () => {
  test("percent done by messages, by duration, by the bound reached first, or none", () => {
    const p = progress({ attempted: 2500, dropped: 500 });
    assert.equal(doneFraction(p, 1, { messages: 10_000, durationMs: 0 }), 0.3);
    assert.equal(doneFraction(p, 15, { messages: INFINITE, durationMs: 60_000 }), 0.25);
    assert.equal(doneFraction(p, 15, { messages: 10_000, durationMs: 60_000 }), 0.3);
    assert.equal(doneFraction(p, 15, { messages: INFINITE, durationMs: 0 }), null);
    assert.equal(doneFraction(progress({ attempted: 20 }), 1, { messages: 10, durationMs: 0 }), 1);
  });

  test("the line: elapsed of total, percent, ETA, then the totals, under 80 columns", () => {
    const p = progress({
      attempted: 1_234_567,
      accepted: 1_234_000,
      rejected: 20,
      failed: 7,
      openSessions: 100,
      recentP99Ms: 12.34,
    });
    const before = progress({ accepted: 1_200_000 });
    const line = formatProgress(p, before, {
      intervalSeconds: 1,
      elapsedSeconds: 30,
      total: { messages: INFINITE, durationMs: 120_000 },
    });
    assert.equal(
      line,
      "30s/120s 25% ETA 90s sent 1.23M acc 1.23M 34,000/s p99 12.3ms err 27 sess 100",
    );
    assert.ok(line.length < 80, `${line.length} columns`);
    const short = formatProgress(progress({ attempted: 10, accepted: 10 }), null, {
      intervalSeconds: 1,
      elapsedSeconds: 1,
      total: { messages: INFINITE, durationMs: 0 },
    });
    assert.equal(short, "1s sent 10 acc 10 10/s p99 0.0ms err 0 sess 0");
  });

  test("connections that never reached a banner are counted, though no message failed yet", () => {
    const refusing = formatProgress(
      progress({ connectionsOpened: 12_345, connectionsRefused: 12_345, openSessions: 1_000 }),
      null,
      { intervalSeconds: 1, elapsedSeconds: 5, total: { messages: INFINITE, durationMs: 0 } },
    );
    assert.equal(refusing, "5s sent 0 acc 0 0/s p99 0.0ms err 0 sess 1,000 conn fail 12,345");
  });

  test("a compare's pause counts down in whole seconds, never below 0", () => {
    assert.equal(pauseLine(60_000, "reuse"), "pause: 60s left before the reuse run");
    assert.equal(pauseLine(59_001, "reuse"), "pause: 60s left before the reuse run");
    assert.equal(pauseLine(400, "per-message"), "pause: 1s left before the per-message run");
    assert.equal(pauseLine(-5, "reuse"), "pause: 0s left before the reuse run");
  });
});
