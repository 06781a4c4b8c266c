/** Runs sharded across machines, merged into one result. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildRunConfig } from "../src/config/run-config.js";
import { mergeResults, snapshotOfResult } from "../src/result/merge-results.js";
import type { Result } from "../src/result/result.js";
import { buildResult } from "../src/result/summarise.js";
import { executeRun } from "../src/run/run.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const classes = [
  { name: "bulk", share: 3, headers: [] },
  { name: "vip", share: 1, headers: [] },
];

async function shard(messages: number, sessions: number): Promise<Result> {
  const config = buildRunConfig({ messages, sessions, workers: 1, classes });
  return (await executeRun(config)).result;
}

test("a saved result turns back into the snapshot it came from", async () => {
  const result = await shard(400, 2);
  const again = buildResult(snapshotOfResult(result), {
    mode: result.mode,
    target: result.target,
    runId: result.runId,
    sessions: result.sessions,
  });
  assert.deepEqual(again.messages, result.messages);
  assert.deepEqual(again.latency.transactionMs, result.latency.transactionMs);
  assert.deepEqual(
    again.classes.map((c) => [c.name, c.accepted, c.transactionMs.p99]),
    result.classes.map((c) => [c.name, c.accepted, c.transactionMs.p99]),
  );
});

test("shards merge as if one generator had counted: counts, classes, histograms, sink", async () => {
  const a = await shard(800, 2);
  const b = await shard(400, 3);
  const merged = mergeResults([a, b]);
  assert.equal(merged.messages.attempted, 1200);
  assert.equal(merged.messages.accepted, 1200);
  assert.equal(merged.sessions, 5);
  assert.equal(merged.connections.opened, a.connections.opened + b.connections.opened);
  assert.equal(merged.latency.transactionMs.count, 1200);
  assert.ok(
    merged.latency.transactionMs.max >=
      Math.max(a.latency.transactionMs.max, b.latency.transactionMs.max) - 0.01,
  );
  assert.deepEqual(
    merged.classes.map((c) => [c.name, c.accepted]),
    [
      ["bulk", 900],
      ["vip", 300],
    ],
  );
  assert.equal(merged.sink?.messagesAccepted, 1200);
  const points = merged.series.points.reduce((n, p) => n + p.accepted, 0);
  assert.equal(points, 1200);
});

test("mailvolley merge: files in, one result out; a compare file or mixed modes are refused", async () => {
  const dir = tempDir("mailvolley-merge-");
  const a = await shard(300, 1);
  const b = await shard(200, 1);
  const perMessage = (
    await executeRun(buildRunConfig({ messages: 50, sessions: 1, workers: 1, mode: "per-message" }))
  ).result;
  const file = (name: string, doc: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(doc));
    return path;
  };
  const [fa, fb, fp] = [file("a.json", a), file("b.json", b), file("p.json", perMessage)];
  const out = await mailvolley(["merge", fa, fb, "--json", "-", "-q"]);
  assert.equal(out.code, 0, out.stderr);
  assert.equal((JSON.parse(out.stdout) as Result).messages.accepted, 500);
  const mixed = await mailvolley(["merge", fa, fp]);
  assert.equal(mixed.code, 2);
  assert.match(
    mixed.stderr,
    /^mailvolley: merge: mixed modes: .*a\.json ran reuse; .*p\.json ran per-message\n$/,
  );
  const compare = await mailvolley([
    "merge",
    fa,
    file("c.json", { schema: "mailvolley/compare@1", runs: [a, b] }),
  ]);
  assert.equal(compare.code, 2);
  assert.match(compare.stderr, /compare/);
  // A result given twice would count its run twice: one line naming it, exit 2.
  const twice = await mailvolley(["merge", fa, fa, "--json", "-"]);
  assert.equal(twice.code, 2);
  assert.equal(twice.stdout, "");
  assert.match(
    twice.stderr,
    /^mailvolley: merge: .*a\.json: one file given twice; give each result once\n$/,
  );
  const copy = await mailvolley(["merge", fa, file("copy.json", a)]);
  assert.equal(copy.code, 2);
  assert.match(
    copy.stderr,
    new RegExp(
      `^mailvolley: merge: .*copy\\.json and .*a\\.json are the same result \\(run ${a.runId}\\) given twice; give each run or shard once\n$`,
    ),
  );
});
