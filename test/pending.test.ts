/**
 * PendingReplies, the ring of expectations a connection's replies are matched against in order
 * (RFC 2920 §3.1): first in, first answered; its room is a power of two, at least 8; it wraps
 * around without losing order; a push beyond its room throws and leaves the ring as it was.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Expect, PendingReplies } from "../src/client/pending.js";

/** Shifts everything left, returning the (kind, slot) pairs in the order they came out. */
function drain(ring: PendingReplies): [Expect, number][] {
  const out: [Expect, number][] = [];
  while (ring.count > 0) {
    out.push([ring.headKind, ring.headSlot]);
    ring.shift();
  }
  return out;
}

/** How many pushes fit before the ring throws. */
function room(ring: PendingReplies): number {
  let n = 0;
  for (;;) {
    try {
      ring.push(Expect.Rcpt, n & 0xff);
    } catch {
      return n;
    }
    n++;
  }
}

describe("PendingReplies", () => {
  test("replies are matched first in, first out, kind and slot together", () => {
    const ring = new PendingReplies(8);
    const pushed: [Expect, number][] = [
      [Expect.Mail, 0],
      [Expect.Rcpt, 0],
      [Expect.Rcpt, 0],
      [Expect.Data, 0],
      [Expect.Dot, 0],
      [Expect.Mail, 1],
      [Expect.Rcpt, 1],
    ];
    for (const [kind, slot] of pushed) ring.push(kind, slot);
    assert.equal(ring.count, pushed.length);
    assert.equal(ring.headKind, Expect.Mail);
    assert.equal(ring.headSlot, 0);
    assert.deepEqual(drain(ring), pushed);
    assert.equal(ring.count, 0);
  });

  test("room is the capacity rounded up to a power of two, never below 8", () => {
    const cases: [number, number][] = [
      [0, 8],
      [1, 8],
      [8, 8],
      [9, 16],
      [16, 16],
      [17, 32],
      [100, 128],
      [256, 256],
    ];
    for (const [capacity, expected] of cases) {
      assert.equal(room(new PendingReplies(capacity)), expected, `capacity ${capacity}`);
    }
  });

  test("a push beyond the room throws and leaves the ring as it was", () => {
    const ring = new PendingReplies(8);
    for (let i = 0; i < 8; i++) ring.push(Expect.Rcpt, i);
    assert.throws(() => ring.push(Expect.Dot, 99), /pending-reply ring overflow/);
    assert.equal(ring.count, 8);
    assert.deepEqual(
      drain(ring),
      Array.from({ length: 8 }, (_, i) => [Expect.Rcpt, i]),
    );
  });

  test("wrapping around the end keeps the order, full or not", () => {
    const ring = new PendingReplies(8);
    let next = 0;
    let expected = 0;
    // Uneven push and shift runs carry head and tail across the end many times over.
    for (let round = 0; round < 50; round++) {
      const pushes = 1 + ((round * 5) % 8);
      for (let i = 0; i < pushes && ring.count < 8; i++) ring.push(next % 14, next++ & 0xff);
      const shifts = 1 + ((round * 3) % ring.count);
      for (let i = 0; i < shifts; i++) {
        assert.equal(ring.headKind, expected % 14, `round ${round}`);
        assert.equal(ring.headSlot, expected++ & 0xff, `round ${round}`);
        ring.shift();
      }
    }
    assert.ok(next > 8 * 10, "the cursors went round many times");
    // Full after wrapping: all 8 places usable, still in order.
    drain(ring);
    for (let i = 0; i < 8; i++) ring.push(Expect.Mail, i);
    assert.throws(() => ring.push(Expect.Mail, 8), /overflow/);
    assert.deepEqual(
      drain(ring).map(([, slot]) => slot),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
  });

  test("clear() forgets everything in flight and the ring starts over", () => {
    const ring = new PendingReplies(8);
    for (let i = 0; i < 5; i++) ring.push(Expect.Rcpt, i);
    ring.shift();
    ring.clear();
    assert.equal(ring.count, 0);
    ring.push(Expect.Quit, 7);
    assert.equal(ring.count, 1);
    assert.equal(ring.headKind, Expect.Quit);
    assert.equal(ring.headSlot, 7);
    assert.equal(room(ring), 7);
  });
});
