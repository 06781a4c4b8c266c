/**
 * The capacity search against targets whose capacity is known by construction (a fake step
 * that passes below a rate), the service levels' grammar, and the words of the report: the
 * headline in the terminal and the HTML, "at least" when the generator set the rate.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  roundRate,
  type SearchIo,
  type SearchPlan,
  searchCapacity,
} from "../src/capacity/search.js";
import { parseServiceLevels } from "../src/config/service-levels.js";
import { capacityHeadline, failureWords, renderCapacity } from "../src/report/capacity.js";
import { renderCapacityHtml } from "../src/report/html-capacity.js";
import type { Capacity, CapacityStep } from "../src/result/capacity-result.js";
import type { Result } from "../src/result/result.js";

const SETTINGS = {
  fromRate: 100,
  resolution: 0.05,
  budgetMs: 3_600_000,
  warmupMs: 0,
  stepMs: 1000,
};

/** A step of a target that holds `capacity`/s, and whose generator gives out at `ceiling`/s. */
function fakeStep(plan: SearchPlan, capacity: number, ceiling = Infinity): CapacityStep {
  const rate = plan.ratePerSecond;
  // Past the generator's ceiling a step fails on this machine's account.
  const pass = rate <= capacity && rate < ceiling;
  const limitedBy = rate >= ceiling ? "generator" : "target";
  return {
    ...plan,
    pass,
    failed: pass ? [] : ["errors"],
    limitedBy,
    arrivalsPerSecond: rate,
    acceptedPerSecond: Math.min(rate, capacity),
    deliveredPerSecond: null,
    connectP95Ms: 1,
    transactionP95Ms: pass ? 10 : 1000,
    deliveryP95Ms: null,
    errorPercent: pass ? 0 : 30,
    backlog: null,
    checks: [
      {
        criterion: "errors",
        expression: "errors<1%",
        actual: pass ? 0 : 30,
        unit: "%",
        pass,
        compliancePercent: pass ? 100 : 70,
      },
    ],
    result: {
      target: "127.0.0.1:2525",
      generator: { advice: "add --workers" },
    } as unknown as Result,
  };
}

function fakeIo(capacity: number, ceiling = Infinity): SearchIo & { rates: number[] } {
  let clock = 0;
  const rates: number[] = [];
  return {
    rates,
    step: async (plan) => {
      clock += 1000;
      rates.push(plan.ratePerSecond);
      return fakeStep(plan, capacity, ceiling);
    },
    // A closed step carries what the target holds.
    estimate: async () =>
      fakeStep(
        {
          purpose: "estimate",
          percent: null,
          ratePerSecond: capacity,
          warmupMs: 0,
          measuredMs: 1000,
        },
        capacity,
      ),
    now: () => clock,
    stopped: () => false,
  };
}

function section(
  outcome: Awaited<ReturnType<typeof searchCapacity>>,
  throughGateway = false,
): Capacity {
  const c: Capacity = {
    mode: "reuse",
    target: "127.0.0.1:2525",
    throughGateway,
    arrivals: "poisson",
    sustainedPerSecond: outcome.sustainedPerSecond,
    atLeast: outcome.atLeast,
    limitedBy: outcome.limitedBy,
    reason: outcome.reason,
    headline: "",
    levelsJudged: ["errors<1%"],
    resolutionPercent: 5,
    elapsedMs: 1000,
    steps: outcome.steps,
    levels: outcome.levels.map(({ percent, step }) => ({
      percent,
      step,
      ratePerSecond: outcome.steps[step].ratePerSecond,
      pass: outcome.steps[step].pass,
    })),
  };
  c.headline = capacityHeadline(c);
  return c;
}

describe("capacity search", () => {
  test("doubles, bisects to the resolution, and runs 80/100/120 % of the rate found", async () => {
    const io = fakeIo(190);
    const outcome = await searchCapacity(io, SETTINGS);
    assert.equal(outcome.limitedBy, "target");
    assert.equal(outcome.atLeast, false);
    const found = outcome.sustainedPerSecond ?? 0;
    assert.ok(found <= 190 && found >= 190 / 1.05, `found ${found}/s`);
    assert.deepEqual(io.rates.slice(0, 3), [100, 200, 150]);
    assert.deepEqual(
      outcome.levels.map((l) => [l.percent, outcome.steps[l.step].ratePerSecond]),
      [80, 100, 120].map((p) => [p, roundRate((found * p) / 100)]),
    );
    const c = section(outcome);
    assert.match(
      c.headline,
      /^Sustains 18\d messages\/s \(1\d,\d{3}\/min\) at the front door within the service levels; at 120 % \(2\d\d\/s\) 30\.00 % of arrivals ended in an error\.$/,
    );
  });

  test("halves when the first rate fails, and says so when no rate passes", async () => {
    const low = await searchCapacity(fakeIo(30), SETTINGS);
    assert.ok((low.sustainedPerSecond ?? 0) > 28 && (low.sustainedPerSecond ?? 0) <= 30);
    const none = await searchCapacity(fakeIo(0), SETTINGS);
    assert.equal(none.sustainedPerSecond, null);
    assert.equal(none.levels.length, 0);
    assert.match(none.reason, /^every step failed, down to 1\.\d+\/s \(errors\)$/);
    assert.match(
      section(none).headline,
      /^No step met the service levels: at 1\.\d+\/s 30\.00 % of arrivals ended in an error\.$/,
    );
  });

  test('a step the generator could not offer ends the search with "at least", in the terminal and the HTML', async () => {
    const outcome = await searchCapacity(fakeIo(10_000, 700), SETTINGS);
    assert.equal(outcome.limitedBy, "generator");
    assert.equal(outcome.atLeast, true);
    assert.equal(outcome.sustainedPerSecond, 400);
    assert.equal(outcome.levels.length, 0);
    assert.match(
      outcome.reason,
      /^at 800\/s mailvolley, not the target, set the rate: this machine's ceiling; add --workers$/,
    );
    const c = section(outcome);
    const headline =
      "Sustains at least 400 messages/s (24,000/min) at the front door within the service levels: this machine's ceiling, not the target's.";
    assert.equal(c.headline, headline);
    const doc = { schema: "mailvolley/capacity@1" as const, capacity: c };
    assert.ok(renderCapacity(doc, { color: false }).includes(`reuse: ${headline}`));
    assert.ok(
      renderCapacityHtml(doc).includes(
        `<p class="capacity-headline">${headline.replace(/'/g, "&#39;")}</p>`,
      ),
    );
  });

  test("a step that met every level counts as a pass, however busy the generator was", async () => {
    const io = fakeIo(190);
    const step = io.step;
    io.step = async (plan) => ({ ...(await step(plan)), limitedBy: "generator" as const });
    const outcome = await searchCapacity(io, SETTINGS);
    assert.equal(outcome.limitedBy, "generator");
    assert.deepEqual(io.rates, [100, 200]);
    assert.equal(outcome.sustainedPerSecond, 100);
  });

  test("a step that reached nobody ends the search: limitedBy nobody", async () => {
    const io = fakeIo(100);
    io.step = async (plan) => ({ ...fakeStep(plan, 0), limitedBy: "nobody" });
    const outcome = await searchCapacity(io, SETTINGS);
    assert.equal(outcome.limitedBy, "nobody");
    assert.equal(outcome.sustainedPerSecond, null);
    assert.equal(
      section(outcome).headline,
      "Nothing was measured: at 100/s no connection reached the target, so nothing was measured: check its address and that it listens.",
    );
  });

  test("the budget stops the search before a step would run past it", async () => {
    const outcome = await searchCapacity(fakeIo(1e9), { ...SETTINGS, budgetMs: 3500 });
    assert.equal(outcome.steps.filter((s) => s.purpose === "search").length, 3);
    assert.equal(outcome.atLeast, true);
    assert.equal(outcome.sustainedPerSecond, 400);
    assert.match(outcome.reason, /^--budget ran out after 3 steps$/);
  });

  test("without --from-rate the search starts at half what a closed step carried", async () => {
    const io = fakeIo(190);
    const outcome = await searchCapacity(io, { ...SETTINGS, fromRate: null });
    assert.equal(outcome.steps[0].purpose, "estimate");
    assert.equal(io.rates[0], 95);
  });
});

describe("a failed level in words", () => {
  const check = (criterion: string, actual: number | null, unit = "/s") => ({
    criterion,
    expression: `${criterion} flat`,
    actual,
    unit,
    pass: false,
    compliancePercent: null,
  });
  test("each trend says what grew, never the level's name", () => {
    assert.equal(failureWords(check("backlog", 41.2)), "the backlog grew 41.2/s");
    assert.equal(failureWords(check("waiting", 46)), "arrivals waiting for a session grew 46.0/s");
    assert.equal(failureWords(check("waiting", null)), "the arrivals waiting were not measured");
  });
});

describe("service levels (--qos)", () => {
  const expressions = (raw: unknown, gateway = false) =>
    parseServiceLevels(raw, gateway).map((l) => l.expression);

  test("SPECmail2001's by default; the gateway's levels only with --receive", () => {
    assert.deepEqual(expressions(undefined), [
      "connect p95<=5s",
      "transaction p95<=5s",
      "errors<1%",
      "waiting flat",
    ]);
    assert.deepEqual(expressions(undefined, true), [
      "connect p95<=5s",
      "transaction p95<=5s",
      "errors<1%",
      "waiting flat",
      "delivery p95<=60s",
      "lost==0",
      "backlog flat",
    ]);
  });

  test("a level given replaces its default, in either spelling; others are added", () => {
    assert.deepEqual(
      expressions(["connect p99<2s", "p95{phase:transaction}<500ms", "errors<0.5%", "apdex>=0.9"]),
      ["connect p99<2s", "transaction p95<500ms", "errors<0.5%", "waiting flat", "apdex>=0.9"],
    );
    assert.deepEqual(expressions(["delivery p95<30s"], true)[4], "delivery p95<30s");
    const [connect] = parseServiceLevels(["p95{phase:connect}<1s"], false);
    assert.equal(connect.limit, 1000);
  });

  test("bad input names --qos and the fix", () => {
    assert.throws(() => parseServiceLevels(["connect fast"], false), /--qos.*connect p95<5s/);
    assert.throws(
      () => parseServiceLevels(["connect rate<5"], false),
      /--qos.*connect takes a latency/,
    );
    assert.throws(
      () => parseServiceLevels(["delivery p95<30s"], false),
      /--qos.*add --receive ADDR/,
    );
  });
});
