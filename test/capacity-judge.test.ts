/**
 * A capacity step judged over its measured window, the warm-up left out, for every level:
 * connects from the series' per-interval connect histograms, delivery and loss from the
 * delivery section's seconds due; and the words of the 80/100/120 table in the terminal and
 * the HTML. Results are built from fixed events, so every figure is known.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { judgeStep, type StepPlan } from "../src/capacity/judge.js";
import { parseServiceLevels } from "../src/config/service-levels.js";
import { DeliveryJoin } from "../src/delivery/join.js";
import { complianceRows, complianceTable } from "../src/report/capacity.js";
import { renderCapacityHtml } from "../src/report/html-capacity.js";
import { painter } from "../src/report/terminal.js";
import type { Capacity, CapacityCheck, CapacityStep } from "../src/result/capacity-result.js";
import type { Result } from "../src/result/result.js";
import { buildResult } from "../src/result/summarise.js";
import { RunStats } from "../src/stats/collector.js";
import { summariseHistogram } from "../src/stats/histogram.js";

/** A whole second: the series' intervals and the seconds due start at its multiples. */
const T0 = 1_764_683_700_000;
const RUN = "0123456789ab";
const SECONDS = 10;
const PER_SECOND = 10;

/** Two seconds of warm-up, eight measured: the series' first interval starts at T0. */
const PLAN: StepPlan = {
  purpose: "search",
  percent: null,
  ratePerSecond: PER_SECOND,
  warmupMs: 2000,
  measuredMs: 8000,
  arrivals: null,
};

interface StepEvents {
  /** The connect latency of each second's one connection, ms; null: none that second. */
  connectMs(second: number): number | null;
  /** What became of message `i` of second `second`: its end-to-end ms, or lost. */
  delivery?(second: number, i: number): number | "lost";
}

/** Ten seconds of ten messages each, every one accepted in 4 ms; with `delivery`, relayed. */
function stepResult(events: StepEvents): Result {
  let now = T0;
  const stats = new RunStats(["default"], 1000, { clock: () => now });
  const join = events.delivery ? new DeliveryJoin({ classNames: ["default"] }) : null;
  join?.addRun(RUN, { classOf: () => 0, recipientsOf: () => 1 });
  stats.sample(T0, 0);
  stats.touch(T0);
  let seq = 0;
  for (let second = 0; second < SECONDS; second++) {
    const connect = events.connectMs(second);
    if (connect !== null) {
      stats.connectionOpened();
      stats.record("connect", connect);
      stats.connectionEstablished();
    }
    for (let i = 0; i < PER_SECOND; i++) {
      now = T0 + second * 1000 + i * 100;
      stats.messageStarted(1);
      stats.recipientAccepted();
      stats.messageSettled(0, "accepted", 4);
      seq++;
      join?.accept(RUN, seq, now, now + 4, "");
      const fate = events.delivery?.(second, i);
      if (typeof fate === "number") {
        join?.copy(RUN, seq, "traceHeader", ["0.sink@localhost"], now + fate, false);
      }
    }
    stats.sample(T0 + (second + 1) * 1000 + 20, 1);
  }
  stats.touch(T0 + SECONDS * 1000);
  stats.sample(T0 + SECONDS * 1000 + 10, 0, true);
  const result = buildResult(stats.snapshot(), {
    mode: "per-message",
    target: "127.0.0.1:2525",
    runId: RUN,
    sessions: 1,
  });
  if (join) {
    result.delivery = join.finish({
      receiver: "test",
      counts: { foreign: 0, notices: 0, noticesUnjoined: 0 },
      firstConnectMs: T0,
    });
  }
  return result;
}

const check = (step: ReturnType<typeof judgeStep>, criterion: string) => {
  const found = step.checks.find((c) => c.criterion === criterion);
  assert.ok(found, criterion);
  return found;
};

describe("connect over the measured window", () => {
  const levels = parseServiceLevels(undefined, false);

  test("slow connects only in the warm-up do not fail the step", () => {
    const result = stepResult({ connectMs: (s) => (s < 2 ? 8000 : 2) });
    // Over the whole step, two connects in ten are slow: its p95 would fail the level.
    assert.ok((result.latency.connectMs?.p95 ?? 0) > 5000);
    const step = judgeStep(result, PLAN, levels);
    assert.deepEqual(step.failed, []);
    assert.equal(step.pass, true);
    assert.equal(step.connectP95Ms, 2);
    assert.deepEqual(
      [check(step, "connect").actual, check(step, "connect").compliancePercent],
      [2, 100],
    );
  });

  test("a slow connect in the window fails it, and its % compliant counts it", () => {
    const step = judgeStep(stepResult({ connectMs: (s) => (s === 5 ? 8000 : 2) }), PLAN, levels);
    assert.deepEqual(step.failed, ["connect"]);
    const c = check(step, "connect");
    assert.equal(c.pass, false);
    // One connect in the window's eight was slower than 5 s.
    assert.equal(c.compliancePercent, 87.5);
    assert.ok((step.connectP95Ms ?? 0) > 5000);
    assert.equal(check(step, "transaction").compliancePercent, 100);
  });

  test("no connect in the window (sessions held since the warm-up): nothing was slow", () => {
    const step = judgeStep(stepResult({ connectMs: (s) => (s === 0 ? 8000 : null) }), PLAN, levels);
    assert.equal(step.pass, true);
    assert.equal(step.connectP95Ms, null);
    const c = check(step, "connect");
    assert.deepEqual([c.actual, c.compliancePercent, c.pass], [null, null, true]);
  });

  test("the series carries a connect histogram only for intervals that made connects", () => {
    const result = stepResult({ connectMs: (s) => (s % 2 === 0 ? 1 : null) });
    const withConnects = result.series.points.map((p) => p.connectHistogram !== undefined);
    assert.deepEqual(withConnects.slice(0, SECONDS), [
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    const counts = result.series.points.map((p) =>
      p.connectHistogram ? summariseHistogram(p.connectHistogram).count : 0,
    );
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      result.latency.connectMs?.count,
    );
  });
});

describe("delivery over the measured window", () => {
  const levels = parseServiceLevels(undefined, true);
  const fast = () => 2;

  test("slow and lost messages due in the warm-up do not fail the step", () => {
    const result = stepResult({
      connectMs: fast,
      delivery: (s, i) => (s < 2 ? (i === 0 ? "lost" : 90_000) : 50),
    });
    const d = result.delivery;
    assert.ok(d);
    // Over the whole run the warm-up's messages would fail both levels.
    assert.ok(d.endToEndMs.p95 > 60_000);
    assert.equal(d.lost, 2);
    const step = judgeStep(result, PLAN, levels);
    // HDR keeps 3 significant digits.
    assert.equal(Math.round(step.deliveryP95Ms ?? 0), 50);
    const delivery = check(step, "delivery");
    assert.deepEqual([delivery.pass, delivery.compliancePercent], [true, 100]);
    const lost = check(step, "lost");
    assert.deepEqual([lost.actual, lost.pass, lost.compliancePercent], [0, true, 100]);
  });

  test("in the window a lost message counts as not delivered in time, and fails the lost level", () => {
    // Of the window's 80 messages, one lost and three after 90 s: 76 within 60 s.
    const result = stepResult({
      connectMs: fast,
      delivery: (s, i) =>
        s === 4 && i === 0 ? "lost" : s === 6 && i < 3 ? 90_000 : s < 2 ? 90_000 : 50,
    });
    const step = judgeStep(result, PLAN, levels);
    const delivery = check(step, "delivery");
    // p95 of the 79 that arrived is within 60 s; 95 % of the 80 accepted were.
    assert.deepEqual([delivery.pass, delivery.compliancePercent], [true, 95]);
    const lost = check(step, "lost");
    assert.deepEqual([lost.actual, lost.pass, lost.compliancePercent], [1, false, 98.75]);
    assert.ok(step.failed.includes("lost"));
  });

  test("the delivery section keeps each due second's accepted, lost and in-time messages", () => {
    const result = stepResult({
      connectMs: fast,
      delivery: (s, i) => (s === 3 && i < 2 ? "lost" : 50),
    });
    const due = result.delivery?.dueSeconds ?? [];
    assert.deepEqual(
      due.map((s) => [
        s.t - T0,
        s.accepted,
        s.lost,
        s.endToEndHistogram ? summariseHistogram(s.endToEndHistogram).count : 0,
      ]),
      Array.from({ length: SECONDS }, (_, s) => [s * 1000, 10, s === 3 ? 2 : 0, s === 3 ? 8 : 10]),
    );
  });
});

describe("seconds due, parked and woken", () => {
  test("an arrival for a second parked long ago still counts in it", () => {
    const join = new DeliveryJoin({ classNames: ["default"], recent: 0 });
    join.addRun(RUN, { classOf: () => 0, recipientsOf: () => 1 });
    // 100 seconds of one message each, relayed at once; one more of the first second at the end.
    for (let s = 0; s < 100; s++) {
      const at = T0 + s * 1000;
      join.accept(RUN, s + 1, at, at + 1, "");
      join.copy(RUN, s + 1, "traceHeader", ["0.sink@localhost"], at + 10, false);
    }
    join.accept(RUN, 101, T0 + 500, T0 + 501, "");
    join.copy(RUN, 101, "traceHeader", ["0.sink@localhost"], T0 + 100_000, false);
    const d = join.finish({
      receiver: "test",
      counts: { foreign: 0, notices: 0, noticesUnjoined: 0 },
      firstConnectMs: T0,
    });
    const due = d.dueSeconds ?? [];
    assert.equal(due.length, 100);
    const first = summariseHistogram(due[0].endToEndHistogram ?? "");
    // The later one, 99.5 s after it was due (HDR keeps 3 significant digits).
    assert.deepEqual([due[0].accepted, first.count, Math.round(first.max / 1000)], [2, 2, 100]);
    assert.ok(due.slice(1).every((s) => s.accepted === 1 && s.endToEndHistogram !== null));
  });
});

/** A level step with the checks given, in levelsJudged's order. */
function levelStep(percent: number, rate: number, checks: CapacityCheck[]): CapacityStep {
  const pass = checks.every((c) => c.pass);
  return {
    purpose: "level",
    percent,
    ratePerSecond: rate,
    warmupMs: 5000,
    measuredMs: 30_000,
    pass,
    failed: checks.filter((c) => !c.pass).map((c) => c.criterion),
    limitedBy: "target",
    arrivalsPerSecond: rate,
    acceptedPerSecond: rate,
    deliveredPerSecond: rate,
    connectP95Ms: null,
    transactionP95Ms: 12,
    deliveryP95Ms: 40,
    errorPercent: 0,
    backlog: { perSecond: 0.2, trend: "flat", tolerancePerSecond: 3.2 },
    checks,
    result: {} as Result,
  };
}

const row = (
  criterion: string,
  expression: string,
  actual: number | null,
  unit: string,
  compliancePercent: number | null,
  pass: boolean,
): CapacityCheck => ({ criterion, expression, actual, unit, compliancePercent, pass });

const JUDGED = [
  "connect p95<=5s",
  "transaction p95<=5s",
  "errors<1%",
  "waiting flat",
  "delivery p95<=60s",
  "lost==0",
  "backlog flat",
  "apdex>=0.9",
];

/** 80 % meets every level; 100 % too, its connects all made in the warm-up; 120 % fails most. */
function levelsCapacity(): Capacity {
  const steps = [
    levelStep(80, 160, [
      row("connect", JUDGED[0], 3.1, "ms", 100, true),
      row("transaction", JUDGED[1], 12, "ms", 99.98, true),
      row("errors", JUDGED[2], 0.05, "%", 99.95, true),
      row("waiting", JUDGED[3], 0.4, "/s", null, true),
      row("delivery", JUDGED[4], 40, "ms", 100, true),
      row("lost", JUDGED[5], 0, "", 100, true),
      row("backlog", JUDGED[6], 0.2, "/s", null, true),
      row("threshold", JUDGED[7], 0.97, "", null, true),
    ]),
    levelStep(100, 200, [
      row("connect", JUDGED[0], null, "ms", null, true),
      row("transaction", JUDGED[1], 30, "ms", 99.5, true),
      row("errors", JUDGED[2], 0, "%", 100, true),
      row("waiting", JUDGED[3], 4.5, "/s", null, true),
      row("delivery", JUDGED[4], 900, "ms", 99.2, true),
      row("lost", JUDGED[5], 0, "", 100, true),
      row("backlog", JUDGED[6], -0.5, "/s", null, true),
      row("threshold", JUDGED[7], 0.93, "", null, true),
    ]),
    levelStep(120, 240, [
      row("connect", JUDGED[0], 6100, "ms", 93.4, false),
      row("transaction", JUDGED[1], 5200, "ms", 94.1, false),
      row("errors", JUDGED[2], 2.5, "%", 97.5, false),
      row("waiting", JUDGED[3], 12.3, "/s", null, false),
      row("delivery", JUDGED[4], 73_000, "ms", 81.25, false),
      row("lost", JUDGED[5], 3, "", 99.94, false),
      row("backlog", JUDGED[6], 41, "/s", null, false),
      row("threshold", JUDGED[7], 0.82, "", null, false),
    ]),
  ];
  return {
    mode: "reuse",
    target: "127.0.0.1:2525",
    throughGateway: true,
    arrivals: "poisson",
    sustainedPerSecond: 200,
    atLeast: false,
    limitedBy: "target",
    reason: "200/s passed and 210/s failed: within --resolution 5 %",
    headline: "",
    levelsJudged: JUDGED,
    resolutionPercent: 5,
    elapsedMs: 1000,
    steps,
    levels: steps.map((s, i) => ({
      percent: s.percent ?? 0,
      ratePerSecond: s.ratePerSecond,
      pass: s.pass,
      step: i,
    })),
  };
}

/** The table's words: per level, what its cells show, then each level step's cell. */
const EXPECTED = [
  ["connect p95<=5s", "% connects within 5s", "100.00 % pass", "no connect pass", "93.40 % fail"],
  [
    "transaction p95<=5s",
    "% transactions within 5s",
    "99.98 % pass",
    "99.50 % pass",
    "94.10 % fail",
  ],
  ["errors<1%", "% arrivals error-free", "99.95 % pass", "100.00 % pass", "97.50 % fail"],
  [
    "waiting flat",
    "trend of arrivals waiting",
    "flat +0.4/s pass",
    "flat +4.5/s pass",
    "growing +12.3/s fail",
  ],
  ["delivery p95<=60s", "% delivered within 60s", "100.00 % pass", "99.20 % pass", "81.25 % fail"],
  ["lost==0", "messages lost", "0 pass", "0 pass", "3 fail"],
  [
    "backlog flat",
    "trend of the backlog",
    "flat +0.2/s pass",
    "flat -0.5/s pass",
    "growing +41.0/s fail",
  ],
  ["apdex>=0.9", "measured over the whole step", "0.970 pass", "0.930 pass", "0.820 fail"],
  ["all levels", "", "pass", "pass", "fail"],
];

describe("the 80/100/120 table", () => {
  test("the terminal: per level the % compliant or the value measured, and pass or fail", () => {
    assert.equal(
      complianceTable(levelsCapacity(), painter(false)),
      [
        "service level        shown                             80 % (160/s)     100 % (200/s)         120 % (240/s)",
        "connect p95<=5s      % connects within 5s             100.00 % pass   no connect pass          93.40 % fail",
        "transaction p95<=5s  % transactions within 5s          99.98 % pass      99.50 % pass          94.10 % fail",
        "errors<1%            % arrivals error-free             99.95 % pass     100.00 % pass          97.50 % fail",
        "waiting flat         trend of arrivals waiting     flat +0.4/s pass  flat +4.5/s pass  growing +12.3/s fail",
        "delivery p95<=60s    % delivered within 60s           100.00 % pass      99.20 % pass          81.25 % fail",
        "lost==0              messages lost                           0 pass            0 pass                3 fail",
        "backlog flat         trend of the backlog          flat +0.2/s pass  flat -0.5/s pass  growing +41.0/s fail",
        "apdex>=0.9           measured over the whole step        0.970 pass        0.930 pass            0.820 fail",
        "all levels                                                     pass              pass                  fail",
      ].join("\n"),
    );
    const cells = (line: string) => line.split(/ {2,}/);
    const table = complianceTable(levelsCapacity(), painter(false)) ?? "";
    // The same words, cell by cell, as the HTML gives them.
    assert.deepEqual(
      table
        .split("\n")
        .slice(1)
        .map((line, i) =>
          i === EXPECTED.length - 1 ? ["all levels", "", ...cells(line).slice(1)] : cells(line),
        ),
      EXPECTED,
    );
  });

  test("the HTML: the same words, each cell marked pass or fail", () => {
    const html = renderCapacityHtml({
      schema: "mailvolley/capacity@1",
      capacity: levelsCapacity(),
    });
    const td = (text: string, j: number) =>
      j < 2
        ? `<td>${text}</td>`
        : `<td class="${text.endsWith("fail") ? "fail" : "pass"}">${text}</td>`;
    const rows = EXPECTED.map(
      (r) =>
        `<tr>${r.map((text, j) => td(text.replace("<", "&lt;").replace(">", "&gt;"), j)).join("")}</tr>`,
    );
    const header =
      "<tr><th>service level</th><th>shown</th><th>80 % (160/s)</th><th>100 % (200/s)</th><th>120 % (240/s)</th></tr>";
    assert.ok(
      html.includes(
        `<h3>At 80, 100 and 120 % of the rate found: each level's % compliant (or what was measured), pass or fail</h3><table>${header}${rows.join("")}</table>`,
      ),
      html,
    );
  });

  test("a window without samples, and a document written before delivery had its share", () => {
    const c = levelsCapacity();
    const at120 = c.steps[2].checks;
    at120[1] = row("transaction", JUDGED[1], null, "ms", null, false);
    at120[4] = row("delivery", JUDGED[4], 5700, "ms", null, true);
    at120[5] = row("lost", JUDGED[5], null, "", null, false);
    at120[7] = row("threshold", JUDGED[7], null, "", null, false);
    assert.deepEqual(
      complianceRows(c).map((r) => r.cells[2].text),
      [
        "93.40 % fail",
        "no transaction fail",
        "97.50 % fail",
        "growing +12.3/s fail",
        "delivery p95 5.7 s pass",
        "– fail",
        "growing +41.0/s fail",
        "– fail",
      ],
    );
  });
});

describe("arrivals waiting over a window of one interval", () => {
  const levels = parseServiceLevels(undefined, false);
  /** One second offered at `rate` with no warm-up; `accepted` of its arrivals settled. */
  const oneSecond = (rate: number, accepted: number) => {
    let now = T0;
    const stats = new RunStats(["default"], 1000, { clock: () => now });
    stats.sample(T0, 0);
    stats.touch(T0);
    for (let i = 0; i < accepted; i++) {
      now = T0 + i * 10;
      stats.messageStarted(1);
      stats.recipientAccepted();
      stats.messageSettled(0, "accepted", 4);
    }
    stats.sample(T0 + 1000, 1);
    stats.touch(T0 + 1000);
    stats.sample(T0 + 1010, 0, true);
    const result = buildResult(stats.snapshot(), {
      mode: "reuse",
      target: "127.0.0.1:2525",
      runId: RUN,
      sessions: 1,
    });
    const plan: StepPlan = {
      purpose: "search",
      percent: null,
      ratePerSecond: rate,
      warmupMs: 0,
      measuredMs: 1000,
      arrivals: { kind: "constant", seed: 1 },
    };
    return judgeStep(result, plan, levels);
  };

  test("a target that took 9 of 128 arrivals in the one second did not sustain 128/s", () => {
    const step = oneSecond(128, 9);
    const waiting = check(step, "waiting");
    assert.equal(waiting.pass, false);
    assert.ok((waiting.actual ?? 0) > 100, `waiting grew ${waiting.actual}/s`);
    assert.equal(step.pass, false);
    assert.ok(step.failed.includes("waiting"));
  });

  test("one that took them all passes it", () => {
    const step = oneSecond(128, 128);
    assert.equal(check(step, "waiting").pass, true);
  });
});
