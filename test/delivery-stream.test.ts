/**
 * The streaming delivery join: accept records and arrivals in any order, messages released once
 * they have fully arrived, later copies and notices of released messages still counted, and
 * the same figures as the join of whole runs (report --arrivals) for the same events.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type AcceptChunk, AcceptLedger } from "../src/delivery/accept-ledger.js";
import { ArrivalLog } from "../src/delivery/arrival-store.js";
import { joinDeliveries } from "../src/delivery/delivery-verdict.js";
import { DeliveryJoin } from "../src/delivery/join.js";
import type { DeliveryResult } from "../src/result/delivery-result.js";

const RUN = "0123456789ab";
const T0 = 1_000_000;
/** Three recipients for numbers divisible by 7, else one; class by parity. */
const shape = {
  classOf: (seq: number) => seq % 2,
  recipientsOf: (seq: number) => (seq % 7 === 0 ? 3 : 1),
};

function newJoin(recent?: number): DeliveryJoin {
  const join = new DeliveryJoin({ classNames: ["even", "odd"], recent });
  join.addRun(RUN, shape);
  return join;
}

const TIMED_OUT = { end: "timedOut", waitedMs: 1000, missing: 1 } as const;

function finish(join: DeliveryJoin, drainTimedOut = false): DeliveryResult {
  return join.finish({
    receiver: "test",
    counts: { foreign: 0, notices: 0, noticesUnjoined: 0 },
    firstConnectMs: T0,
    drain: drainTimedOut ? TIMED_OUT : undefined,
  });
}

/** `n` recipients as the receiver sees them. */
const rcptsOf = (n: number) => Array.from({ length: n }, (_, i) => `${i}.sink@localhost`);

/** Accepted at T0 + 10 + seq, intended at T0 + seq, queue id Q<seq>. */
const accept = (join: DeliveryJoin, seq: number) =>
  join.accept(RUN, seq, T0 + seq, T0 + 10 + seq, `Q${seq}`);
const copy = (join: DeliveryJoin, seq: number, atMs: number, rcpts = 1, late = false) =>
  join.copy(RUN, seq, "traceHeader", rcptsOf(rcpts), atMs, late);

describe("the streaming join", () => {
  test("an arrival before its accept record waits for it, then both are released", () => {
    const join = newJoin(0);
    assert.equal(copy(join, 1, T0 + 50), true, "the first copy is the message's first arrival");
    assert.equal(join.held, 1, "the arrival waits for its accept record");
    accept(join, 1);
    assert.equal(join.held, 0, "fully arrived: folded and released");
    const d = finish(join);
    assert.deepEqual([d.accepted, d.delivered, d.unconfirmed], [1, 1, 0]);
    assert.equal(d.endToEndMs.count, 1);
    assert.equal(d.endToEndMs.max, 49);
  });

  test("a copy after the message was released makes it duplicated, its extra undone", () => {
    const join = newJoin(0);
    accept(join, 1);
    accept(join, 3);
    copy(join, 1, T0 + 100);
    copy(join, 3, T0 + 100, 2); // one copy for two recipients: one extra
    assert.equal(join.held, 0);
    assert.equal(copy(join, 1, T0 + 5000), false, "not a first arrival");
    copy(join, 3, T0 + 5000);
    copy(join, 3, T0 + 6000);
    const d = finish(join);
    assert.deepEqual([d.delivered, d.duplicated, d.extra], [0, 2, 0]);
    assert.equal(d.classes.odd.duplicated, 2);
    assert.deepEqual(
      d.firstDuplicated.map((m) => [m.seq, m.queueId]),
      [
        [1, ""],
        [3, ""],
      ],
      "released: listed without their queue ids",
    );
    assert.equal(d.endToEndMs.count, 2, "the first arrivals' latencies are kept");
  });

  test("a copy while the message waits in the ring is joined whole", () => {
    const join = newJoin();
    accept(join, 1);
    copy(join, 1, T0 + 100);
    copy(join, 1, T0 + 5000);
    const d = finish(join);
    assert.equal(d.duplicated, 1);
    assert.deepEqual(d.firstDuplicated[0], {
      seq: 1,
      id: `${RUN}.1`,
      className: "odd",
      queueId: "Q1",
    });
    assert.equal(d.byState.duplicated?.endToEndMs.count, 1);
    assert.equal(d.byState.delivered, undefined);
  });

  test("some recipients missing: held until the end, then partial", () => {
    const join = newJoin(0);
    accept(join, 7); // three recipients
    copy(join, 7, T0 + 100, 2);
    assert.equal(join.held, 1, "a recipient may still come");
    const d = finish(join, true);
    assert.deepEqual([d.partial, d.delivered, d.lost], [1, 0, 0]);
    assert.equal(join.held, 0);
  });

  test("a notice bounces its message, before or after its copies were folded", () => {
    const join = newJoin(0);
    accept(join, 1);
    accept(join, 2);
    assert.equal(join.notice(RUN, 2, "5.1.1", [], T0 + 200), true, "a notice accounts for it");
    // 1 waits for its copy; 2 bounced, every recipient given up on: folded.
    assert.equal(join.held, 1);
    copy(join, 1, T0 + 100);
    assert.equal(join.notice(RUN, 1, "5.0.0", ["0.sink@localhost"], T0 + 300), false);
    const d = finish(join);
    assert.deepEqual([d.bounced, d.delivered], [2, 0]);
    assert.equal(d.classes.odd.bounced, 1);
    assert.equal(d.classes.even.bounced, 1);
  });

  test("per recipient: a 4xx leaves it inside, its arrival is a retry; a 5xx gives it up", () => {
    const join = newJoin(0);
    accept(join, 7); // three recipients: 0., 1., 2.sink@localhost
    accept(join, 14);
    const [a, b, c] = rcptsOf(3);
    // 7: b deferred while a and c arrive; b comes 1 s later, from the gateway's retry.
    assert.equal(join.refused(RUN, 7, "envid", [b], "4.3.0", T0 + 100), false);
    assert.equal(copy(join, 7, T0 + 110, 1), false, "a arrived, b and c not yet");
    assert.equal(join.copy(RUN, 7, "traceHeader", [c], T0 + 120, false), false);
    assert.equal(join.accounted, 0, "b, refused with 4xx, is still inside the gateway");
    assert.equal(join.copy(RUN, 7, "traceHeader", [b.toUpperCase()], T0 + 1100, false), true);
    // 14: b refused with 550 in the same transaction as a and c, which arrive: given up.
    join.refused(RUN, 14, "envid", [b], "5.3.0", T0 + 200);
    assert.equal(join.copy(RUN, 14, "traceHeader", [a, c], T0 + 210, false), true);
    assert.equal(join.accounted, 2);
    const d = finish(join);
    assert.deepEqual([d.delivered, d.bounced, d.partial, d.lost], [1, 1, 0, 0]);
    assert.deepEqual([d.retried, d.retryAttempts, d.retryDelayMs.count], [1, 2, 1]);
    assert.equal(d.retryDelayMs.max, 1000);
    assert.deepEqual(d.bounceStatuses, { "5.3.0": 1 });
  });

  test("the same recipient twice is a duplicate; two recipients in two copies are not", () => {
    const join = newJoin();
    accept(join, 7);
    accept(join, 21);
    const [a, b, c] = rcptsOf(3);
    join.copy(RUN, 7, "traceHeader", [a, b], T0 + 100, false);
    join.copy(RUN, 7, "traceHeader", [c], T0 + 200, false);
    join.copy(RUN, 21, "traceHeader", [a, b], T0 + 100, false);
    join.copy(RUN, 21, "traceHeader", [a], T0 + 200, false);
    const d = finish(join, true);
    assert.deepEqual([d.delivered, d.duplicated, d.partial], [1, 1, 0]);
  });

  test("a first copy after the drain is late: counted, never in the latency", () => {
    const join = newJoin(0);
    accept(join, 1);
    copy(join, 1, T0 + 100_000, 1, true);
    const d = finish(join);
    assert.deepEqual([d.late, d.delivered, d.lost], [1, 0, 0]);
    assert.equal(d.endToEndMs.count, 0);
    assert.deepEqual(d.perSecond.delivered, [0], "a late arrival is not charted as delivered");
  });

  test("a clean run leaves nothing held but the ring, and the ring empties at the end", () => {
    const join = newJoin(16);
    join.timeline.setOrigin(T0);
    for (let seq = 0; seq < 1000; seq++) {
      accept(join, seq);
      copy(join, seq, T0 + 20 + seq, shape.recipientsOf(seq));
      join.advance(T0 + seq - 100);
    }
    assert.equal(join.held, 16, "only the last 16 fully arrived messages are kept whole");
    assert.ok(join.timeline.waiting < 1000, `${join.timeline.waiting} timeline events wait`);
    const d = finish(join);
    assert.equal(d.delivered, 1000);
    assert.equal(join.held, 0);
  });
});

/** A run's events, shuffled a little as threads and the receiver interleave them. */
function scenario(): { kind: "accept" | "copy" | "refused" | "notice"; seq: number; at: number }[] {
  const events: { kind: "accept" | "copy" | "refused" | "notice"; seq: number; at: number }[] = [];
  for (let seq = 0; seq < 400; seq++) {
    if (seq % 50 === 13) continue; // never accepted, yet arrives: unconfirmed
    events.push({ kind: "accept", seq, at: T0 + 10 + seq * 5 + (seq % 3) * 40 });
  }
  for (let seq = 0; seq < 400; seq++) {
    const at = T0 + 30 + seq * 5 + (seq % 11) * 7;
    if (seq % 20 === 5) continue; // lost
    if (seq % 10 === 3) events.push({ kind: "refused", seq, at: at - 20 });
    if (seq % 40 === 9) events.push({ kind: "notice", seq, at });
    else events.push({ kind: "copy", seq, at });
    if (seq % 25 === 1) events.push({ kind: "copy", seq, at: at + 900 }); // a second copy
  }
  // Accept records reach the join up to 100 ms after their 250.
  return events.sort(
    (x, y) => x.at + (x.kind === "accept" ? 100 : 0) - y.at - (y.kind === "accept" ? 100 : 0),
  );
}

describe("streaming and whole-run joins agree", () => {
  for (const recent of [0, 8, 65_536]) {
    test(`ring of ${recent}`, () => {
      const live = newJoin(recent);
      const log = new ArrivalLog();
      const accepts = {
        seq: [] as number[],
        intendedMs: [] as number[],
        acceptedMs: [] as number[],
        queueId: [] as string[],
      };
      for (const e of scenario()) {
        if (e.kind === "accept") {
          live.accept(RUN, e.seq, e.at - 10, e.at, `Q${e.seq}`);
          accepts.seq.push(e.seq);
          accepts.intendedMs.push(e.at - 10);
          accepts.acceptedMs.push(e.at);
          accepts.queueId.push(`Q${e.seq}`);
          live.advance(e.at - 150);
        } else if (e.kind === "copy") {
          // Of three recipients, one arrives: partial.
          const rcpts = e.seq % 70 === 14 ? 1 : shape.recipientsOf(e.seq);
          live.copy(RUN, e.seq, "traceHeader", rcptsOf(rcpts), e.at, false);
          log.copy(RUN, e.seq, "traceHeader", rcptsOf(rcpts), e.at, false);
        } else if (e.kind === "refused") {
          live.refused(RUN, e.seq, "envid", rcptsOf(1), "4.3.0", e.at);
          log.refused(RUN, e.seq, "envid", rcptsOf(1), "4.3.0", e.at);
        } else {
          live.notice(RUN, e.seq, "5.1.1", [], e.at);
          log.notice(RUN, e.seq, "5.1.1", [], e.at);
        }
      }
      const run = log.runs.get(RUN);
      assert.ok(run);
      const whole = joinDeliveries({
        receiver: "test",
        parts: [
          {
            runId: RUN,
            accepts,
            arrivals: run.arrivals,
            lastArrivalMs: run.lastArrivalMs,
            ...shape,
          },
        ],
        counts: { foreign: 0, notices: 0, noticesUnjoined: 0 },
        classNames: ["even", "odd"],
        firstConnectMs: T0,
        drain: TIMED_OUT,
      });
      const streamed = finish(live, true);
      const { duplicated, bounced, lost, retried, unconfirmed, partial } = whole;
      const each = { duplicated, bounced, lost, retried, unconfirmed, partial };
      assert.ok(
        Object.values(each).every((n) => n > 0),
        JSON.stringify(each),
      );
      // A duplicate comes 900 ms after its first copy: out of a small ring, its latencies stay
      // under delivered and its queue id is gone; every count and the rest agree.
      const { byState: _a, firstDuplicated: _b, ...counts } = streamed;
      const { byState: _c, firstDuplicated: _d, ...wholeCounts } = whole;
      assert.deepEqual(counts, wholeCounts);
      const ids = (d: DeliveryResult) => d.firstDuplicated.map((m) => m.id);
      assert.deepEqual(ids(streamed), ids(whole));
      if (recent === 65_536) assert.deepEqual(streamed, whole);
      assert.equal(live.held, 0);
    });
  }
});

describe("the accept ledger streams", () => {
  test("each record goes once: in a flushed chunk or in the snapshot of what is left", () => {
    const ledger = new AcceptLedger();
    const chunks: AcceptChunk[] = [];
    ledger.record(1, T0, T0 + 5, "A");
    ledger.streamTo((chunk) => chunks.push(chunk));
    ledger.record(2, T0, T0 + 6, "B");
    ledger.flush(T0 - 50, false);
    ledger.flush(T0 - 50, false);
    ledger.record(3, T0, T0 + 7, "C");
    assert.deepEqual(
      chunks.map((c) => [c.records.seq, c.records.queueId, c.firstEventMs, c.final]),
      [
        [[1, 2], ["A", "B"], T0 - 50, false],
        [[], [], T0 - 50, false],
      ],
    );
    assert.ok(chunks[1].throughMs >= chunks[0].throughMs);
    assert.deepEqual(ledger.snapshot().seq, [3], "what no flush took");
    ledger.flush(T0 - 50, true);
    assert.deepEqual(chunks[2].records.seq, [3]);
    assert.equal(chunks[2].final, true);
    assert.deepEqual(ledger.snapshot().seq, []);
  });

  test("without a stream the ledger keeps every record (--receive elsewhere)", () => {
    const ledger = new AcceptLedger();
    for (let seq = 0; seq < 3000; seq++) ledger.record(seq, T0, T0 + 5, "");
    ledger.flush(T0, false);
    assert.equal(ledger.snapshot().seq.length, 3000);
  });
});
