/**
 * The HTML report in headless Chromium (Debian's, driven by playwright-core; no browser is
 * downloaded): it opens from a file without a network, draws its charts, logs no console
 * errors, and every number it shows equals the JSON's.
 */
import assert from "node:assert/strict";
import { accessSync, constants, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { pathToFileURL } from "node:url";
import { buildRunConfig } from "../src/config/run-config.js";
import { renderHtml } from "../src/report/html.js";
import { executeRun } from "../src/run/run.js";
import type { Result } from "../src/stats/result.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { requirePeer } from "./helpers/peer.js";
import { tempDir } from "./helpers/tmp.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function haveChromium(): boolean {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

interface PageCheck {
  errors: string[];
  requests: string[];
  canvases: { id: string; width: number; height: number }[];
  figures: { field: string; value: number; text: string }[];
  /** The charts' legend labels, by chart id. */
  legends: Record<string, string[]>;
}

async function openInChromium(html: string): Promise<PageCheck> {
  const { chromium } = await import("playwright-core");
  const dir = tempDir("mailvolley-html-");
  const file = join(dir, "report.html");
  writeFileSync(file, html);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => {
      if (!r.url().startsWith("file:")) requests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
    const canvases = await page.$$eval("div.chart", (divs) =>
      divs.map((d) => {
        const c = d.querySelector("canvas");
        return { id: d.id, width: c?.width ?? 0, height: c?.height ?? 0 };
      }),
    );
    const figures = await page.$$eval("[data-field]", (cells) =>
      cells.map((c) => ({
        field: c.getAttribute("data-field") ?? "",
        value: Number(c.getAttribute("data-value")),
        text: c.textContent ?? "",
      })),
    );
    const legends = await page.$$eval("div.chart", (divs) =>
      Object.fromEntries(
        divs.map((d) => [
          d.id,
          [...d.querySelectorAll(".u-legend .u-label")].map((l) => l.textContent ?? ""),
        ]),
      ),
    );
    return { errors, requests, canvases, figures, legends };
  } finally {
    await browser.close();
  }
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

function skipWithoutChromium(t: TestContext): boolean {
  return !requirePeer(t, "chromium", haveChromium(), "apt-get install chromium");
}

test("HTML of a real run: charts drawn, no console errors, no network, numbers equal the JSON", async (t) => {
  if (skipWithoutChromium(t)) return;
  const config = buildRunConfig({ sessions: 3, messages: 600, workers: 1 });
  const { result } = await executeRun(config);
  const doc = JSON.parse(JSON.stringify(result)) as Result;
  const check = await openInChromium(renderHtml([doc]));
  assert.deepEqual(check.errors, []);
  assert.deepEqual(check.requests, []);
  for (const id of ["chart-throughput", "chart-latency", "chart-sessions", "chart-generator"]) {
    const canvas = check.canvases.find((c) => c.id === id);
    assert.ok(canvas && canvas.width > 0 && canvas.height > 0, `${id}: ${JSON.stringify(canvas)}`);
  }
  checkFigures(check, doc);
  // What the terminal shows, the page shows too (issue 13 item 3).
  const fields = check.figures.map((f) => f.field);
  assert.ok(fields.includes("messages.dropped"));
  assert.ok(fields.includes("latencyUncorrected.transactionMs.p99"));
});

test("dropped arrivals: the scheduled rate beside the achieved one, and dropped/s", async (t) => {
  if (skipWithoutChromium(t)) return;
  const doc = JSON.parse(JSON.stringify(fixedResult("reuse"))) as Result;
  doc.series.points[1].dropped = 25;
  doc.messages.dropped = 25;
  const check = await openInChromium(renderHtml([doc]));
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
  const check = await openInChromium(renderHtml(doc.runs));
  assert.deepEqual(check.errors, []);
  const errorsChart = check.canvases.find((c) => c.id === "chart-errors");
  assert.ok(errorsChart && errorsChart.width > 0, "the errors chart is drawn");
  assert.ok(check.figures.some((f) => f.field === "runs.0.errorClasses.refused" && f.value === 40));
  assert.ok(check.figures.some((f) => f.field.startsWith("runs.1.")));
  checkFigures(check, doc);
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
