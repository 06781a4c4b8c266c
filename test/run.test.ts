/** Exit codes, and the embedded self-test with its cross-check. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildRunConfig } from "../src/config/run-config.js";
import { exitCodeOf } from "../src/result/exit-code.js";
import type { Result } from "../src/result/result.js";
import { executeRun } from "../src/run/run.js";

test("self-test: the embedded sink counts what the client counts, in both modes", async () => {
  for (const mode of ["reuse", "per-message"]) {
    const config = buildRunConfig({ mode, sessions: 3, messages: 150, workers: 1 });
    const { result, exitCode } = await executeRun(config);
    assert.equal(exitCode, 0);
    assert.equal(result.target, "embedded-sink");
    assert.equal(result.messages.accepted, 150);
    assert.equal(result.sink?.messagesAccepted, 150);
  }
});

test("two workers count what one would: totals equal the sink's", async () => {
  const config = buildRunConfig({ sessions: 4, messages: 1001, workers: 2 });
  const { result } = await executeRun(config);
  assert.equal(result.messages.attempted, 1001);
  assert.equal(result.messages.accepted, 1001);
  assert.equal(result.sink?.messagesAccepted, 1001);
  assert.equal(result.connections.opened, 4);
  assert.equal(result.latency.transactionMs.count, 1001);
});

test("class shares are exact at the built-in sink, across two workers", async () => {
  const config = buildRunConfig({
    sessions: 4,
    messages: 2000,
    workers: 2,
    classes: [
      { name: "standard", share: 60, headers: [] },
      { name: "sec", share: 15, headers: [] },
      { name: "sign", share: 10, headers: [] },
      { name: "vertraulich", share: 10, headers: [] },
      { name: "unsec", share: 5, headers: [] },
    ],
  });
  const { result } = await executeRun(config);
  const atSink = Object.fromEntries(
    Object.entries(result.sink?.classes ?? {}).map(([name, c]) => [name, c.accepted]),
  );
  assert.deepEqual(atSink, { standard: 1200, sec: 300, sign: 200, vertraulich: 200, unsec: 100 });
  const atClient = Object.fromEntries(result.classes.map((c) => [c.name, c.accepted]));
  assert.deepEqual(atClient, atSink);
});

test("a size distribution keeps its shares: --size 100:1,300:1", async () => {
  const config = buildRunConfig({ sessions: 2, messages: 40, workers: 1, size: "100:1,300:3" });
  assert.deepEqual(config.sizes, [
    { size: 100, weight: 1 },
    { size: 300, weight: 3 },
  ]);
  const { result } = await executeRun(config);
  assert.equal(result.messages.accepted, 40);
});

test("exit code: 1 when a message was not accepted or the sink disagrees", () => {
  const base = {
    messages: { attempted: 10, accepted: 10, rejected: 0, failed: 0 },
    errors: [] as Result["errors"],
  } as Result;
  assert.equal(exitCodeOf(base), 0);
  assert.equal(exitCodeOf({ ...base, messages: { ...base.messages, accepted: 9, failed: 1 } }), 1);
  assert.equal(exitCodeOf({ ...base, sink: { messagesAccepted: 9, sessions: 1 } }), 1);
  assert.equal(exitCodeOf({ ...base, sink: { messagesAccepted: 10, sessions: 1 } }), 0);
  const local = { reply: "local-limit" } as unknown as Result["errors"][number];
  assert.equal(exitCodeOf({ ...base, errors: [local] }), 1, "a connect failed on ulimit -n");
});
