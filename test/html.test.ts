/**
 * The HTML report in headless Chromium, as users get it: written by bin/mailvolley.js (the
 * bundle `npm run build` leaves, `run --html` and `report FILE --html`), opened from a file
 * without a network. It draws its charts, logs no console errors, and every number it shows
 * equals the JSON's.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { renderHtml } from "../src/report/html.js";
import type { Result } from "../src/result/result.js";
import {
  assertChartsDrawn,
  openInChromium,
  type PageCheck,
  skipWithoutChromium,
} from "./helpers/chromium.js";
import { mailvolley } from "./helpers/cli.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { runClient } from "./helpers/run-client.js";
import { tempDir } from "./helpers/tmp.js";
import { portOf, withSink } from "./sink-helpers.js";

/** `mailvolley ARGS` through the bin, which must succeed without a word on stderr. */
async function bin(args: string[]): Promise<void> {
  const { code, stderr } = await mailvolley(args);
  assert.equal(stderr, "", args.join(" "));
  assert.equal(code, 0, args.join(" "));
}

/** A saved result (run or compare) re-rendered by `mailvolley report FILE --html`: the page's file. */
async function reportHtml(doc: unknown): Promise<string> {
  const dir = tempDir("mailvolley-html-");
  const json = join(dir, "result.json");
  const html = join(dir, "report.html");
  writeFileSync(json, JSON.stringify(doc));
  await bin(["report", json, "--html", html, "-q"]);
  return html;
}

function at(doc: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], doc);
}

function checkFigures(check: PageCheck, doc: unknown): void {
  assert.ok(check.figures.length > 40, `only ${check.figures.length} figures`);
  for (const f of check.figures) {
    const json = at(doc, f.field);
    assert.equal(f.value, json, `${f.field}: page ${f.value}, JSON ${json}`);
    // The shown text is the JSON's value rounded to the digits shown.
    const shown = Number(f.text.replace(/,/g, ""));
    const digits = (f.text.split(".")[1] ?? "").length;
    assert.ok(
      Math.abs(shown - (json as number)) <= 0.5 * 10 ** -digits + 1e-9,
      `${f.field}: "${f.text}" vs ${json}`,
    );
  }
}

test("run --html and report --html through the bin: charts drawn, no console errors, no network, numbers equal the JSON", async (t) => {
  if (skipWithoutChromium(t)) return;
  const dir = tempDir("mailvolley-html-");
  const json = join(dir, "run.json");
  const runHtml = join(dir, "run.html");
  await bin([
    "run",
    "-c",
    "3",
    "-m",
    "600",
    "--workers",
    "1",
    "-q",
    "--json",
    json,
    "--html",
    runHtml,
  ]);
  const doc = JSON.parse(readFileSync(json, "utf8")) as Result;
  const reportFile = join(dir, "report.html");
  await bin(["report", json, "--html", reportFile, "-q"]);
  assertChartsDrawn(await openInChromium(reportFile));
  const check = await openInChromium(runHtml);
  assertChartsDrawn(check);
  checkFigures(check, doc);
  // What the terminal shows, the page shows too (issue 13 item 3).
  const fields = check.figures.map((f) => f.field);
  assert.ok(fields.includes("messages.dropped"));
  assert.ok(fields.includes("latencyUncorrected.transactionMs.p99"));
  // The x axis spans the run, from its first connect to its last reply, in ms under 2 s.
  const scale = doc.elapsedSeconds < 2 ? 1000 : 1;
  for (const id of ["chart-throughput", "chart-latency", "chart-sessions"]) {
    const chart = check.charts[id];
    assert.equal(chart.xUnit, scale === 1000 ? "ms" : "s", id);
    assert.equal(chart.xMin, 0, id);
    assert.ok(Math.abs(chart.xMax - doc.elapsedSeconds * scale) < 1e-6, `${id}: ${chart.xMax}`);
  }
  // No "--" in the legends: nothing while the cursor is away, figures while it is on a chart.
  assert.ok(check.legendValues.length > 6, check.legendValues.join());
  assert.deepEqual([...new Set(check.legendValues)], [""]);
  assert.equal(check.xRowsShown, 0);
  assert.ok(!check.hovered.includes("--"), check.hovered.join());
  assert.ok(
    check.hovered.every((v) => /^\d+(\.\d+)?$/.test(v)),
    check.hovered.join(),
  );
});

test("a run of one interval under a second: an x axis in ms over the run, a line across it", async (t) => {
  if (skipWithoutChromium(t)) return;
  const doc = JSON.parse(JSON.stringify(fixedResult("reuse"))) as Result;
  doc.series.points = doc.series.points.slice(0, 1);
  doc.elapsedSeconds = 0.4;
  const check = await openInChromium(await reportHtml(doc));
  assert.deepEqual(check.errors, []);
  assert.deepEqual(check.charts["chart-throughput"], {
    xMin: 0,
    xMax: 400,
    xUnit: "ms",
    markers: ["knee", "first rate limited (connection 4)"],
  });
  // One interval is a step over the whole run, not one dot at 0.
  assert.ok(check.acceptedCoverage > 0.9, `accepted/s drawn over ${check.acceptedCoverage}`);
});

test("a run refused by the gateway: the first refusal marked on the charts, exact", async (t) => {
  if (skipWithoutChromium(t)) return;
  let result: Result | undefined;
  await withSink({ maxConnectionRate: "30/60s" }, async (sink) => {
    result = await runClient(`127.0.0.1:${portOf(sink)}`, {
      sessions: 4,
      messages: 300,
      mode: "per-message",
      reconnectAttempts: 1000,
    });
  });
  const doc = JSON.parse(JSON.stringify(result)) as Result;
  const refused = doc.firstSeen?.find((f) => f.class === "refused");
  assert.equal(refused?.connection, 31);
  const file = await reportHtml(doc);
  const marker = `{"x":${refused.atSeconds},"label":"first refused by gateway (connection 31)"`;
  assert.ok(readFileSync(file, "utf8").includes(marker), marker);
  const check = await openInChromium(file);
  assert.deepEqual(check.errors, []);
  for (const id of ["chart-throughput", "chart-errors", "chart-sessions"]) {
    assert.deepEqual(check.charts[id].markers, [
      "knee",
      "first refused by gateway (connection 31)",
    ]);
  }
  assert.deepEqual(check.legends["chart-errors"], ["ms", "refused by gateway"]);
});

test("dropped arrivals: the scheduled rate beside the achieved one, and dropped/s", async (t) => {
  if (skipWithoutChromium(t)) return;
  const doc = JSON.parse(JSON.stringify(fixedResult("reuse"))) as Result;
  doc.series.points[1].dropped = 25;
  doc.messages.dropped = 25;
  const check = await openInChromium(await reportHtml(doc));
  assert.deepEqual(check.errors, []);
  assert.ok(
    check.legends["chart-throughput"].includes("scheduled/s"),
    check.legends["chart-throughput"].join(),
  );
  assert.ok(check.legends["chart-errors"].includes("dropped/s"));
  assert.ok(check.figures.some((f) => f.field === "messages.dropped" && f.value === 25));
});

test("compare HTML shows both runs, errors included, numbers equal the JSON", async (t) => {
  if (skipWithoutChromium(t)) return;
  const doc = JSON.parse(
    JSON.stringify({
      schema: "mailvolley/compare@1",
      runs: [fixedResult("per-message"), fixedResult("reuse")],
    }),
  );
  const check = await openInChromium(await reportHtml(doc));
  assert.deepEqual(check.errors, []);
  const errorsChart = check.canvases.find((c) => c.id === "chart-errors");
  assert.ok(errorsChart && errorsChart.width > 0, "the errors chart is drawn");
  assert.ok(check.figures.some((f) => f.field === "runs.0.errorClasses.refused" && f.value === 40));
  assert.ok(check.figures.some((f) => f.field.startsWith("runs.1.")));
  checkFigures(check, doc);
  // A colour a run on every chart, errors too; the error class told by the dash.
  const style = check.markerStyles;
  const colour = (id: string, label: string) => style[id][label].replace(/^.*?(rgb\(.*\))$/, "$1");
  const perMessage = colour("chart-throughput", "per-message accepted/s");
  const reuse = colour("chart-throughput", "reuse accepted/s");
  assert.notEqual(perMessage, reuse);
  assert.equal(colour("chart-errors", "per-message rate limited"), perMessage);
  assert.equal(colour("chart-errors", "reuse rate limited"), reuse);
  assert.equal(colour("chart-errors", "per-message refused by gateway"), perMessage);
  assert.match(style["chart-errors"]["per-message refused by gateway"], /solid/);
  assert.match(style["chart-errors"]["per-message rate limited"], /dashed/);
  assert.ok(
    check.charts["chart-errors"].markers.includes(
      "per-message: first refused by gateway (connection 10)",
    ),
    check.charts["chart-errors"].markers.join(),
  );
  assert.ok(check.charts["chart-errors"].markers.includes("reuse: knee"));
});

test("reply text from the server is escaped, not markup", () => {
  const result = fixedResult("reuse");
  result.errors[0].text = `<script>alert(1)</script> & "quotes"`;
  const html = renderHtml([result]);
  assert.ok(!html.includes("<script>alert(1)"));
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
});

test("the knee is written under the overview and marked on the charts", () => {
  const result = fixedResult("reuse");
  const html = renderHtml([result]);
  assert.match(html, /<p class="knee">Knee — success fell to 97\.00 % at 0\.070 s/);
  // x: seconds since the first connect, as in Result.knee.
  assert.match(html, /\{"x":0\.07,"label":"knee","class":null\}/);
});
