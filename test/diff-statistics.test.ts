/**
 * The statistics of repeated runs held to published values: scipy 1.17's results for fixed
 * samples and its t critical values (test/fixtures/scipy-statistics.json, made with
 * scipy.stats.ttest_ind(b, a, equal_var=False), its confidence_interval(0.95), t.ppf(0.975, df)
 * and t.interval), then what a diff and a repeat say about known cases, word for word.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { diffFigure, diffOf } from "../src/diff/diff.js";
import { parseFailIf } from "../src/diff/gate.js";
import { betterOf, HEADLINE_FIGURES, type HeadlineFigures } from "../src/diff/headline-figures.js";
import { loadDifferences } from "../src/diff/load.js";
import { ratioSpreads, spreads } from "../src/diff/repeat.js";
import { spreadOf, tCritical, welch } from "../src/diff/statistics.js";
import { renderDiff } from "../src/report/diff.js";
import { renderDiffHtml } from "../src/report/html-diff.js";
import { repeatHtml } from "../src/report/html-repeat.js";
import { repeatBlock } from "../src/report/repeat.js";
import { painter } from "../src/report/terminal.js";
import type { Result } from "../src/result/result.js";
import { UsageError } from "../src/usage/usage-error.js";

interface Fixtures {
  welch: { name: string; a: number[]; b: number[]; p: number; low: number; high: number }[];
  tQuantile975: { df: number; value: number }[];
  spread: { values: number[]; mean: number; sd: number; ciLow: number; ciHigh: number }[];
}

const FIXTURES = JSON.parse(
  readFileSync(new URL("../../test/fixtures/scipy-statistics.json", import.meta.url), "utf8"),
) as Fixtures;

/** Equal to 1e-9 relative: the same formula in two libraries, not two approximations. */
function close(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null, `${what}: null`);
  const tolerance = 1e-9 * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs scipy ${expected}`);
}

/** Runs whose only figure is throughput (the others null, as in a run without them). */
function runs(values: number[]): HeadlineFigures[] {
  return values.map((throughput) => {
    const figures = Object.fromEntries(HEADLINE_FIGURES.map((f) => [f, null]));
    return { ...figures, throughput } as HeadlineFigures;
  });
}

describe("statistics against scipy", () => {
  test("t critical values (two-sided 95 %)", () => {
    for (const { df, value } of FIXTURES.tQuantile975) close(tCritical(df), value, `df ${df}`);
  });

  test("a side's mean, standard deviation and 95 % interval", () => {
    for (const f of FIXTURES.spread) {
      const s = spreadOf(f.values);
      close(s.mean, f.mean, "mean");
      close(s.sd, f.sd, "sd");
      close(s.ciLow, f.ciLow, "ciLow");
      close(s.ciHigh, f.ciHigh, "ciHigh");
    }
  });

  test("Welch's t-test: p-value and the interval of mean B − mean A", () => {
    for (const f of FIXTURES.welch) {
      const w = welch(f.a, f.b);
      close(w.p, f.p, `${f.name} p`);
      close(w.low, f.low, `${f.name} low`);
      close(w.high, f.high, `${f.name} high`);
    }
  });

  test("sides that did not vary: equal means p = 1, different ones p = 0", () => {
    assert.deepEqual(welch([5, 5, 5], [5, 5, 5]), { p: 1, low: 0, high: 0 });
    assert.equal(welch([5, 5, 5], [6, 6, 6]).p, 0);
  });

  test("one run: no interval, sd 0", () => {
    const s = spreadOf([42]);
    assert.equal(s.sd, 0);
    assert.equal(s.ciLow, null);
    assert.equal(s.cv, 0);
  });
});

describe("a diff of known cases", () => {
  test("the Mailman example: 19.60 against 32.52 messages/s is better, and significant", () => {
    const mailman = FIXTURES.welch.find((f) => f.name === "mailman");
    assert.ok(mailman);
    const f = diffFigure("throughput", runs(mailman.a), runs(mailman.b));
    assert.ok(f);
    close(f.a.mean, 19.6, "A");
    close(f.b.mean, 32.52, "B");
    close(f.change, (32.52 - 19.6) / 19.6, "change");
    close(f.p, mailman.p, "p");
    assert.equal(f.significant, true);
    assert.equal(f.verdict, "better");
  });

  test("a set against itself: change 0, not significant, ~", () => {
    const f = diffFigure("throughput", runs([300, 310, 290]), runs([300, 310, 290]));
    assert.ok(f);
    assert.equal(f.change, 0);
    assert.equal(f.p, 1);
    assert.equal(f.significant, false);
    assert.equal(f.verdict, "~");
  });

  test("a figure that is 0 on both sides: change 0, not n/a", () => {
    const zero = (n: number) => runs(Array(n).fill(0));
    const f = diffFigure("throughput", zero(3), zero(3));
    assert.equal(f?.change, 0);
    assert.equal(f?.changeLow, 0);
    assert.equal(f?.verdict, "~");
    assert.equal(diffFigure("throughput", zero(3), runs([1, 2, 3]))?.change, null);
  });

  test("which way is better comes from the figure's definition", () => {
    assert.equal(betterOf("throughput"), "higher");
    assert.equal(betterOf("transactionP99Ms"), "lower");
    assert.equal(betterOf("backlogMax"), "lower");
    assert.equal(betterOf("relayedPerSecond"), "higher");
    const latency = (v: number[]) =>
      runs(v).map((r) => ({ ...r, throughput: null, transactionP99Ms: r.throughput }));
    const faster = diffFigure("transactionP99Ms", latency([10, 11, 10.5]), latency([5, 5.5, 5.2]));
    assert.equal(faster?.verdict, "better");
  });

  test("fewer than 3 runs a side: figures shown, nothing significant, and it says so", () => {
    const doc = diffOf(
      { files: ["a.json"], load: null, runs: runs([100, 101]) },
      { files: ["b.json"], load: null, runs: runs([50, 51]) },
      [parseFailIf("throughput<-5%")],
      [],
    );
    const [f] = doc.diff.figures;
    assert.equal(doc.diff.conclusive, false);
    assert.equal(f.significant, false);
    assert.equal(f.verdict, "~");
    assert.equal(doc.diff.failIf[0].breached, false, "noise never fails a build");
    const text = renderDiff(doc, { color: false });
    assert.match(
      text,
      /fewer than 3 runs a side: nothing can be concluded \(run each with --repeat 3 or more\)/,
    );
    assert.match(text, /throughput\s+100\.5 ± 6\.4\s+50\.5 ± 6\.4\s+-49\.8 %/);
    assert.match(renderDiffHtml(doc), /fewer than 3 runs a side: nothing can be concluded/);
  });

  test("a significant drop: worse, --fail-if breached; the table and the page say so", () => {
    const doc = diffOf(
      {
        files: ["a.json"],
        load: "closed, 300 messages, 1 session, 1 KiB",
        runs: runs([400, 410, 395, 405, 402]),
      },
      { files: ["b.json"], load: null, runs: runs([180, 185, 178, 182, 181]) },
      [parseFailIf("throughput<-5%"), parseFailIf("throughput<-60%")],
      [],
    );
    const [f] = doc.diff.figures;
    assert.equal(f.verdict, "worse");
    assert.deepEqual(
      doc.diff.failIf.map((g) => g.breached),
      [true, false],
    );
    const text = renderDiff(doc, { color: false });
    assert.match(
      text,
      /^throughput\s+402\.4 ± 6\.9\s+181\.2 ± 3\.2\s+-55\.0 % \(-56\.7 % … -53\.3 %\)\s+<0\.001\s+worse$/m,
    );
    assert.match(text, /--fail-if throughput<-5%: breached/);
    assert.match(text, /--fail-if throughput<-60%: held/);
    assert.match(text, /p: Welch's t-test; ~: no significant difference \(p ≥ 0\.05\)/);
    const html = renderDiffHtml(doc);
    assert.equal((html.match(/<circle class="a"/g) ?? []).length, 5, "every run of A a point");
    assert.equal((html.match(/<circle class="b"/g) ?? []).length, 5, "every run of B a point");
    assert.match(html, /data-field="diff\.figures\.0\.verdict">worse</);
    assert.match(html, /--fail-if throughput&lt;-5%: breached/);
  });
});

describe("--fail-if grammar", () => {
  test("FIGURE OP CHANGE%", () => {
    assert.deepEqual(parseFailIf("throughput<-5%"), {
      expression: "throughput<-5%",
      figure: "throughput",
      op: "<",
      bound: -0.05,
    });
    assert.equal(parseFailIf("transactionP99Ms >= +10.5%").bound, 0.105);
  });

  test("bad bounds name the option and the fix", () => {
    assert.throws(
      () => parseFailIf("throughput<-5"),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.equal(e.option, "--fail-if");
        assert.match(e.problem, /expected FIGURE OP CHANGE%, e\.g\. 'throughput<-5%'/);
        return true;
      },
    );
    assert.throws(
      () => parseFailIf("thruput<-5%"),
      /"thruput" is no figure; give one of throughput,/,
    );
  });
});

describe("what a load is", () => {
  const result = (options: Record<string, unknown>) =>
    ({ mode: "reuse", run: { options } }) as unknown as Result;

  test("the target's address and the run's id are not part of it; sessions are", () => {
    const a = result({ target: "127.0.0.1:2525", runId: "x", sessions: 1, messages: 300 });
    const b = result({ target: "10.0.0.2:25", runId: "y", sessions: 1, messages: 300 });
    assert.deepEqual(loadDifferences(a, b), []);
    const c = result({ target: "10.0.0.2:25", runId: "z", sessions: 2, messages: 300 });
    assert.deepEqual(loadDifferences(a, c), ["sessions: 1 vs 2"]);
  });
});

describe("--repeat's spread in words", () => {
  const repeated = (values: number[]) =>
    ({
      repeat: {
        count: values.length,
        pauseMs: 5000,
        runs: [],
        spread: spreads(runs(values)),
      },
    }) as unknown as Result;

  test("steady runs: mean ± CI, no warning", () => {
    const text = repeatBlock(repeated([400, 402, 398]), painter(false)) ?? "";
    assert.match(text, /^Repeated {6}3 runs, 5\.0 s apart; the figures above are the last run's$/m);
    assert.match(text, /throughput\s+400\.0 ± 5\.0\s+2\.0\s+398\.0 … 402\.0\s+0\.5 %/);
    assert.doesNotMatch(text, /unstable/);
    assert.doesNotMatch(repeatHtml([repeated([400, 402, 398])]), /unstable/);
  });

  test("runs that vary over 10 %: the warning, in the terminal and the HTML", () => {
    const shaky = repeated([400, 250, 520]);
    assert.match(
      repeatBlock(shaky, painter(false)) ?? "",
      /unstable: add runs, or quiet the machine \(CV over 10 %: throughput 34\.7 %\)/,
    );
    assert.match(
      repeatHtml([shaky]),
      /unstable: add runs, or quiet the machine \(CV over 10 %: throughput 34\.7 %\)/,
    );
    assert.match(repeatHtml([shaky]), /data-field="repeat\.spread\.throughput\.mean"/);
  });

  test("compare --repeat's ratio per round", () => {
    const ratio = ratioSpreads(runs([100, 200]), runs([300, 500])).throughput;
    assert.equal(ratio?.mean, 2.75);
    assert.equal(ratio?.runs, 2);
  });
});
