/**
 * TransactionRing on its own: which message is in which slot, and every message settled exactly
 * once (attempted = accepted + rejected + failed), with the deciding reply in the error table.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TransactionRing, Verdict } from "../src/client/transactions.js";
import type { MessageClass } from "../src/messages/message-wire.js";
import { RunStats } from "../src/stats/collector.js";

const bulk: MessageClass = { index: 0, recipients: 3 };
const alerts: MessageClass = { index: 1, recipients: 1 };

function ring(slots = 4): { txs: TransactionRing; stats: RunStats } {
  const stats = new RunStats(["bulk", "alerts"]);
  const txs = new TransactionRing(stats, slots);
  txs.connectionOpened(1);
  return { txs, stats };
}

function settledTotal(stats: RunStats): number {
  const { accepted, rejected, failed } = stats.counters;
  return accepted + rejected + failed;
}

describe("TransactionRing slots", () => {
  test("start takes the slot nextSlot names, in ring order, wrapping round", () => {
    const { txs } = ring(3);
    const taken: number[] = [];
    for (let seq = 10; seq < 17; seq++) {
      const slot = txs.nextSlot;
      const tx = txs.start(seq, bulk, 0, Number.NaN);
      assert.equal(tx.slot, slot);
      assert.equal(txs.slots[slot], tx);
      assert.equal(tx.seq, seq, "the slot names the message it carries");
      taken.push(slot);
    }
    assert.deepEqual(taken, [0, 1, 2, 0, 1, 2, 0]);
  });

  test("a message's class and recipients come from the class it was started with", () => {
    const { txs } = ring();
    const a = txs.start(0, bulk, 0, Number.NaN);
    const b = txs.start(1, alerts, 0, Number.NaN);
    assert.deepEqual([a.cls, a.recipients, b.cls, b.recipients], [0, 3, 1, 1]);
  });

  test("a reused slot starts clean", () => {
    const { txs } = ring(1);
    const first = txs.start(0, bulk, 5, Number.NaN);
    first.rcptReplies = 3;
    first.rcptOk = 2;
    first.dotReplies = 2;
    first.dotOk = 1;
    first.voided = true;
    txs.settle(first, "accepted", 9);
    const second = txs.start(1, alerts, 20, Number.NaN);
    assert.equal(second, first, "one slot, one record");
    assert.deepEqual(
      [second.seq, second.rcptReplies, second.rcptOk, second.dotReplies, second.dotOk],
      [1, 0, 0, 0, 0],
    );
    assert.equal(second.voided, false);
    assert.equal(second.verdict, Verdict.Open);
    assert.equal(second.startMs, 20);
  });

  test("intended start: given in the open model, the actual start in the closed one", () => {
    const { txs } = ring();
    assert.equal(txs.start(0, bulk, 50, Number.NaN).intendedMs, 50);
    assert.equal(txs.start(1, bulk, 50, 42).intendedMs, 42);
  });
});

describe("TransactionRing accounting", () => {
  test("start counts the message and its recipients attempted", () => {
    const { txs, stats } = ring();
    txs.start(0, bulk, 0, Number.NaN);
    txs.start(1, alerts, 0, Number.NaN);
    assert.equal(stats.counters.attempted, 2);
    assert.equal(stats.counters.rcptAttempted, 4);
  });

  test("settle counts the outcome overall and for the message's class", () => {
    const { txs, stats } = ring();
    const a = txs.start(0, bulk, 0, Number.NaN);
    const b = txs.start(1, alerts, 0, Number.NaN);
    txs.settle(a, "accepted", 3, 3);
    txs.settle(b, "rejected", 4);
    assert.equal(a.verdict, Verdict.Counted);
    assert.deepEqual([stats.counters.accepted, stats.counters.rejected], [1, 1]);
    const [bulkRow, alertsRow] = stats.snapshot().classes;
    assert.deepEqual([bulkRow.accepted, bulkRow.rejected], [1, 0]);
    assert.deepEqual([alertsRow.accepted, alertsRow.rejected], [0, 1]);
  });

  test("reject counts the deciding reply once; a settled message is not counted again", () => {
    const { txs, stats } = ring();
    const tx = txs.start(0, bulk, 0, Number.NaN);
    txs.reject(tx, 550, ["5.7.1 relaying denied", "see the policy"], "rcpt", 2);
    txs.reject(tx, 554, ["5.0.0 again"], "dot", 3);
    txs.failOpen(4, 0);
    assert.equal(stats.counters.rejected, 1);
    assert.equal(stats.counters.failed, 0);
    const errors = stats.snapshot().errors;
    assert.equal(errors.length, 1);
    assert.deepEqual(
      [errors[0].reply, errors[0].enhanced, errors[0].phase, errors[0].text],
      ["550", "5.7.1", "rcpt", "relaying denied see the policy"],
    );
  });

  test("failOpen fails only what is still open, and openCount follows", () => {
    const { txs, stats } = ring();
    const done = txs.start(0, bulk, 0, Number.NaN);
    txs.start(1, bulk, 0, Number.NaN);
    txs.start(2, alerts, 0, Number.NaN);
    assert.equal(txs.openCount(), 3);
    txs.settle(done, "accepted", 1);
    assert.equal(txs.openCount(), 2);
    txs.failOpen(5, 0);
    assert.equal(txs.openCount(), 0);
    assert.deepEqual([stats.counters.accepted, stats.counters.failed], [1, 2]);
    txs.failOpen(6, 0);
    assert.equal(stats.counters.failed, 2, "failing twice counts nothing more");
  });

  test("failOpen: a message whose data the kernel took is unconfirmed, never failed", () => {
    const { txs, stats } = ring(4);
    const sent = txs.start(0, bulk, 0, Number.NaN);
    const buffered = txs.start(1, bulk, 0, Number.NaN);
    txs.start(2, bulk, 0, Number.NaN); // its envelope only: no data written
    sent.dataWrite = 3;
    buffered.dataWrite = 4; // written, but the socket still held it
    txs.failOpen(5, 3);
    assert.deepEqual([stats.counters.unconfirmed, stats.counters.failed], [1, 2]);
  });

  test("failOpen after a 421: what is still open failed, whatever was written", () => {
    const { txs, stats } = ring();
    txs.start(0, bulk, 0, Number.NaN).dataWrite = 1;
    txs.endedByReply();
    txs.failOpen(5, 1);
    assert.deepEqual([stats.counters.unconfirmed, stats.counters.failed], [0, 1]);
  });

  test("every message started is settled exactly once", () => {
    const { txs, stats } = ring(3);
    const outcomes = ["accepted", "rejected", "accepted", "failed"] as const;
    for (let seq = 0; seq < 40; seq++) {
      const tx = txs.start(seq, seq % 3 === 0 ? alerts : bulk, seq, Number.NaN);
      if (seq >= 38) continue; // still in flight when the connection goes
      txs.settle(tx, outcomes[seq % outcomes.length], seq);
      if (seq % 7 === 6) txs.reject(tx, 550, null, "dot", seq); // a late refusal: moot
    }
    txs.failOpen(100, 0);
    assert.equal(stats.counters.attempted, 40);
    assert.equal(settledTotal(stats), 40);
    assert.equal(stats.counters.failed, 9 + 2);
  });
});
