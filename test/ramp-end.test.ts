/**
 * Where a ramp ends the run: a ramp that reaches 0 can deliver no more work and ends the run
 * there (issue 17 item 1); without -d and -m a ramp's length is its duration (issue 16 item 6);
 * with --ramp-up and -m every session owns its share of the messages (issue 16 item 12).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseLoadModel, rampZeroEndMs } from "../src/config/load-model.js";
import { buildRunConfig } from "../src/config/run-config.js";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { runClient } from "./helpers/run-client.js";
import { startScriptedServer } from "./helpers/scripted-server.js";

describe("a ramp's end is the run's end", () => {
  test("the end of a ramp at 0 is where its last run of 0 stages begins", () => {
    const stages = (text: string) => parseLoadModel({ ramp: text }, 10).rate!;
    assert.equal(rampZeroEndMs(stages("0s:10,2s:0")), 2000);
    assert.equal(rampZeroEndMs(stages("0s:10,2s:0,5s:0")), 2000);
    assert.equal(rampZeroEndMs(stages("0s:0,1s:5,2s:0,3s:4")), null);
  });

  test("a ramp without -d or -m lasts as long as its stages; -m or -d bound it as given", () => {
    const ramp = buildRunConfig({ ramp: "0s:100,60s:100" });
    assert.equal(ramp.load.durationMs, 60_000);
    assert.equal(ramp.messages, Number.POSITIVE_INFINITY);
    const sessions = buildRunConfig({ rampSessions: "0s:1,30s:5" });
    assert.equal(sessions.load.durationMs, 30_000);
    assert.equal(sessions.messages, Number.POSITIVE_INFINITY);
    const capped = buildRunConfig({ ramp: "0s:100,60s:100", messages: "500" });
    assert.equal(capped.load.durationMs, 0);
    assert.equal(capped.messages, 500);
    const timed = buildRunConfig({ ramp: "0s:100,60s:100", duration: "10s" });
    assert.equal(timed.load.durationMs, 10_000);
  });

  test("a ramp that reaches 0 ends there, whatever -m or -d say", () => {
    assert.equal(buildRunConfig({ ramp: "0s:10,2s:0", messages: "1000" }).load.durationMs, 2000);
    const sessions = buildRunConfig({ rampSessions: "0s:0,3s:2,6s:0", messages: "200" });
    assert.equal(sessions.load.durationMs, 6000);
    assert.equal(
      buildRunConfig({ ramp: "0s:10,2s:0", duration: "1s" }).load.durationMs,
      1000,
      "-d shorter than the ramp still wins",
    );
  });

  test("a ramp of only 0 is refused up front", () => {
    assert.throws(
      () => parseLoadModel({ rampSessions: "0s:0" }, 10),
      /--ramp-sessions.*0 sessions/,
    );
    assert.throws(() => parseLoadModel({ ramp: "0s:0,5s:0" }, 10), /--ramp.*rate 0/);
  });

  // Each of these ran forever before (the arrival ramp also spun a 1 ms timer warning
  // TimeoutOverflowWarning); the child is killed after 30 s, which fails the exit-code check.
  const endings: [string, string[]][] = [
    ["an arrival ramp down to 0", ["-m", "1000", "--ramp", "0s:20,1s:0"]],
    [
      "a session ramp up and down to 0",
      ["-m", "200", "-w", "100ms", "--ramp-sessions", "0s:0,600ms:2,1200ms:0"],
    ],
  ];
  for (const [name, args] of endings) {
    test(`${name} ends the run: mailvolley run ${args.join(" ")}`, async () => {
      const out = await mailvolley(["run", ...args, "--workers", "1", "--json", "-"], 30_000);
      assert.equal(out.code, 0, out.stderr);
      assert.doesNotMatch(out.stderr, /TimeoutOverflowWarning/);
      const result = JSON.parse(out.stdout) as Result;
      const m = result.messages;
      assert.ok(m.attempted > 0 && m.attempted < Number(args[1]), `attempted ${m.attempted}`);
      assert.equal(m.accepted, m.attempted);
      assert.equal(result.sink?.messagesAccepted, m.accepted);
    });
  }
});

test("--ramp-up with -m: every session starts and takes its share", async () => {
  const server = await startScriptedServer({});
  try {
    // Replies are instant, so without shares the first session would take all 9 messages
    // before the ramp-up opened the second.
    const result = await runClient(`127.0.0.1:${server.port}`, {
      sessions: 4,
      messages: 9,
      rampUp: "300ms",
    });
    assert.equal(result.messages.accepted, 9);
    assert.equal(result.connections.opened, 4);
    const perSession = server.connections.map((c) => c.messages.length).sort();
    assert.deepEqual(perSession, [2, 2, 2, 3]);
  } finally {
    await server.close();
  }
});
