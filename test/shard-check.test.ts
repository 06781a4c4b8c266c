/** The checks before shards merge: each refusal, one line naming the problem and the files. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  checkShards,
  describeShardStarts,
  ShardCheckError,
  type ShardHeader,
  type ShardInput,
} from "../src/result/shard-check.js";

const HASH = `sha256:${"ab".repeat(32)}`;
const START = Date.parse("2026-01-01T00:00:00Z");

function shard(index: number, count: number, extra: Partial<ShardHeader> = {}): ShardHeader {
  const late = extra.startLatenessMs ?? 10 * index;
  return {
    index,
    count,
    configHash: HASH,
    host: `node-${index}`,
    clockStart: new Date(START + late).toISOString(),
    clockEnd: new Date(START + 60_000).toISOString(),
    startAt: new Date(START).toISOString(),
    startLatenessMs: late,
    ...extra,
  };
}

function run(count: number): ShardInput[] {
  return Array.from({ length: count }, (_, i) => ({
    file: `shard-${i}.json`,
    mode: "reuse",
    shard: shard(i, count),
  }));
}

/** The refusal's message, checked to be one line. */
function refusal(inputs: ShardInput[]): string {
  try {
    checkShards(inputs);
  } catch (error) {
    assert.ok(error instanceof ShardCheckError, `a ShardCheckError, not ${error}`);
    assert.ok(!error.message.includes("\n"), "one line");
    return error.message;
  }
  assert.fail("merged without complaint");
}

describe("refusals", () => {
  test("a missing shard, naming the shard and the files given", () => {
    const inputs = run(4).filter((i) => i.shard?.index !== 2);
    assert.equal(
      refusal(inputs),
      "shard 2/4 missing (given: shard-0.json 0/4, shard-1.json 1/4, shard-3.json 3/4)",
    );
    assert.match(refusal(run(4).slice(0, 2)), /^shards 2\/4, 3\/4 missing/);
  });

  test("a duplicated shard, naming both files", () => {
    const inputs = [...run(3), { file: "again.json", mode: "reuse" as const, shard: shard(1, 3) }];
    assert.equal(refusal(inputs), "shard 1/3 twice: shard-1.json, again.json");
  });

  test("shards of different splits", () => {
    const inputs = run(2);
    inputs[1] = { ...inputs[1], shard: shard(1, 3) };
    assert.equal(
      refusal(inputs),
      "shards of different splits: shard-0.json split 2 ways; shard-1.json split 3 ways",
    );
  });

  test("a configuration hash that differs", () => {
    const inputs = run(3);
    inputs[2] = { ...inputs[2], shard: shard(2, 3, { configHash: `sha256:${"cd".repeat(32)}` }) };
    assert.equal(
      refusal(inputs),
      "configuration differs: shard-0.json, shard-1.json ran abababababab; shard-2.json ran cdcdcdcdcdcd; " +
        "the options that define the load must match",
    );
  });

  test("mixed modes", () => {
    const inputs = run(2);
    inputs[0] = { ...inputs[0], mode: "per-message" };
    assert.equal(
      refusal(inputs),
      "mixed modes: shard-0.json ran per-message; shard-1.json ran reuse",
    );
  });

  test("a result without a shard header among shards", () => {
    const inputs: ShardInput[] = [...run(2), { file: "by-hand.json", mode: "reuse" }];
    assert.equal(
      refusal(inputs),
      "not a shard (ran without --shard): by-hand.json; merge shards of one run",
    );
  });
});

describe("summary", () => {
  test("all shards present: how late each started, in index order", () => {
    const inputs = run(4).reverse();
    const summary = checkShards(inputs);
    assert.equal(summary.count, 4);
    assert.deepEqual(
      summary.shards.map((s) => [s.index, s.file, s.startLatenessMs]),
      [0, 1, 2, 3].map((i) => [i, `shard-${i}.json`, 10 * i]),
    );
    assert.equal(summary.latest?.index, 3);
    assert.equal(summary.startSpreadMs, 30);
    assert.equal(summary.disjoint, null);
    assert.equal(
      describeShardStarts(summary),
      "4 shards started 0–30 ms after --start-at (latest: shard 3 on node-3)",
    );
  });

  test("results split by hand (no headers) pass unchecked", () => {
    const summary = checkShards([
      { file: "a.json", mode: "reuse" },
      { file: "b.json", mode: "reuse" },
    ]);
    assert.equal(summary.count, 0);
    assert.equal(describeShardStarts(summary), "");
  });

  test("a shard that began after another ended is named", () => {
    const inputs = run(2);
    inputs[1] = {
      ...inputs[1],
      shard: shard(1, 2, {
        startLatenessMs: 120_000,
        clockStart: new Date(START + 120_000).toISOString(),
        clockEnd: new Date(START + 180_000).toISOString(),
      }),
    };
    const summary = checkShards(inputs);
    assert.equal(summary.disjoint?.late.index, 1);
    assert.equal(summary.disjoint?.early.index, 0);
    assert.match(
      describeShardStarts(summary),
      /shard 1 \(shard-1\.json\) started after shard 0 \(shard-0\.json\) had ended/,
    );
  });

  test("without --start-at: the spread of the start clocks", () => {
    const inputs = run(2).map((i) => ({
      ...i,
      shard: { ...(i.shard as ShardHeader), startAt: null, startLatenessMs: null },
    }));
    const summary = checkShards(inputs);
    assert.equal(summary.latest, null);
    assert.equal(describeShardStarts(summary), "2 shards started within 10 ms");
  });
});
