/** --shard and --start-at parsing, and how shards and their workers split a run's load. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  checkShardable,
  parseShard,
  parseStartAt,
  shardCount,
  stripeCount,
} from "../src/config/shard.js";
import { ArrivalSchedule } from "../src/run/schedule.js";
import {
  composeSeqSpace,
  StripedArrivals,
  shardShare,
  threadShares,
  WHOLE_RUN,
} from "../src/run/thread-plan.js";
import { splitOverThreads } from "../src/run/threads.js";
import { configError } from "./helpers/config-error.js";

describe("--shard", () => {
  test("I/N counts from 0", () => {
    assert.deepEqual(parseShard("0/4", {}), { index: 0, count: 4 });
    assert.deepEqual(parseShard(" 3/4 ", {}), { index: 3, count: 4 });
    assert.deepEqual(parseShard("0/1", {}), { index: 0, count: 1 });
  });

  test("auto/N takes the index from JOB_COMPLETION_INDEX", () => {
    assert.deepEqual(parseShard("auto/8", { JOB_COMPLETION_INDEX: "5" }), { index: 5, count: 8 });
    assert.deepEqual(parseShard("auto/8", { JOB_COMPLETION_INDEX: "0" }), { index: 0, count: 8 });
  });

  test("a missing or bad index names --shard and the fix", () => {
    const unset = configError(() => parseShard("auto/4", {}));
    assert.match(
      unset,
      /^--shard: auto\/4 takes the shard from JOB_COMPLETION_INDEX, which is not set/,
    );
    assert.match(unset, /Indexed Job or give the shard, e\.g\. --shard 0\/4$/);
    assert.match(
      configError(() => parseShard("auto/4", { JOB_COMPLETION_INDEX: "" })),
      /not set/,
    );
    assert.match(
      configError(() => parseShard("auto/4", { JOB_COMPLETION_INDEX: "two" })),
      /^--shard: JOB_COMPLETION_INDEX="two" is not a shard index/,
    );
    assert.match(
      configError(() => parseShard("auto/4", { JOB_COMPLETION_INDEX: "4" })),
      /^--shard: JOB_COMPLETION_INDEX 4 is out of range for 4 shards; give 0 to 3/,
    );
    assert.match(
      configError(() => parseShard("4/4", {})),
      /shard 4 is out of range .* count from 0/,
    );
    assert.match(
      configError(() => parseShard("0/0", {})),
      /0 shards is out of range/,
    );
    for (const bad of ["1", "1/", "/4", "-1/4", "1.5/4", "auto", "Auto/4", "1/4/8"]) {
      assert.match(
        configError(() => parseShard(bad, {})),
        /is not I\/N or auto\/N/,
        bad,
      );
    }
  });

  test("every shard gets a session and a message, or the split is refused", () => {
    checkShardable({ index: 0, count: 4 }, 4, 4);
    checkShardable({ index: 0, count: 4 }, 4, Number.POSITIVE_INFINITY);
    assert.match(
      configError(() => checkShardable({ index: 0, count: 4 }, 3, 100)),
      /at least 4 sessions \(-s 3\)/,
    );
    assert.match(
      configError(() => checkShardable({ index: 0, count: 4 }, 10, 3)),
      /at least 4 messages \(-m 3\)/,
    );
  });
});

describe("--start-at", () => {
  test("epoch seconds, whole or fractional", () => {
    assert.equal(parseStartAt("1767225600"), 1_767_225_600_000);
    assert.equal(parseStartAt(1767225600.25), 1_767_225_600_250);
  });

  test("ISO 8601 with a zone", () => {
    assert.equal(parseStartAt("2026-01-01T00:00:00Z"), 1_767_225_600_000);
    assert.equal(parseStartAt("2026-01-01T01:00:00+01:00"), 1_767_225_600_000);
    assert.equal(parseStartAt("2026-01-01T01:00+0100"), 1_767_225_600_000);
    assert.equal(parseStartAt("2025-12-31T19:00:00.500-05:00"), 1_767_225_600_500);
  });

  test("refuses a time without a zone, a calendar slip, milliseconds and words", () => {
    assert.match(
      configError(() => parseStartAt("2026-01-01T00:00:00")),
      /has no zone; give epoch seconds or ISO 8601/,
    );
    assert.match(
      configError(() => parseStartAt("2026-02-30T00:00:00Z")),
      /is not a calendar time/,
    );
    assert.match(
      configError(() => parseStartAt("2026-01-01T24:00:00Z")),
      /is not a calendar time/,
    );
    assert.match(
      configError(() => parseStartAt("1767225600000")),
      /looks like milliseconds/,
    );
    assert.match(
      configError(() => parseStartAt("now")),
      /^--start-at: "now" is not a time/,
    );
    assert.match(
      configError(() => parseStartAt("2026-01-01")),
      /is not a time/,
    );
  });
});

describe("splitting counts", () => {
  test("shardCount is k6's segment split: parts add up, spread like round()", () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => shardCount(10, i, 4)),
      [3, 2, 3, 2],
    );
    assert.deepEqual(
      [0, 1, 2].map((i) => shardCount(100, i, 3)),
      [33, 34, 33],
    );
    for (const v of [1, 7, 10, 99, 1000, 12_345]) {
      for (const n of [1, 2, 3, 4, 7, 16]) {
        let sum = 0;
        for (let i = 0; i < n; i++) {
          const part = shardCount(v, i, n);
          assert.ok(part >= Math.floor(v / n) && part <= Math.ceil(v / n), `${v}/${n} part ${i}`);
          sum += part;
        }
        assert.equal(sum, v, `${v} over ${n}`);
      }
    }
  });

  test("an infinite count stays infinite on every shard", () => {
    assert.equal(shardCount(Number.POSITIVE_INFINITY, 2, 4), Number.POSITIVE_INFINITY);
    assert.equal(stripeCount(Number.POSITIVE_INFINITY, 2, 4), Number.POSITIVE_INFINITY);
  });

  test("stripeCount counts the messages k < v with k mod n = i", () => {
    for (const v of [1, 9, 10, 11, 100]) {
      for (const n of [1, 3, 4]) {
        for (let i = 0; i < n; i++) {
          let k = 0;
          for (let m = 0; m < v; m++) if (m % n === i) k++;
          assert.equal(stripeCount(v, i, n), k, `${v} ${i}/${n}`);
        }
      }
    }
  });

  test("a machine share: its sessions, its stripe, 1/N of the rate", () => {
    assert.deepEqual(shardShare(10, 10, { index: 1, count: 4 }), {
      sessions: 2,
      messages: 3,
      seqBase: 1,
      stride: 4,
      rateShare: 0.25,
    });
  });

  test("without --shard the plan is today's worker split", () => {
    assert.deepEqual(threadShares(10, 1000, WHOLE_RUN, 3), splitOverThreads(10, 1000, 3));
  });

  test("composing sequence spaces numbers the inner space's numbers in the outer", () => {
    const outer = { seqBase: 2, stride: 5 };
    const inner = { seqBase: 1, stride: 3 };
    const composed = composeSeqSpace(outer, inner);
    for (let j = 0; j < 20; j++) {
      const local = inner.seqBase + inner.stride * j;
      assert.equal(composed.seqBase + composed.stride * j, outer.seqBase + outer.stride * local);
    }
  });
});

/** Every sequence number a share sends: seqBase + stride·j for j < messages. */
function numbersOf(share: { seqBase: number; stride: number; messages: number }): number[] {
  return Array.from({ length: share.messages }, (_, j) => share.seqBase + share.stride * j);
}

describe("shards × workers", () => {
  const cases: [sessions: number, messages: number, shards: number, workers: number][] = [
    [10, 1000, 4, 3],
    [7, 101, 3, 2],
    [4, 4, 4, 8],
    [100, 9_999, 7, 5],
    [16, 17, 2, 16],
    [5, 23, 5, 1],
  ];
  for (const [sessions, messages, shards, workers] of cases) {
    test(`-s ${sessions} -m ${messages} over ${shards} shards of ${workers} workers`, () => {
      const seen = new Uint8Array(messages);
      let sessionsTotal = 0;
      for (let i = 0; i < shards; i++) {
        const plan = threadShares(sessions, messages, { index: i, count: shards }, workers);
        let rate = 0;
        for (const share of plan) {
          assert.ok(share.sessions >= 1 && share.messages >= 1, "no idle share");
          sessionsTotal += share.sessions;
          rate += share.rateShare;
          for (const seq of numbersOf(share)) {
            assert.ok(seq >= 0 && seq < messages, `${seq} in range`);
            assert.equal(seq % shards, i, `${seq} is in shard ${i}'s stripe`);
            assert.equal(seen[seq], 0, `${seq} sent once`);
            seen[seq] = 1;
          }
        }
        assert.ok(Math.abs(rate - 1 / shards) < 1e-12, "the workers offer the shard's rate");
      }
      assert.equal(seen.indexOf(0), -1, "every number 0 … messages−1 is sent");
      assert.equal(sessionsTotal, sessions, "the sessions add up");
    });
  }

  test("worker w of shard i sends i + N·(w + W·j)", () => {
    const [n, w] = [3, 2];
    const plan = threadShares(6, 60, { index: 2, count: n }, w);
    for (const [worker, share] of plan.entries()) {
      assert.deepEqual(
        numbersOf(share).slice(0, 3),
        [0, 1, 2].map((j) => 2 + n * (worker + w * j)),
      );
    }
  });
});

describe("striped arrivals", () => {
  test("the union over shards and workers is the unsharded schedule, time for time", () => {
    const ramp = [
      { atMs: 0, value: 10 },
      { atMs: 2000, value: 100 },
      { atMs: 3000, value: 100 },
    ];
    const messages = 250;
    const whole = new ArrivalSchedule(ramp);
    const expected = Array.from({ length: messages }, (_, k) => whole.arrivalTime(k));
    const got = new Map<number, number>();
    for (let i = 0; i < 3; i++) {
      for (const share of threadShares(9, messages, { index: i, count: 3 }, 2)) {
        const arrivals = new StripedArrivals(ramp, share);
        let previous = -1;
        for (let j = 0; j < share.messages; j++) {
          const k = arrivals.arrivalIndex(j);
          const at = arrivals.arrivalTime(j);
          assert.ok(at >= previous, "a share's arrivals come in order");
          previous = at;
          assert.ok(!got.has(k), `arrival ${k} once`);
          got.set(k, at);
        }
      }
    }
    assert.deepEqual(
      [...got].sort((a, b) => a[0] - b[0]).map(([, at]) => at),
      expected,
    );
  });

  test("a constant rate: shard i's first arrival is the run's i-th, not time 0", () => {
    const arrivals = new StripedArrivals([{ atMs: 0, value: 100 }], { seqBase: 3, stride: 4 });
    assert.equal(arrivals.arrivalTime(0), 30);
    assert.equal(arrivals.arrivalTime(1), 70);
  });
});
