/**
 * --shard and --start-at wired into a run: the options become the config (with the hash of its
 * load), the start gate holds the load until the instant, and a shard's result carries its
 * header and only its own part of the load.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildCompareCommandConfig, buildRunCommandConfig } from "../src/config/command-config.js";
import { buildRunConfig } from "../src/config/run-config.js";
import type { Result } from "../src/result/result.js";
import { executeRun } from "../src/run/run.js";
import { StartGate } from "../src/run/start-at.js";
import { startMailvolley } from "./helpers/cli.js";
import { configError } from "./helpers/config-error.js";
import { assertBalanced } from "./helpers/run-client.js";

describe("--shard and --start-at in the config", () => {
  test("I/N and a start time become the config; without them a whole run at once", () => {
    const { run } = buildRunCommandConfig({ shard: "1/3", startAt: "1767225600.5", sessions: "6" });
    assert.deepEqual(run.shard, { index: 1, count: 3 });
    assert.equal(run.startAt, 1_767_225_600_500);
    const plain = buildRunCommandConfig({}).run;
    assert.equal(plain.shard, null);
    assert.equal(plain.startAt, null);
  });

  test("auto/N reads JOB_COMPLETION_INDEX", (t) => {
    const saved = process.env.JOB_COMPLETION_INDEX;
    t.after(() => {
      if (saved === undefined) delete process.env.JOB_COMPLETION_INDEX;
      else process.env.JOB_COMPLETION_INDEX = saved;
    });
    process.env.JOB_COMPLETION_INDEX = "2";
    assert.deepEqual(buildRunConfig({ shard: "auto/3", sessions: 3 }).shard, {
      index: 2,
      count: 3,
    });
    delete process.env.JOB_COMPLETION_INDEX;
    assert.match(
      configError(() => buildRunConfig({ shard: "auto/3" })),
      /^--shard: .*not set/,
    );
  });

  test("a split that leaves a shard idle, or a bad time, is one line naming the option", () => {
    assert.match(
      configError(() => buildRunConfig({ shard: "0/4", sessions: 3 })),
      /^--shard: /,
    );
    assert.match(
      configError(() => buildRunConfig({ shard: "0/4", messages: 3, sessions: 8 })),
      /^--shard: 4 shards need at least 4 messages/,
    );
    assert.match(
      configError(() => buildRunConfig({ startAt: "noon" })),
      /^--start-at: /,
    );
  });

  test("the load's hash: equal on every shard, changed by the load and by compare's mode", () => {
    const shard = (i: number) =>
      buildRunCommandConfig({
        shard: `${i}/2`,
        startAt: "1767225600",
        json: `${i}.json`,
        sessions: "4",
      }).run;
    assert.match(shard(0).configHash, /^sha256:[0-9a-f]{64}$/);
    assert.equal(shard(0).configHash, shard(1).configHash);
    const more = buildRunCommandConfig({ shard: "0/2", sessions: "5" }).run;
    assert.notEqual(more.configHash, shard(0).configHash);
    const { runs } = buildCompareCommandConfig({
      shard: "0/2",
      sessions: "4",
      startAt: "1767225600",
    });
    assert.notEqual(runs[0].configHash, runs[1].configHash);
    assert.equal(runs[0].startAt, 1_767_225_600_000);
    assert.equal(runs[1].startAt, null, "the second run follows the first after --pause");
  });
});

/**
 * Whether a gate's wait has resolved by the time the event loop has run what is due now: an
 * order of events, not a duration.
 */
async function openedBy(waited: Promise<void>): Promise<"opened" | "waiting"> {
  const opened = waited.then(() => "opened" as const);
  const waiting = new Promise<"waiting">((resolve) => setImmediate(() => resolve("waiting")));
  return Promise.race([opened, waiting]);
}

describe("the start gate", () => {
  test("a time already past opens at once; no time at all too", async () => {
    assert.equal(await openedBy(new StartGate(Date.now() - 60_000).wait()), "opened");
    assert.equal(await openedBy(new StartGate(null).wait()), "opened");
  });

  test("resolves no earlier than its instant, on the clock results are read from", async () => {
    const at = performance.timeOrigin + performance.now() + 30;
    await new StartGate(at).wait();
    assert.ok(performance.timeOrigin + performance.now() >= at);
  });

  test("a stop opens it early (Ctrl-C while waiting for a start an hour away)", async () => {
    const gate = new StartGate(Date.now() + 3_600_000);
    const waited = gate.wait();
    assert.equal(await openedBy(waited), "waiting", "an hour away: still closed");
    gate.open();
    assert.equal(await openedBy(waited), "opened");
    assert.equal(await openedBy(gate.wait()), "opened", "once opened, a later wait passes too");
  });
});

describe("a shard's run", { timeout: 60_000 }, () => {
  test("sends its stripe with its sessions and records its header", async () => {
    const startAt = Date.now() + 1000;
    const config = buildRunConfig({
      shard: "1/3",
      startAt: String(startAt / 1000),
      sessions: 7,
      messages: 100,
      workers: 2,
      interval: "100ms",
    });
    const { result } = await executeRun(config);
    assertBalanced(result);
    assert.equal(result.messages.accepted, 33, "messages 1, 4, …, 97");
    assert.equal(result.sink?.messagesAccepted, 33);
    assert.equal(result.sessions, 3, "round(7·2/3) − round(7/3) = 5 − 2");
    const shard = result.shard;
    assert.ok(shard);
    assert.equal(shard.index, 1);
    assert.equal(shard.count, 3);
    assert.equal(shard.configHash, config.configHash);
    assert.equal(shard.clockStart, result.startedAt);
    assert.ok(Date.parse(shard.clockEnd) >= Date.parse(shard.clockStart));
    assert.equal(shard.startAt, new Date(startAt).toISOString());
    assert.ok(shard.startLatenessMs !== null && shard.startLatenessMs >= 0, "never before");
    assert.ok(Date.parse(result.startedAt) >= startAt);
    // Every thread, the coordinating main thread too, is sampled from the start, not the wait.
    const firstInterval = Math.floor(startAt / 100) * 100;
    const threads = result.generator?.threads ?? [];
    assert.deepEqual(
      threads.map((t) => t.name),
      ["main", "worker 1", "worker 2"],
    );
    for (const t of threads) assert.ok(t.points[0].t >= firstInterval, `${t.name} from the start`);
  });

  test("a run without --shard or --start-at has no header", async () => {
    const { result } = await executeRun(buildRunConfig({ messages: 5, sessions: 1, workers: 1 }));
    assert.equal(result.shard, undefined);
  });
});

describe("Ctrl-C while a shard waits for --start-at", { timeout: 60_000 }, () => {
  for (const workers of ["1", "2"]) {
    test(`--workers ${workers}: ends at once with a result that sent nothing, exit 130`, async () => {
      const startAt = String(Math.ceil(Date.now() / 1000) + 3600);
      const { child, done } = startMailvolley(
        ["run", "-m", "100", "--start-at", startAt, "--workers", workers, "--json", "-"],
        30_000,
      );
      await new Promise<void>((resolve) => {
        let seen = "";
        child.stderr?.on("data", (s: string) => {
          seen += s;
          if (seen.includes("starts at")) resolve();
        });
      });
      child.kill("SIGINT");
      const { code, stdout, stderr } = await done;
      assert.equal(code, 130, stderr);
      const result = JSON.parse(stdout) as Result;
      assert.equal(result.messages.attempted, 0);
      assert.equal(result.sink?.messagesAccepted, 0);
      assert.ok((result.shard?.startLatenessMs ?? 0) < 0, "stopped before its start");
    });
  }
});
