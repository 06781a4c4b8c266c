/**
 * Load models: arrival schedules, the open model's coordinated-omission correction and dropped
 * arrivals, durations, session ramps and caps, and Ctrl-C leaving a consistent partial result.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseLoadModel } from "../src/config/load-model.js";
import { parseRate } from "../src/config/parse.js";
import { parseStages } from "../src/config/stages.js";
import { parseThreshold } from "../src/config/thresholds.js";
import { exitCodeOf } from "../src/result/exit-code.js";
import type { Result } from "../src/result/result.js";
import { evaluateThresholds } from "../src/result/threshold-verdicts.js";
import { ArrivalSchedule, valueAt } from "../src/run/schedule.js";
import { startMailvolley } from "./helpers/cli.js";
import { runClient } from "./helpers/run-client.js";
import { type Script, startScriptedServer } from "./helpers/scripted-server.js";

describe("schedules", () => {
  test("rates and stages parse", () => {
    assert.equal(parseRate("--rate", "2000"), 2000);
    assert.equal(parseRate("--rate", "120/m"), 2);
    assert.throws(() => parseRate("--rate", "fast"), /--rate/);
    const stages = parseStages("--ramp", "0s:100,30s:1000,60s:1000", Number);
    assert.deepEqual(stages, [
      { atMs: 0, value: 100 },
      { atMs: 30_000, value: 1000 },
      { atMs: 60_000, value: 1000 },
    ]);
    assert.equal(valueAt(stages, 15_000), 550);
    assert.equal(valueAt(stages, 90_000), 1000);
    assert.throws(() => parseStages("--ramp", "10s:5,5s:6", Number), /increase/);
    assert.throws(() => parseStages("--ramp", "nonsense", Number), /TIME:VALUE/);
  });

  test("a constant rate puts arrival k at k/rate", () => {
    const schedule = new ArrivalSchedule([{ atMs: 0, value: 200 }]);
    for (const k of [0, 1, 2, 100, 1000]) assert.equal(schedule.arrivalTime(k), k * 5);
  });

  test("a linear ramp accumulates the area under the rate", () => {
    // 0 → 100/s over 10 s: 500 arrivals in the ramp, then 100/s.
    const schedule = new ArrivalSchedule([
      { atMs: 0, value: 0 },
      { atMs: 10_000, value: 100 },
    ]);
    const t = (k: number) => schedule.arrivalTime(k);
    assert.ok(Math.abs(t(125) - 5000) < 1e-6, `${t(125)}`); // area of the first half: 125
    assert.ok(Math.abs(t(500) - 10_000) < 1e-6);
    assert.ok(Math.abs(t(600) - 11_000) < 1e-6);
  });

  test("load model options are checked", () => {
    assert.equal(parseLoadModel({ rate: "50" }, 10).kind, "open");
    assert.equal(parseLoadModel({}, 10).kind, "closed");
    assert.throws(() => parseLoadModel({ rate: "5", ramp: "0s:5" }, 10), /--ramp/);
    assert.throws(() => parseLoadModel({ rampSessions: "0s:20" }, 10), /--ramp-sessions/);
    assert.throws(() => parseLoadModel({ messagesPerSession: "5-2" }, 10), /LOW-HIGH/);
    assert.deepEqual(parseLoadModel({ messagesPerSession: "50-200" }, 1).messagesPerSession, {
      min: 50,
      max: 200,
    });
  });
});

describe("open model", () => {
  test("a stalled reply shows in the corrected percentiles, not in the uncorrected", async () => {
    // One session, 50 arrivals a second; the 5th message's reply is held for 1.5 s, so the
    // arrivals behind it wait: their intended times keep running while the session is stuck.
    const script: Script = {
      onMessage: (_content, s) =>
        s.messages === 5 ? { reply: "250 ok", delayMs: 1500 } : undefined,
    };
    const server = await startScriptedServer(script);
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 100,
        rate: "50",
        maxDelay: "10s",
      });
      assert.equal(result.messages.accepted, 100);
      assert.equal(result.messages.dropped, 0);
      assert.ok(
        result.latency.transactionMs.p90 > 500,
        `corrected p90 ${result.latency.transactionMs.p90}`,
      );
      // The same 100 messages in both; only the corrected figures charge the queue's wait.
      const corrected = result.latency.transactionMs;
      const uncorrected = result.latencyUncorrected.transactionMs;
      assert.equal(uncorrected.count, 100);
      assert.equal(corrected.count, 100);
      assert.ok(
        uncorrected.p90 < corrected.p90,
        `uncorrected p90 ${uncorrected.p90} < corrected p90 ${corrected.p90}`,
      );
    } finally {
      await server.close();
    }
  });

  test("arrivals no session can start in time are dropped, and counted", async () => {
    const script: Script = { onMessage: () => ({ reply: "250 ok", delayMs: 40 }) };
    const server = await startScriptedServer(script);
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 200,
        rate: "1000",
        maxDelay: "50ms",
      });
      const m = result.messages;
      assert.ok(m.dropped > 0, "some arrivals dropped");
      assert.equal(m.scheduled, 200);
      assert.equal(m.attempted + m.dropped, 200);
      assert.equal(m.accepted, m.attempted);
      // Visible where they happened, judged by a threshold, and in the exit code (issue 16.7).
      const perInterval = result.series.points.reduce((n, p) => n + p.dropped, 0);
      assert.equal(perInterval, m.dropped);
      const [outcome] = evaluateThresholds([parseThreshold("dropped==0")], result);
      assert.deepEqual(outcome, {
        expression: "dropped==0",
        actual: m.dropped,
        unit: "",
        passed: false,
      });
      assert.equal(exitCodeOf(result), 1);
    } finally {
      await server.close();
    }
  });
});

describe("closed model", () => {
  test("--duration ends the run by time; counts still add up", async () => {
    const server = await startScriptedServer({});
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 2,
        duration: "300ms",
      });
      assert.ok(result.messages.attempted > 0);
      assert.equal(result.messages.accepted, result.messages.attempted);
      const received = server.connections.reduce((n, c) => n + c.messages.length, 0);
      assert.equal(received, result.messages.accepted);
    } finally {
      await server.close();
    }
  });

  test("--messages-per-session LOW-HIGH caps each connection within the range", async () => {
    const server = await startScriptedServer({});
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 40,
        messagesPerSession: "2-3",
      });
      assert.equal(result.messages.accepted, 40);
      const perConnection = server.connections.map((c) => c.messages.length);
      assert.ok(
        perConnection.slice(0, -1).every((n) => n === 2 || n === 3),
        `${perConnection}`,
      );
    } finally {
      await server.close();
    }
  });

  test("--ramp-up and --ramp-sessions open no more sessions than the ramp allows", async () => {
    const server = await startScriptedServer({});
    try {
      const rampUp = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 4,
        duration: "400ms",
        rampUp: "200ms",
      });
      assert.equal(rampUp.messages.accepted, rampUp.messages.attempted);
      assert.equal(rampUp.connections.opened, 4);
      const ramped = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 3,
        duration: "500ms",
        rampSessions: "0s:1,300ms:3",
      });
      assert.equal(ramped.messages.accepted, ramped.messages.attempted);
      assert.ok(ramped.connections.opened >= 1 && ramped.connections.opened <= 3);
    } finally {
      await server.close();
    }
  });
});

test("Ctrl-C: the partial JSON result adds up and the exit code is 130", async () => {
  const { child, done } = startMailvolley(
    ["run", "-s", "4", "-d", "60s", "--rate", "500", "--workers", "1", "--json", "-"],
    30_000,
  );
  // Wait until the run is under way: the first progress line comes after 5 s, off a TTY.
  await new Promise<void>((resolve) => {
    child.stderr?.on("data", (s: string) => {
      if (s.includes("progress")) resolve();
    });
  });
  child.kill("SIGINT");
  const { code, stdout, stderr } = await done;
  assert.equal(code, 130, stderr);
  const result = JSON.parse(stdout) as Result;
  const m = result.messages;
  assert.ok(m.attempted > 0);
  assert.equal(m.attempted, m.accepted + m.rejected + m.failed + (m.unconfirmed ?? 0));
  assert.equal(result.sink?.messagesAccepted, m.accepted);
});
