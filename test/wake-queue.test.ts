/**
 * WakeQueue, what the open model keeps asleep: idle sessions and parked slots by their slot's
 * index, woken oldest first; a removal is skipped when the queue reaches it, and an index is
 * queued once.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { WakeQueue } from "../src/run/wake-queue.js";

function drain(queue: WakeQueue): number[] {
  const out: number[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(item);
  return out;
}

describe("WakeQueue", () => {
  test("oldest first; an item added twice keeps its first place", () => {
    const queue = new WakeQueue(8);
    for (const n of [5, 0, 7, 5]) queue.add(n);
    assert.equal(queue.size, 3);
    assert.ok(queue.values().includes(7) && !queue.values().includes(1));
    assert.deepEqual(queue.values(), [5, 0, 7]);
    assert.deepEqual(drain(queue), [5, 0, 7]);
    assert.equal(queue.size, 0);
    assert.equal(queue.shift(), undefined);
  });

  test("a removed item is skipped; added again, it queues at the tail", () => {
    const queue = new WakeQueue(5);
    for (const n of [1, 2, 3, 4]) queue.add(n);
    assert.equal(queue.delete(2), true);
    assert.equal(queue.delete(2), false, "removed already");
    queue.add(2);
    assert.equal(queue.size, 4);
    assert.deepEqual(drain(queue), [1, 3, 4, 2]);
  });

  test("sleepers woken, leaving and coming back in any order: each woken once while queued", () => {
    const queue = new WakeQueue(500);
    const asleep = new Set<number>(); // the model: what is queued now
    let seed = 38;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 20_000; step++) {
      const op = next(3);
      const n = next(500);
      if (op === 0) {
        queue.add(n);
        asleep.add(n);
      } else if (op === 1) {
        assert.equal(queue.delete(n), asleep.delete(n));
      } else {
        const woken = queue.shift();
        if (woken === undefined) assert.equal(asleep.size, 0);
        else assert.ok(asleep.delete(woken), `${woken} was not asleep`);
      }
      assert.equal(queue.size, asleep.size);
    }
    assert.deepEqual(new Set(drain(queue)), asleep);
  });

  test("an index outside the queue is refused, not lost", () => {
    const queue = new WakeQueue(3);
    assert.throws(() => queue.add(3), /3 is not an index below 3/);
    assert.throws(() => queue.add(-1), RangeError);
    assert.equal(queue.delete(9), false);
    assert.equal(queue.size, 0);
  });

  test("thousands queued and removed out of order keep their order through the compaction", () => {
    const queue = new WakeQueue(3000);
    const all = Array.from({ length: 3000 }, (_, i) => i);
    const kept = all.filter((i) => i % 3 === 0);
    const others = all.filter((i) => i % 3 !== 0);
    for (const i of all) queue.add(i);
    for (const i of others) queue.delete(i); // 1,000 live among 2,000 dead entries
    for (const i of others) queue.add(i); // the first of these compacts the queue
    assert.deepEqual(queue.values(), [...kept, ...others]);
    assert.deepEqual(drain(queue).slice(0, 1500), [...kept, ...others].slice(0, 1500));
  });
});
