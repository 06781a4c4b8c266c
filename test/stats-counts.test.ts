/**
 * Counting: RunStats' verbs keep attempted = accepted + rejected + failed + unconfirmed (+
 * messages still open), error rows have one key, and every outcome travels through snapshots, merges, series
 * points and the Result by the one outcome list.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { transportFailure } from "../src/client/transport.js";
import { mergeResults } from "../src/result/merge-results.js";
import { mergeSnapshots } from "../src/result/merge-snapshots.js";
import { buildResult, seriesResult } from "../src/result/summarise.js";
import { RunStats } from "../src/stats/collector.js";
import {
  type MessageOutcome,
  OUTCOMES,
  outcomesOf,
  settledCount,
  zeroCounters,
  zeroOutcomes,
} from "../src/stats/counts.js";
import {
  classifyError,
  ERROR_CLASSES,
  errorKey,
  FAILURE_CLASS,
  type Failure,
  isFailure,
} from "../src/stats/errors.js";
import { prng } from "./helpers/prng.js";

const META = { mode: "reuse" as const, target: "t", runId: "r", sessions: 1 };
const T0 = 1_764_683_700_000; // a multiple of 1000

/** attempted less the settled outcomes: the messages still open. */
function unsettled(stats: RunStats): number {
  return stats.counters.attempted - settledCount(stats.counters);
}

describe("RunStats verbs", () => {
  test("a started message is attempted and open until it settles, then counted once", () => {
    const stats = new RunStats(["bulk", "vip"]);
    stats.messageStarted(3);
    assert.equal(stats.counters.attempted, 1);
    assert.equal(stats.counters.rcptAttempted, 3);
    assert.equal(stats.openMessages, 1);
    assert.equal(settledCount(stats.counters), 0);
    stats.messageSettled(1, "rejected");
    assert.equal(stats.openMessages, 0);
    assert.deepEqual(outcomesOf(stats.counters), { ...zeroOutcomes(), rejected: 1 });
    const [bulk, vip] = stats.snapshot().classes;
    assert.deepEqual(outcomesOf(bulk), zeroOutcomes());
    assert.deepEqual(outcomesOf(vip), { ...zeroOutcomes(), rejected: 1 });
  });

  test("settling a message twice throws and counts nothing", () => {
    const stats = new RunStats();
    stats.messageStarted(1);
    stats.messageSettled(0, "accepted", 2);
    const before = stats.snapshot();
    assert.throws(() => stats.messageSettled(0, "failed"), /none is open/);
    assert.deepEqual(stats.snapshot().counters, before.counters);
    assert.deepEqual(stats.snapshot().classes, before.classes);
  });

  test("settling without a start throws", () => {
    for (const outcome of OUTCOMES) {
      assert.throws(() => new RunStats().messageSettled(0, outcome), /none is open/);
    }
  });

  test("only accepted messages enter the class's transaction histogram", () => {
    const stats = new RunStats();
    for (const outcome of OUTCOMES) {
      stats.messageStarted(1);
      stats.messageSettled(0, outcome, 5);
    }
    const result = buildResult(stats.snapshot(), META);
    assert.equal(result.classes[0].transactionMs.count, 1);
    assert.equal(result.classes[0].attempted, OUTCOMES.length);
  });

  test("messages that fail to start are attempted and failed at once, in their class", () => {
    const stats = new RunStats(["bulk", "alerts"]);
    stats.messagesFailedToStart(1);
    stats.messagesFailedToStart(0, 4);
    assert.equal(stats.counters.attempted, 5);
    assert.equal(stats.counters.failed, 5);
    assert.equal(stats.openMessages, 0);
    const [bulk, alerts] = stats.snapshot().classes;
    assert.deepEqual(outcomesOf(bulk), { ...zeroOutcomes(), failed: 4 });
    assert.deepEqual(outcomesOf(alerts), { ...zeroOutcomes(), failed: 1 });
  });

  test("recipients, connections and drops each have their verb", () => {
    const stats = new RunStats();
    stats.recipientAccepted();
    stats.recipientAccepted();
    stats.recipientRejected();
    stats.connectionOpened();
    stats.connectionOpened();
    stats.connectionEstablished();
    stats.connectionRefused();
    stats.messagesDropped(7);
    assert.deepEqual(stats.counters, {
      ...zeroCounters(),
      rcptAccepted: 2,
      rcptRejected: 1,
      connectionsOpened: 2,
      connectionsEstablished: 1,
      connectionsRefused: 1,
      dropped: 7,
    });
  });

  test("counts add up after every verb, in any order, and exactly once all have settled", () => {
    const next = prng(1103);
    const stats = new RunStats(["a", "b", "c"]);
    for (let i = 0; i < 20_000; i++) {
      const r = next();
      if (r < 0.45) stats.messageStarted(1 + Math.floor(next() * 3));
      else if (r < 0.9 && stats.openMessages > 0) {
        const outcome = OUTCOMES[Math.floor(next() * OUTCOMES.length)];
        stats.messageSettled(Math.floor(next() * 3), outcome, next() * 100);
      } else if (r < 0.95) {
        const n = Math.floor(next() * 3);
        stats.messagesFailedToStart(Math.floor(next() * 3), n);
      } else stats.connectionOpened();
      assert.equal(unsettled(stats), stats.openMessages);
      assert.ok(stats.openMessages >= 0);
    }
    while (stats.openMessages > 0) stats.messageSettled(0, "failed");
    const { counters, classes } = stats.snapshot();
    const { accepted, rejected, failed, unconfirmed } = counters;
    assert.equal(counters.attempted, accepted + rejected + failed + unconfirmed);
    const inClasses = classes.reduce((n, c) => n + settledCount(c), 0);
    // Every message is in its class, those that failed to start too (issue 16 item 4).
    assert.equal(inClasses, counters.attempted);
  });

  test("the counters a caller reads are the live counts, typed read-only", () => {
    const stats = new RunStats();
    const view = stats.counters;
    stats.messageStarted(1);
    assert.equal(view.attempted, 1);
    const write = () => {
      // @ts-expect-error: counters change only through the verbs
      view.attempted = 5;
    };
    assert.equal(typeof write, "function");
  });
});

describe("error rows", () => {
  test("errorKey: one key per reply, enhanced code, phase and normalised text", () => {
    const text = "<a1@x.test>: too much mail from 127.0.0.1";
    const key = errorKey("450", "4.7.1", "mail", text);
    assert.equal(key, errorKey("450", "4.7.1", "mail", "<b22@y>: too much mail from 10.0.0.2"));
    const others = [
      errorKey("451", "4.7.1", "mail", text),
      errorKey("450", "4.7.0", "mail", text),
      errorKey("450", "4.7.1", "rcpt", text),
      errorKey("450", "4.7.1", "mail", "<a1@x.test>: too many connections"),
    ];
    for (const other of others) assert.notEqual(other, key);
    // Fields cannot run into each other.
    assert.notEqual(errorKey("45", "0", "mail", "x"), errorKey("450", "", "mail", "x"));
  });

  test("rows grouped by a worker and by a merge use the same key", () => {
    const a = new RunStats();
    const b = new RunStats();
    a.reply(550, "5.1.1", "rcpt", "unknown user <a@b>");
    b.reply(550, "5.1.1", "rcpt", "unknown user <c@d>");
    b.failure("timeout", "dot", "no reply within 600000 ms");
    a.failure("timeout", "dot", "no reply within 300000 ms", 2);
    const merged = mergeSnapshots([a.snapshot(), b.snapshot()]).errors;
    const one = new RunStats();
    one.reply(550, "5.1.1", "rcpt", "unknown user <a@b>");
    one.reply(550, "5.1.1", "rcpt", "unknown user <c@d>");
    one.failure("timeout", "dot", "no reply within 300000 ms", 3);
    const counts = (rows: typeof merged) =>
      rows.map((r) => [errorKey(r.reply, r.enhanced, r.phase, r.text), r.count]).sort();
    assert.deepEqual(counts(merged), counts(one.snapshot().errors));
    assert.equal(merged.length, 2);
  });

  test("a failure's row has the failure as its reply, no enhanced code, and its table class", () => {
    for (const failure of Object.keys(FAILURE_CLASS) as Failure[]) {
      const stats = new RunStats();
      stats.failure(failure, "mail", "detail");
      const [row] = stats.snapshot().errors;
      assert.deepEqual(row, {
        reply: failure,
        enhanced: "",
        phase: "mail",
        text: "detail",
        count: 1,
      });
      assert.ok(isFailure(row.reply));
      assert.equal(classifyError(row.reply, row.enhanced, "mail"), FAILURE_CLASS[failure]);
      assert.ok(ERROR_CLASSES.includes(FAILURE_CLASS[failure]));
    }
    assert.equal(isFailure("421"), false);
    assert.equal(isFailure("toString"), false);
  });

  test("socket errors map onto the failure names", () => {
    const codes = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", undefined];
    assert.deepEqual(codes.map(transportFailure), [
      "refused",
      "reset",
      "reset",
      "timeout",
      "socket",
      "socket",
    ]);
  });
});

/** Stats where outcome i of OUTCOMES was counted (i + 1) × `scale` times, class 0, at T0 + 0.5 s. */
function countedOnce(scale: number): RunStats {
  const stats = new RunStats(["only"]);
  stats.sample(T0, 1);
  stats.touch(T0);
  OUTCOMES.forEach((outcome, i) => {
    for (let k = 0; k < (i + 1) * scale; k++) {
      stats.messageStarted(1);
      stats.messageSettled(0, outcome, 1);
    }
  });
  stats.touch(T0 + 500);
  stats.sample(T0 + 1000, 1, true);
  return stats;
}

describe("the outcome list", () => {
  test("outcome records hold exactly the listed outcomes", () => {
    assert.deepEqual(Object.keys(zeroOutcomes()), [...OUTCOMES]);
    for (const outcome of OUTCOMES) assert.equal(zeroCounters()[outcome], 0);
  });

  test("every outcome adds up in merged counters, classes and series points", () => {
    const merged = mergeSnapshots([countedOnce(1).snapshot(), countedOnce(10).snapshot()]);
    const expected = {} as Record<MessageOutcome, number>;
    OUTCOMES.forEach((outcome, i) => {
      expected[outcome] = (i + 1) * 11;
    });
    assert.deepEqual(outcomesOf(merged.counters), expected);
    assert.deepEqual(outcomesOf(merged.classes[0]), expected);
    assert.equal(merged.series.points.length, 1);
    assert.deepEqual(outcomesOf(merged.series.points[0]), expected);
    assert.equal(merged.series.points[0].sent, settledCount(expected));
  });

  test("every outcome reaches the Result and survives a merge of saved results", () => {
    const a = buildResult(countedOnce(1).snapshot(), META);
    const b = buildResult(countedOnce(2).snapshot(), META);
    for (const r of [a, b]) {
      const counted = outcomesOf(r.messages);
      assert.deepEqual(outcomesOf(r.allClasses), counted);
      assert.deepEqual(outcomesOf(r.classes[0]), counted);
      assert.deepEqual(outcomesOf(seriesResult(countedOnce(1).snapshot().series).points[0]), {
        accepted: 1,
        rejected: 2,
        failed: 3,
        unconfirmed: 4,
      });
      assert.equal(r.messages.attempted, settledCount(counted));
    }
    const merged = mergeResults([a, b]);
    for (const outcome of OUTCOMES) {
      const [m, ma, mb] = [merged, a, b].map((r) => outcomesOf(r.messages)[outcome]);
      assert.equal(m, ma + mb, outcome);
      const [c, ca, cb] = [merged, a, b].map((r) => outcomesOf(r.classes[0])[outcome]);
      assert.equal(c, ca + cb);
      assert.equal(
        merged.series.points.reduce((n, p) => n + outcomesOf(p)[outcome], 0),
        ma + mb,
      );
    }
  });
});
