/**
 * OpenWork, the open model's source of messages: arrivals are released at their scheduled
 * times into a bounded queue, numbered in the share's sequence space; an arrival the queue has
 * no room for, or one that waited longer than the bound, is dropped and counted; drain() leaves
 * what still waits (stopped), and `asked` is what the schedule holds within -d and -m. No test here measures time: each waits for the source's own `onAvailable`.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { NO_WORK, NOT_YET } from "../src/client/session.js";
import { arrivalsBefore } from "../src/run/schedule.js";
import { OpenWork, type OpenWorkOptions, StripedArrivals } from "../src/run/work.js";

const SPACE = { seqBase: 0, stride: 1 };

function open(options: Partial<OpenWorkOptions>, space = SPACE): OpenWork {
  return new OpenWork(
    {
      rate: [{ atMs: 0, value: 1000 }],
      messages: 10,
      durationMs: 0,
      maxDelayMs: 60_000,
      maxQueue: 1000,
      ...options,
    },
    space,
  );
}

/** Resolves at the source's next `onAvailable` call, recording what it said in `calls`. */
function available(work: OpenWork, calls?: number[]): Promise<void> {
  return new Promise((resolve) => {
    work.onAvailable = (waiting) => {
      calls?.push(waiting);
      resolve();
    };
  });
}

/** Takes every message as it becomes due until the source says NO_WORK. */
async function takeAll(work: OpenWork): Promise<{ seqs: number[]; intended: number[] }> {
  const seqs: number[] = [];
  const intended: number[] = [];
  for (;;) {
    const seq = work.take();
    if (seq === NO_WORK) return { seqs, intended };
    if (seq === NOT_YET) {
      await available(work);
      continue;
    }
    seqs.push(seq);
    intended.push(work.intendedMs);
  }
}

/** Intended times relative to the first, rounded to a microsecond. */
const offsets = (intended: number[]) =>
  intended.map((t) => Math.round((t - intended[0]) * 1000) / 1000);

describe("OpenWork", { timeout: 20_000 }, () => {
  test("hands out every arrival once, in order, numbered in the share's sequence space", async () => {
    const work = open({ messages: 5 }, { seqBase: 1, stride: 3 });
    const { seqs, intended } = await takeAll(work);
    assert.deepEqual(seqs, [1, 4, 7, 10, 13]);
    // The run's 1,000 a second is one arrival per millisecond; this share takes every third
    // (arrivals 1, 4, 7, …), each at its exact intended time in the run's schedule.
    assert.deepEqual(offsets(intended), [0, 3, 6, 9, 12]);
    assert.equal(work.dropped, 0);
    assert.equal(work.exhausted, true);
    assert.equal(work.take(), NO_WORK);
  });

  test("nothing due: take() says NOT_YET, and onAvailable comes when the next is", async () => {
    const work = open({ rate: [{ atMs: 0, value: 20 }], messages: 2 });
    // The first arrival is due at once; the second 50 ms later.
    assert.equal(work.take(), 0);
    const first = work.intendedMs;
    assert.equal(work.take(), NOT_YET);
    assert.equal(work.exhausted, false);
    await available(work);
    assert.equal(work.take(), 1);
    assert.equal(Math.round(work.intendedMs - first), 50);
    assert.equal(work.dropped, 0);
    work.close();
  });

  test("onAvailable says how many wait; a release the full queue dropped wakes nobody", async () => {
    // Arrival 0 is queued before the constructor returns; 1 and 2 find the queue full.
    const full = open({ messages: 3, maxQueue: 1 });
    const calls: number[] = [];
    full.onAvailable = (waiting) => calls.push(waiting);
    while (!calls.includes(Number.POSITIVE_INFINITY)) await available(full, calls);
    assert.deepEqual(calls, [Number.POSITIVE_INFINITY], "only the schedule's end, for everyone");
    assert.equal(full.dropped, 2);

    // Nobody takes: each release says how many now wait, never more than were released.
    const queued = open({ messages: 4 });
    const counts: number[] = [];
    queued.onAvailable = (waiting) => counts.push(waiting);
    while (!counts.includes(Number.POSITIVE_INFINITY)) await available(queued, counts);
    const finite = counts.filter(Number.isFinite);
    assert.deepEqual(
      finite,
      [...finite].sort((a, b) => a - b),
      `${counts}`,
    );
    assert.ok(
      finite.every((n) => n >= 2 && n <= 4),
      `${counts}`,
    );
    assert.equal(counts.at(-1), Number.POSITIVE_INFINITY);
    assert.equal(queued.take(), 0);
  });

  test("--duration ends the schedule: only the arrivals due before it", async () => {
    const work = open({ messages: Number.POSITIVE_INFINITY, durationMs: 5 });
    const { seqs, intended } = await takeAll(work);
    assert.deepEqual(seqs, [0, 1, 2, 3, 4]);
    assert.deepEqual(offsets(intended), [0, 1, 2, 3, 4]);
    assert.equal(work.dropped, 0);
  });

  test("a full queue drops the newcomers and counts them; the earliest keep their place", async () => {
    const work = open({ messages: 10, maxQueue: 3 });
    // Nobody takes: wait until every arrival has been released (7 found the queue full).
    while (work.dropped < 7) await available(work);
    const { seqs, intended } = await takeAll(work);
    assert.deepEqual(seqs, [0, 1, 2]);
    assert.deepEqual(offsets(intended), [0, 1, 2]);
    assert.equal(work.dropped, 7);
    assert.equal(seqs.length + work.dropped, 10);
  });

  test("an arrival that waited longer than --max-delay is dropped when a session asks", async () => {
    // One message, due at the start: released and scheduling done before the constructor returns.
    const bounded = open({ messages: 1, maxDelayMs: 10 });
    const unbounded = open({ messages: 1 });
    await sleep(50);
    assert.equal(bounded.take(), NO_WORK);
    assert.equal(bounded.dropped, 1);
    assert.equal(bounded.exhausted, true);
    // The same wait without the bound: the arrival is still there, with its intended time.
    assert.equal(unbounded.take(), 0);
    assert.equal(unbounded.dropped, 0);
  });

  test("drain(): what still waits is left (stopped), neither dropped nor lost; then NO_WORK", () => {
    const work = open({ messages: Number.POSITIVE_INFINITY });
    // Arrival 0 is due at the start, so it is queued before the constructor returns.
    let woken = 0;
    work.onAvailable = () => woken++;
    work.drain();
    assert.equal(
      work.dropped,
      0,
      "told to stop: the queued arrival was not dropped for want of a session",
    );
    assert.equal(work.left, 1);
    assert.equal(woken, 1);
    assert.equal(work.exhausted, true);
    assert.equal(work.take(), NO_WORK);
    work.drain();
    assert.equal(work.left, 1, "a second drain leaves nothing more");
  });

  test("asked: the schedule's arrivals within -d (and -m), the stripes adding up to the run's", () => {
    assert.equal(arrivalsBefore([{ atMs: 0, value: 10 }], 4000), 40);
    assert.equal(arrivalsBefore([{ atMs: 0, value: 20 }], 6000), 120);
    // A ramp 20 → 400/s over 10 s: (20 + 400) / 2 × 10 = 2,100 arrivals, the next is due at 10 s, outside.
    const ramp = [
      { atMs: 0, value: 20 },
      { atMs: 10_000, value: 400 },
    ];
    assert.equal(arrivalsBefore(ramp, 10_000), 2100);
    assert.equal(
      arrivalsBefore([{ atMs: 0, value: 10 }], Number.POSITIVE_INFINITY),
      Number.POSITIVE_INFINITY,
    );
    for (const stride of [1, 2, 3, 7]) {
      const shares = Array.from({ length: stride }, (_, seqBase) =>
        new StripedArrivals(ramp, { seqBase, stride }).arrivalsBefore(10_000),
      );
      assert.equal(
        shares.reduce((a, b) => a + b, 0),
        2100,
        `${stride} stripes`,
      );
    }
    const work = open({
      messages: Number.POSITIVE_INFINITY,
      durationMs: 4000,
      rate: [{ atMs: 0, value: 10 }],
    });
    work.drain();
    assert.equal(work.asked, 40);
    assert.equal(work.left + work.dropped, 40, "nothing taken: all of it left");
    const capped = open({ messages: 25, durationMs: 4000, rate: [{ atMs: 0, value: 10 }] });
    capped.drain();
    assert.equal(capped.asked, 25, "-m below what -d holds");
  });
});
