/**
 * WakeQueue, what the open model keeps asleep: idle sessions and parked slots, woken oldest
 * first; a removal is skipped when the queue reaches it, and an item is queued once.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { WakeQueue } from "../src/run/wake-queue.js";

function drain<T>(queue: WakeQueue<T>): T[] {
  const out: T[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(item);
  return out;
}

describe("WakeQueue", () => {
  test("oldest first; an item added twice keeps its first place", () => {
    const queue = new WakeQueue<string>();
    for (const s of ["a", "b", "c", "a"]) queue.add(s);
    assert.equal(queue.size, 3);
    assert.deepEqual([...queue.values()], ["a", "b", "c"]);
    assert.deepEqual(drain(queue), ["a", "b", "c"]);
    assert.equal(queue.size, 0);
    assert.equal(queue.shift(), undefined);
  });

  test("a removed item is skipped; added again, it queues at the tail", () => {
    const queue = new WakeQueue<number>();
    for (const n of [1, 2, 3, 4]) queue.add(n);
    assert.equal(queue.delete(2), true);
    assert.equal(queue.delete(2), false, "removed already");
    queue.add(2);
    assert.equal(queue.size, 4);
    assert.deepEqual(drain(queue), [1, 3, 4, 2]);
  });

  test("sleepers woken, leaving and coming back in any order: each woken once while queued", () => {
    const queue = new WakeQueue<number>();
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
});
