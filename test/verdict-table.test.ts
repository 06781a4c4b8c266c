/**
 * The verdict table: each case a user met, as a row with the exact first lines it must give in
 * the terminal and at the top of the HTML page. Each row's Result comes from the figures the
 * run recorded (threads, start lateness, counts, the delivery join), through the rule itself
 * (generatorResult, outcomeVerdict), not from a hand-written limitedBy.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { DeliveryJoin } from "../src/delivery/join.js";
import { esc, renderHtml } from "../src/report/html.js";
import { renderSummary } from "../src/report/terminal.js";
import { wrapLines } from "../src/report/verdict.js";
import { generatorResult } from "../src/result/generator-verdict.js";
import { outcomeVerdict } from "../src/result/outcome-verdict.js";
import type { Result } from "../src/result/result.js";
import type { ThreadLoad, ThreadLoadPoint } from "../src/stats/generator-load.js";
import { StartLateness } from "../src/stats/start-lateness.js";

const GOLDEN = fileURLToPath(new URL("../../test/golden/result-reuse.json", import.meta.url));

/** A saved run with every message accepted: each row sets the figures it is about. */
function run(messages: number, over: Partial<Result> = {}): Result {
  const r = JSON.parse(readFileSync(GOLDEN, "utf8")) as Result;
  r.messages = { ...r.messages, attempted: messages, accepted: messages, rejected: 0, failed: 0 };
  r.messages.dropped = 0;
  r.connections = { ...r.connections, refused: 0 };
  r.errors = [];
  for (const c of Object.keys(r.errorClasses ?? {}))
    (r.errorClasses as Record<string, number>)[c] = 0;
  delete r.firstSeen;
  delete r.thresholds;
  return Object.assign(r, over);
}

/** The main thread, `busy` in each of its ten 1 s intervals. */
function mainThread(busy: number): ThreadLoad {
  const point = (t: number): ThreadLoadPoint => ({
    t,
    wallSeconds: 1,
    cpuSeconds: busy,
    cpuUtilisation: busy,
    eventLoopUtilisation: busy,
    waitSeconds: 0,
    eventLoopDelay: { p50Ms: 0.1, p99Ms: 2, maxMs: 5 },
  });
  return {
    name: "main",
    cpuScope: "thread",
    wallSeconds: 10,
    cpuSeconds: busy * 10,
    cpuUtilisation: busy,
    waitSeconds: 0,
    eventLoopUtilisation: busy,
    eventLoopDelay: { p50Ms: 0.1, p99Ms: 2, maxMs: 5 },
    intervalMs: 1000,
    points: Array.from({ length: 10 }, (_, i) => point(i * 1000)),
  };
}

/**
 * Open model at `rate`/s for 10 s, as the recorder saw it: the first `startupLate` arrivals
 * late by 150 ms down to 10 ms (queued behind the first sessions' handshakes), `steadyLate`
 * from the run's middle on `steadyLateMs` late, the rest 1 ms late.
 */
function openRun(
  rate: number,
  counts: {
    startupLate: number;
    steadyLate?: number;
    steadyLateMs?: number;
    busy?: number;
    /** Every one of the 1,000 sessions busy with the target for the run's 10 s. */
    sessionsBusy?: boolean;
    /** The run's length; 10 s unless given. */
    seconds?: number;
  },
): Result {
  const interval = 1000 / rate;
  const lateness = new StartLateness(interval, { originMs: 0, intervalMs: 1000 });
  const total = rate * (counts.seconds ?? 10);
  for (let i = 0; i < total; i++) {
    const intended = i * interval;
    const steady = i - total / 2;
    const late =
      i < counts.startupLate
        ? 150 - (140 * i) / counts.startupLate
        : steady >= 0 && steady < (counts.steadyLate ?? 0)
          ? (counts.steadyLateMs ?? 0)
          : 1;
    lateness.record(intended, intended + late);
  }
  const r = run(total, { target: "127.0.0.1:25", sessions: 1000, elapsedSeconds: 10 });
  const held = counts.sessionsBusy ? (1000 * 10_000) / total : 2;
  r.latency = {
    ...r.latency,
    transactionMs: { ...r.latency.transactionMs, count: total, mean: held },
  };
  r.generator = generatorResult([mainThread(counts.busy ?? 0.1)], {
    arrivalIntervalMs: interval,
    lateness: lateness.snapshot(),
    dropped: 0,
  });
  r.generator = outcomeVerdict(r);
  return r;
}

/** A self-test against the built-in sink, the generator's main thread at `busy`. */
function selfTest(busy: number, messages: number, rejected: number): Result {
  const r = run(messages, { target: "embedded-sink", mode: "reuse" });
  r.messages = { ...r.messages, accepted: messages - rejected, rejected };
  r.throughput = { ...r.throughput, messagesPerSecond: 794.6 };
  r.sink = { messagesAccepted: messages - rejected, sessions: 50, connectionsRefused: 0 };
  r.generator = generatorResult([mainThread(busy)], null);
  r.generator = outcomeVerdict(r);
  return r;
}

/** Through a gateway that accepted `accepted` and let `arrived` out (the rest lost). */
function throughGateway(accepted: number, arrived: number): Result {
  const r = run(accepted, { target: "127.0.0.1:25" });
  const runId = "0123456789ab";
  const join = new DeliveryJoin({ classNames: ["default"] });
  join.addRun(runId, { classOf: () => 0, recipientsOf: () => 1 });
  for (let seq = 1; seq <= accepted; seq++) {
    join.accept(runId, seq, 1_000 + seq, 1_010 + seq, `Q${seq}`);
    if (seq <= arrived)
      join.copy(runId, seq, "traceHeader", ["rcpt@example.test"], 1_050 + seq, false);
  }
  r.delivery = join.finish({
    receiver: "127.0.0.1:2526",
    counts: { foreign: 0, notices: 0, noticesUnjoined: 0 },
    firstConnectMs: 1_000,
    drain: { end: "timedOut", waitedMs: 1_000, missing: accepted - arrived },
  });
  r.generator = generatorResult([mainThread(0.1)], null);
  r.generator = outcomeVerdict(r);
  return r;
}

/** The terminal's lines between the title and the first blank line: the verdict. */
function terminalVerdict(r: Result, width?: number): string[] {
  const lines = renderSummary(r, { color: false, width }).split("\n");
  return lines.slice(1, lines.indexOf(""));
}

/** The page's verdict boxes, each as its lines of text (head, then its reasons). */
function htmlVerdict(r: Result): string[][] {
  const html = renderHtml([r]);
  const top = html.slice(html.indexOf("</header>"), html.indexOf("<h2>Overview</h2>"));
  return top
    .split('<div class="verdict')
    .slice(1)
    .map((box) =>
      [...box.matchAll(/<(?:strong|li)>(.*?)<\/(?:strong|li)>/g)].map((m) =>
        m[1]
          .replace(/&#39;/g, "'")
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&amp;/g, "&"),
      ),
    );
}

interface Row {
  case: string;
  result: () => Result;
  limitedBy: string;
  /** The terminal's verdict lines, exactly. */
  terminal: string[];
  /** The page's first box: its head and its reasons (the terminal's lines, unindented). */
  firstBox: string[];
}

const SCHEDULE =
  "Paced by the schedule: the schedule set this rate: the arrivals started on time and none was dropped; raise --rate or the ramp to load the target harder.";
const STARTUP_NOTE =
  "while the first sessions connected (the first interval, and until an arrival started on time); not held against the target";

const ROWS: Row[] = [
  {
    case: "run --rate 200/s -d 10s -s 1000 against smtp-sink: late only while 1,000 sessions connected",
    result: () => openRun(200, { startupLate: 29 }),
    limitedBy: "schedule",
    terminal: [
      SCHEDULE,
      "  every generator thread had headroom; the busiest, main thread, was 10% busy, < 70% in 8 of 8 steady intervals",
      "  start lateness p99 1.000 ms after the start-up, within the 10.0 ms tolerance, and no arrival dropped",
      `  start-up: 29 of its 200 arrivals started late ${STARTUP_NOTE}`,
    ],
    firstBox: [],
  },
  {
    case: "run --rate 2000/s -s 2000: 733 late of 16,000, all in the start-up",
    result: () => openRun(2000, { startupLate: 1500 }),
    limitedBy: "schedule",
    terminal: [
      SCHEDULE,
      "  every generator thread had headroom; the busiest, main thread, was 10% busy, < 70% in 8 of 8 steady intervals",
      "  start lateness p99 1.000 ms after the start-up, within the 10.0 ms tolerance, and no arrival dropped",
      `  start-up: 1,500 of its 2,000 arrivals started late ${STARTUP_NOTE}`,
    ],
    firstBox: [],
  },
  {
    case: "late all through the run with the generator idle: every session was waiting on the target",
    result: () =>
      openRun(200, { startupLate: 29, steadyLate: 300, steadyLateMs: 60, sessionsBusy: true }),
    limitedBy: "target",
    terminal: [
      "Limited by the target: the target set this rate: every session was waiting on it; raise --sessions if the target should take more concurrency.",
      "  every generator thread had headroom; the busiest, main thread, was 10% busy, < 70% in 8 of 8 steady intervals",
      "  start lateness p99 60.031 ms with the generator idle: arrivals waited for a free session",
      `  start-up: 29 of its 200 arrivals started late ${STARTUP_NOTE}`,
    ],
    firstBox: [],
  },
  {
    case: "a target too slow from the first arrival: the start-up ends after 3 intervals",
    result: () => openRun(200, { startupLate: 2000, sessionsBusy: true }),
    limitedBy: "target",
    terminal: [
      "Limited by the target: the target set this rate: every session was waiting on it; raise --sessions if the target should take more concurrency.",
      "  every generator thread had headroom; the busiest, main thread, was 10% busy, < 70% in 8 of 8 steady intervals",
      "  start lateness p99 107.071 ms with the generator idle: arrivals waited for a free session",
      `  start-up: 600 of its 600 arrivals started late ${STARTUP_NOTE}`,
    ],
    firstBox: [],
  },
  {
    case: "a 2 s run late throughout: its start-up is the run, every arrival judged",
    result: () => openRun(200, { startupLate: 400, sessionsBusy: true, seconds: 2 }),
    limitedBy: "target",
    terminal: [
      "Limited by the target: the target set this rate: every session was waiting on it; raise --sessions if the target should take more concurrency.",
      "  every generator thread had headroom; the busiest, main thread, was 10% busy, < 70% in 8 of 8 steady intervals",
      "  start lateness p99 148.607 ms with the generator idle: arrivals waited for a free session",
    ],
    firstBox: [],
  },
  {
    case: "late after the start-up on a loaded machine, sessions free: the timers, not the target",
    result: () => openRun(200, { startupLate: 29, steadyLate: 43, steadyLateMs: 17 }),
    limitedBy: "schedule",
    terminal: [
      "Paced by the schedule: the schedule set this rate, met without a drop, though starts ran late on mailvolley's side with sessions free; give it a quieter machine for exact start times.",
      "  every generator thread had headroom; the busiest, main thread, was 10% busy, < 70% in 8 of 8 steady intervals",
      "  start lateness p99 17.007 ms after the start-up, over the 10.0 ms tolerance, with sessions free (on average 0 of 1,000 busy with the target): mailvolley's timers ran late, not the target",
      `  start-up: 29 of its 200 arrivals started late ${STARTUP_NOTE}`,
    ],
    firstBox: [],
  },
  {
    case: "self-test --ramp 0s:100,20s:2000 --sink-max-message-rate 1000/1s: 24.9% refused by the sink",
    result: () => selfTest(0.95, 21_000, 5_235),
    limitedBy: "generator",
    terminal: [
      "Refused by the built-in sink, not a generator ceiling: 5,235 of 21,000 messages (24.9%) turned away by its limits or faults (5,235 rejected, 0 failed, 0 connections refused); limited by the generator: this rate measures mailvolley, not the target: add --workers, or split the run into shards (--shard) on more machines.",
      "  main thread 95% busy: ≥ 90% in 8 of 8 steady intervals",
    ],
    firstBox: [],
  },
  {
    case: "self-test --sink-fault rcpt:550:every=20 that breached its threshold",
    result: () => selfTest(0.95, 2_000, 100),
    limitedBy: "generator",
    terminal: [
      "Refused by the built-in sink, not a generator ceiling: 100 of 2,000 messages (5.0%) turned away by its limits or faults (100 rejected, 0 failed, 0 connections refused); limited by the generator: this rate measures mailvolley, not the target: add --workers, or split the run into shards (--shard) on more machines.",
      "  main thread 95% busy: ≥ 90% in 8 of 8 steady intervals",
    ],
    firstBox: [],
  },
  {
    case: "a clean self-test the generator set: its ceiling, the result",
    result: () => selfTest(0.95, 2_000, 0),
    limitedBy: "generator",
    terminal: [
      "Generator ceiling on this machine: 794.6 messages/s (reuse), set by the main thread; the sink counted 2,000 accepted, as the client did.",
      "  main thread 95% busy: ≥ 90% in 8 of 8 steady intervals",
    ],
    firstBox: [],
  },
  {
    case: "through a Postfix that discarded 100 of 2,000: the lost mail first",
    result: () => throughGateway(2_000, 1_900),
    limitedBy: "target",
    terminal: [
      "Mail lost through the gateway: 100 lost of 2,000 accepted messages (the delivery section names them)",
      "Limited by the target: the target set this rate.",
      "  every generator thread had headroom; the busiest, main thread, was 10% busy, < 70% in 8 of 8 steady intervals",
    ],
    firstBox: [
      "Mail lost through the gateway: 100 lost of 2,000 accepted messages (the delivery section names them)",
    ],
  },
];

describe("the verdict table", () => {
  for (const row of ROWS) {
    test(row.case, () => {
      const r = row.result();
      assert.equal(r.generator?.limitedBy, row.limitedBy);
      assert.deepEqual(terminalVerdict(r), row.terminal, "terminal");
      const boxes = htmlVerdict(r);
      // The page leads with the same words: the lost mail's own box, then the rate's.
      const rate = row.terminal.slice(row.firstBox.length).map((l) => l.trim());
      const expected = row.firstBox.length > 0 ? [row.firstBox, rate] : [rate];
      assert.equal(boxes.length, expected.length, "HTML boxes");
      expected.forEach((lines, i) => {
        assert.deepEqual(boxes[i].slice(0, lines.length), lines, `HTML box ${i + 1}`);
      });
    });
  }

  test("each head is wrapped to the terminal's width, continuation lines indented", () => {
    const r = selfTest(0.95, 21_000, 5_235);
    const wrapped = terminalVerdict(r, 80);
    assert.ok(
      wrapped.every((l) => l.length <= 80),
      wrapped.join("\n"),
    );
    assert.equal(
      wrapped.map((l) => l.trim()).join(" "),
      terminalVerdict(r)
        .map((l) => l.trim())
        .join(" "),
      "the same words",
    );
    assert.match(wrapped[1], /^ {2}\S/);
    assert.deepEqual(wrapLines(["short"], 80), ["short"]);
    assert.deepEqual(wrapLines(["a b"], undefined), ["a b"], "no terminal: no wrapping");
  });

  test("the verdict prints the lateness it judged as the generator table prints it", () => {
    const r = openRun(200, {
      startupLate: 29,
      steadyLate: 300,
      steadyLateMs: 60,
      sessionsBusy: true,
    });
    const text = renderSummary(r, { color: false });
    const judged = /start lateness p99 ([\d,.]+) ms with the generator idle/.exec(text)?.[1];
    assert.equal(judged, "60.031");
    assert.match(
      text,
      /\nOpen model: start lateness p50 [\d.]+ \/ p99 [\d.]+ \/ max [\d.]+ ms; 329 of 2,000 arrivals started more than 10\.0 ms late; after the start-up p99 60\.031 ms \(start-up: 29 of its 200 late\)\n/,
    );
    const html = renderHtml([r]);
    assert.ok(html.includes("after the start-up p99 60.031 ms (start-up: 29 of its 200 late)"));
  });

  test("the HTML box of lost mail comes before the overview, escaped", () => {
    const html = renderHtml([throughGateway(2_000, 1_900)]);
    const box = html.indexOf('data-delivery="lost"');
    assert.ok(box > 0 && box < html.indexOf("<h2>Overview</h2>"));
    assert.ok(html.includes(esc("100 lost of 2,000 accepted messages")));
  });
});
