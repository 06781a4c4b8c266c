/**
 * `mailvolley merge` over the shards of one run: it refuses, with one line and exit 2, a
 * missing or doubled shard, another load or mixed modes; it judges --threshold on the merged
 * result (exit 99); the merged result keeps every shard's header; compares merge mode by mode.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { buildCompareCommandConfig, buildRunCommandConfig } from "../src/config/command-config.js";
import type { Result } from "../src/result/result.js";
import { executeRun } from "../src/run/run.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const LOAD = { sessions: "3", messages: "30", workers: "1" };

async function shard(index: number, options: Record<string, string> = {}): Promise<Result> {
  const { run } = buildRunCommandConfig({ ...LOAD, ...options, shard: `${index}/3` });
  return (await executeRun(run)).result;
}

/** The one line of a refusal. */
function refusal(out: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(out.code, 2, out.stderr);
  assert.match(out.stderr, pattern);
  assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
}

describe("merging the shards of one run", { timeout: 120_000 }, () => {
  const dir = tempDir("mailvolley-merge-shards-");
  const file = (name: string, doc: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(doc));
    return path;
  };
  let files: string[] = [];

  before(async () => {
    files = [];
    for (const i of [0, 1, 2]) files.push(file(`shard-${i}.json`, await shard(i)));
  });

  test("all shards: one result with every header, the counts of the whole run", async () => {
    const out = await mailvolley(["merge", ...files, "--json", "-"]);
    assert.equal(out.code, 0, out.stderr);
    const merged = JSON.parse(out.stdout) as Result;
    assert.equal(merged.messages.accepted, 30);
    assert.equal(merged.sessions, 3);
    assert.deepEqual(
      merged.shards?.map((s) => [s.index, s.count]),
      [
        [0, 3],
        [1, 3],
        [2, 3],
      ],
    );
    assert.equal(merged.shard, undefined);
    assert.deepEqual(
      merged.generator?.threads.map((t) => t.name),
      ["shard 0/3 main", "shard 1/3 main", "shard 2/3 main"],
      "each shard's threads, named after their shard",
    );
    assert.match(out.stderr, /mailvolley merge: 3 shards started within \d+ ms/);
  });

  test("a missing shard is refused, naming it", async () => {
    refusal(await mailvolley(["merge", files[0], files[2]]), /merge: shard 1\/3 missing/);
  });

  test("a shard given twice is refused", async () => {
    const copy = file("copy.json", JSON.parse(JSON.stringify(await shard(1))));
    refusal(await mailvolley(["merge", ...files, copy]), /merge: shard 1\/3 twice: /);
  });

  test("a shard of another load is refused", async () => {
    const other = file("other.json", await shard(2, { size: "2k" }));
    refusal(
      await mailvolley(["merge", files[0], files[1], other]),
      /merge: configuration differs: .*other\.json ran [0-9a-f]{12}; the options that define the load must match/,
    );
  });

  test("a result without --shard among shards is refused", async () => {
    const { run } = buildRunCommandConfig({ ...LOAD, messages: "10" });
    const plain = file("plain.json", (await executeRun(run)).result);
    refusal(await mailvolley(["merge", ...files, plain]), /merge: not a shard .*plain\.json/);
  });

  test("--threshold judges the merged run: a breach exits 99 and is in the JSON", async () => {
    const held = await mailvolley(["merge", ...files, "--threshold", "error_rate<1%", "-q"]);
    assert.equal(held.code, 0, held.stderr);
    const out = join(dir, "breach.json");
    const breached = await mailvolley([
      "merge",
      ...files,
      "--threshold",
      "rate>=100000000/s",
      "--json",
      out,
      "-q",
    ]);
    assert.equal(breached.code, 99, breached.stderr);
    assert.match(breached.stderr, /threshold breached: rate>=100000000\/s/);
    const merged = JSON.parse(readFileSync(out, "utf8")) as Result;
    assert.equal(merged.thresholds?.[0].passed, false);
  });

  test("--fail-on-generator-bound: a generator-bound shard fails the merged run, named", async () => {
    /** Shard `index`'s result, its threads made `busy` (0–1) in every figure the verdict reads. */
    const judged = async (index: number, busy: number) => {
      const result = await shard(index, { duration: "1s", interval: "100ms", messages: "100000" });
      for (const t of result.generator?.threads ?? []) {
        for (const figures of [t, ...t.points]) {
          figures.cpuUtilisation = busy;
          figures.eventLoopUtilisation = busy;
          figures.waitSeconds = 0;
          figures.eventLoopDelay = { p50Ms: 0, p99Ms: 0, maxMs: 0 };
        }
      }
      return file(`judged-${index}-${busy}.json`, result);
    };
    const idle = [await judged(0, 0.2), await judged(1, 0.2), await judged(2, 0.2)];
    const held = await mailvolley(["merge", ...idle, "--fail-on-generator-bound", "-q"]);
    assert.equal(held.code, 0, held.stderr);
    const bound = [idle[0], await judged(1, 0.99), idle[2]];
    const out = await mailvolley(["merge", ...bound, "--fail-on-generator-bound", "--json", "-"]);
    assert.equal(out.code, 99, out.stderr);
    assert.match(out.stderr, /--fail-on-generator-bound: .*shard 1\/3 main thread 99% busy/);
    assert.equal((JSON.parse(out.stdout) as Result).generator?.limitedBy, "generator");
  });

  test("compare shards merge mode by mode into one compare", async () => {
    const compareFiles: string[] = [];
    for (const i of [0, 1]) {
      const { runs } = buildCompareCommandConfig({ ...LOAD, messages: "20", shard: `${i}/2` });
      const results: Result[] = [];
      for (const run of runs) results.push((await executeRun(run)).result);
      compareFiles.push(
        file(`compare-${i}.json`, { schema: "mailvolley/compare@1", runs: results }),
      );
    }
    const out = await mailvolley(["merge", ...compareFiles, "--json", "-", "-q"]);
    assert.equal(out.code, 0, out.stderr);
    const doc = JSON.parse(out.stdout) as { runs: Result[] };
    assert.deepEqual(
      doc.runs.map((r) => [r.mode, r.messages.accepted, r.shards?.length]),
      [
        ["per-message", 20, 2],
        ["reuse", 20, 2],
      ],
    );
    refusal(
      await mailvolley(["merge", compareFiles[0], files[0]]),
      /merge: .*compare-0\.json is a compare/,
    );
  });
});
