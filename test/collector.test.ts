/**
 * Counters, error rows and histograms: what workers count separately and the controller merges
 * must equal what one collector counting everything would hold.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergeSnapshots } from "../src/result/merge-snapshots.js";
import type { Phase } from "../src/result/result.js";
import {
  HISTOGRAM_NAMES,
  type HistogramName,
  RunStats,
  type StatsSnapshot,
  summariseHistogram,
} from "../src/stats/collector.js";
import { OUTCOMES } from "../src/stats/counts.js";
import { type Failure, normaliseErrorText } from "../src/stats/errors.js";
import { prng } from "./helpers/prng.js";
import { recordLatency } from "./helpers/record-latency.js";

type Event =
  | { kind: "count"; verb: (stats: RunStats) => void }
  | { kind: "latency"; name: HistogramName; ms: number }
  | { kind: "error"; reply: number | Failure; enhanced: string; phase: Phase; text: string }
  | { kind: "touch"; at: number };

function randomEvents(count: number, seed: number): Event[] {
  const next = prng(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  // Every verb that counts; a message starts and settles in one event, so that any worker
  // can take any event.
  const verbs: ((stats: RunStats) => void)[] = [
    ...OUTCOMES.map((outcome) => (stats: RunStats) => {
      stats.messageStarted(2);
      stats.messageSettled(0, outcome, 3);
    }),
    (stats) => stats.messagesFailedToStart(0),
    (stats) => stats.messagesDropped(2),
    (stats) => stats.recipientAccepted(),
    (stats) => stats.recipientRejected(),
    (stats) => stats.connectionOpened(),
    (stats) => stats.connectionEstablished(),
    (stats) => stats.connectionRefused(),
  ];
  const errors: { reply: number | Failure; enhanced: string; phase: Phase; host: string }[] = [
    { reply: 421, enhanced: "4.7.0", phase: "banner", host: "too many connections" },
    { reply: 450, enhanced: "4.7.1", phase: "mail", host: "too much mail" },
    { reply: 550, enhanced: "5.1.1", phase: "rcpt", host: "unknown user" },
    { reply: "timeout", enhanced: "", phase: "dot", host: "no reply" },
  ];
  const events: Event[] = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    if (r < 0.4) events.push({ kind: "count", verb: pick(verbs) });
    else if (r < 0.8) {
      events.push({ kind: "latency", name: pick(HISTOGRAM_NAMES), ms: next() * next() * 500 });
    } else if (r < 0.95) {
      const e = pick(errors);
      const n = Math.floor(next() * 1000);
      const text = `${e.host} <user${n}@example.test> from [127.0.0.${n % 255}] id ${n}`;
      events.push({ kind: "error", reply: e.reply, enhanced: e.enhanced, phase: e.phase, text });
    } else events.push({ kind: "touch", at: 1_764_683_707_000 + next() * 60_000 });
  }
  return events;
}

function apply(stats: RunStats, event: Event): void {
  switch (event.kind) {
    case "count":
      event.verb(stats);
      break;
    case "latency":
      recordLatency(stats, event.name, event.ms);
      break;
    case "error":
      if (typeof event.reply === "number") {
        stats.reply(event.reply, event.enhanced, event.phase, event.text);
      } else stats.failure(event.reply, event.phase, event.text);
      break;
    case "touch":
      stats.touch(event.at);
      break;
  }
}

/** Error rows in a canonical order (merge order is not part of the contract). */
function sortedErrors(snapshot: StatsSnapshot) {
  return [...snapshot.errors]
    .map((row) => ({ ...row, text: normaliseErrorText(row.text) }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

function assertSameCollection(merged: StatsSnapshot, single: StatsSnapshot): void {
  assert.deepEqual(merged.counters, single.counters);
  assert.deepEqual(sortedErrors(merged), sortedErrors(single));
  assert.equal(merged.firstEventMs, single.firstEventMs);
  assert.equal(merged.lastEventMs, single.lastEventMs);
  for (const name of HISTOGRAM_NAMES) {
    assert.deepEqual(
      summariseHistogram(merged.histograms[name]),
      summariseHistogram(single.histograms[name]),
      name,
    );
  }
}

describe("mergeSnapshots", () => {
  for (const parts of [1, 2, 3, 8]) {
    test(`${parts} part(s) merge to what one collector counts`, () => {
      const events = randomEvents(5000, parts * 7919);
      const single = new RunStats();
      const workers = Array.from({ length: parts }, () => new RunStats());
      events.forEach((event, i) => {
        apply(single, event);
        apply(workers[i % parts], event);
      });
      assertSameCollection(mergeSnapshots(workers.map((w) => w.snapshot())), single.snapshot());
    });
  }

  test("merging merged snapshots again changes nothing", () => {
    const events = randomEvents(3000, 42);
    const workers = [new RunStats(), new RunStats(), new RunStats(), new RunStats()];
    events.forEach((event, i) => {
      apply(workers[i % 4], event);
    });
    const snaps = workers.map((w) => w.snapshot());
    const flat = mergeSnapshots(snaps);
    const nested = mergeSnapshots([
      mergeSnapshots(snaps.slice(0, 2)),
      mergeSnapshots(snaps.slice(2)),
    ]);
    assertSameCollection(nested, flat);
  });

  test("an empty worker changes nothing; no parts is all zero", () => {
    const stats = new RunStats();
    for (let i = 0; i < 3; i++) {
      stats.messageStarted(1);
      stats.messageSettled(0, "accepted", 1.5);
    }
    stats.touch(1000);
    stats.touch(2000);
    assertSameCollection(
      mergeSnapshots([new RunStats().snapshot(), stats.snapshot()]),
      stats.snapshot(),
    );
    const none = mergeSnapshots([]);
    assert.equal(none.counters.attempted, 0);
    assert.equal(none.firstEventMs, 0);
    assert.equal(summariseHistogram(none.histograms.transaction).count, 0);
  });

  test("snapshots are plain data: structured-cloneable, independent of the collector", () => {
    const stats = new RunStats();
    stats.reply(550, "5.1.1", "rcpt", "unknown user <a@b>");
    const snap = stats.snapshot();
    assert.deepEqual(structuredClone(snap), snap);
    stats.reply(550, "5.1.1", "rcpt", "unknown user <c@d>");
    stats.messageStarted(1);
    stats.messageSettled(0, "accepted", 1);
    assert.equal(snap.errors[0].count, 1);
    assert.equal(snap.counters.accepted, 0);
  });
});

describe("RunStats", () => {
  test("error rows group by reply, enhanced code, phase and normalised text", () => {
    const stats = new RunStats();
    stats.reply(450, "4.7.1", "mail", "<a1@x.test>: too much mail from 127.0.0.1");
    stats.reply(450, "4.7.1", "mail", "<b22@x.test>: too much mail from 10.0.0.2");
    stats.reply(450, "4.7.1", "rcpt", "<a1@x.test>: too much mail from 127.0.0.1");
    stats.reply(451, "4.7.1", "mail", "<a1@x.test>: too much mail from 127.0.0.1");
    const rows = stats.snapshot().errors;
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[0], {
      reply: "450",
      enhanced: "4.7.1",
      phase: "mail",
      text: "<a1@x.test>: too much mail from 127.0.0.1",
      count: 2,
    });
  });

  test("record() stores microseconds, at least 1", () => {
    const stats = new RunStats();
    stats.record("connect", 0);
    stats.record("connect", 0.0004);
    stats.record("connect", 12.3456);
    const summary = summariseHistogram(stats.snapshot().histograms.connect);
    assert.equal(summary.count, 3);
    assert.equal(summary.min, 0.001);
    assert.ok(Math.abs(summary.max - 12.346) < 0.01, String(summary.max));
  });

  test("an accepted message's latencies count once in the run, its class and the series", () => {
    /** Three accepted messages of class `cls` … and one rejected, whose latency counts nowhere. */
    const send = (stats: RunStats, cls: number, base: number) => {
      for (const ms of [base, base + 1, base + 2]) {
        stats.messageStarted(1);
        stats.recordPhase(cls, "envelope", ms / 2);
        stats.recordPhase(cls, "data", ms / 2);
        stats.messageSettled(cls, "accepted", ms);
      }
      stats.messageStarted(1);
      stats.messageSettled(cls, "rejected", 99);
    };
    const count = (encoded: string | undefined) => summariseHistogram(encoded ?? "").count;
    const one = new RunStats(["only"], 1000);
    one.sample(0, 1);
    send(one, 0, 10);
    one.sample(5_000, 0, true);
    const alone = one.snapshot();
    assert.equal(count(alone.histograms.transaction), 3);
    assert.equal(count(alone.histograms.envelope), 3);
    assert.equal(
      alone.series.points.reduce((n, p) => n + count(p.histogram), 0),
      3,
    );
    // One class: its histograms are the run's.
    assert.equal(alone.classes[0].histogram, alone.histograms.transaction);
    assert.equal(alone.classes[0].phases?.envelope, alone.histograms.envelope);
    assert.equal(alone.classes[0].phases?.data, alone.histograms.data);

    const two = new RunStats(["a", "b"], 1000);
    send(two, 0, 10);
    send(two, 1, 500);
    const both = two.snapshot();
    assert.equal(count(both.histograms.transaction), 6);
    assert.equal(count(both.histograms.data), 6);
    for (const cls of both.classes) {
      assert.equal(count(cls.histogram), 3, cls.name);
      assert.equal(count(cls.phases?.envelope), 3, cls.name);
    }
    // HDR keeps 3 significant digits: 500 ms is 499.968 ms at its bucket's low end.
    assert.ok(summariseHistogram(both.classes[1].histogram).min > 499);
    assert.ok(summariseHistogram(both.classes[0].histogram).max < 13);
  });

  test("touch() keeps the first and the last event in any order", () => {
    const stats = new RunStats();
    for (const at of [5000, 3000, 9000, 4000]) stats.touch(at);
    assert.equal(stats.firstEventMs, 3000);
    assert.equal(stats.lastEventMs, 9000);
  });
});

describe("normaliseErrorText", () => {
  const SAME: [string, string][] = [
    [
      "<a1@example.test>: Recipient address rejected",
      "<zz9@other.test>: Recipient address rejected",
    ],
    ["too many connections from 127.0.0.1", "too many connections from 10.20.30.40"],
    ["Client host [192.0.2.1] blocked", "Client host [2001:db8::1] blocked"],
    ["queued as 3F2A1B4C5D", "queued as 9ABCDEF012"],
    ["Message size exceeds fixed limit 10240000", "Message size exceeds fixed limit 52428800"],
  ];
  for (const [a, b] of SAME) {
    test(`groups ${JSON.stringify(a)}`, () => {
      assert.equal(normaliseErrorText(a), normaliseErrorText(b));
    });
  }

  test("keeps different reasons apart and trims", () => {
    assert.notEqual(normaliseErrorText("User unknown"), normaliseErrorText("Mailbox full"));
    assert.equal(normaliseErrorText("  Service unavailable  "), "Service unavailable");
    assert.equal(
      normaliseErrorText("4.7.0 Try again in 300 seconds"),
      "#.#.# Try again in # seconds",
    );
  });
});
