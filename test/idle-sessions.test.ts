/**
 * The open model keeps idle sessions asleep: a release of N arrivals wakes at most N of the
 * sessions waiting for work, and per message at most N parked slots open. Counted, not timed:
 * every Session.resume() and every connection a run makes, against the built-in sink.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Session } from "../src/client/session.js";
import { buildRunConfig } from "../src/config/run-config.js";
import { executeRun } from "../src/run/run.js";

/** Runs `options` in-process, counting the sessions woken from Idle. */
async function countWakes(options: Record<string, unknown>) {
  const original = Session.prototype.resume;
  let resumes = 0;
  Session.prototype.resume = function (this: Session) {
    resumes++;
    original.call(this);
  };
  try {
    const { result } = await executeRun(buildRunConfig({ ...options, workers: 1 }));
    return { result, resumes };
  } finally {
    Session.prototype.resume = original;
  }
}

describe("idle sessions in the open model", { timeout: 60_000 }, () => {
  test("reuse: each arrival wakes one idle session, not all of them", async () => {
    // 40 sessions for 40 arrivals at 40/s: nearly all sessions idle between arrivals.
    const { result, resumes } = await countWakes({ sessions: 40, messages: 40, rate: "40" });
    assert.equal(result.messages.accepted, 40);
    // One wake per arrival that found a session asleep, and at the schedule's end one for each
    // session still asleep, to QUIT. Waking all of them each time would be about 40 × 39.
    assert.ok(resumes <= 40 + 40, `${resumes} wakes for 40 arrivals and 40 sessions`);
  });

  test("per message: each arrival opens one parked slot", async () => {
    const { result } = await countWakes({
      sessions: 40,
      messages: 30,
      rate: "40",
      mode: "per-message",
    });
    assert.equal(result.messages.accepted, 30);
    assert.equal(result.connections.opened, 30, "a connection per message, none for nothing");
  });
});
