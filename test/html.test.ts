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
import { runClient } from "./helpers/run-client.js";
import { tempDir } from "./helpers/tmp.js";
import { portOf, withSink } from "./sink-helpers.js";

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
  /** What each chart recorded on its element: x range and unit, the marks' labels. */
  charts: Record<string, { xMin: number; xMax: number; xUnit: string; markers: string[] }>;
  /** Every legend value cell's text and the x row's display, cursor off the charts. */
  legendValues: string[];
  xRowsShown: number;
  /** Legend markers' border ("1.5px dashed rgb(…)") by chart id and label. */
  markerStyles: Record<string, Record<string, string>>;
  /** With the cursor in the middle of the throughput chart: its legend values, x row first. */
  hovered: string[];
  /** Share of the throughput chart's plot columns where the accepted/s line's colour shows. */
  acceptedCoverage: number;
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
    const charts = await page.$$eval("div.chart", (divs) =>
      Object.fromEntries(
        divs.map((d) => [
          d.id,
          {
            xMin: Number(d.dataset.xMin),
            xMax: Number(d.dataset.xMax),
            xUnit: d.dataset.xUnit ?? "",
            markers: (d.dataset.markers ?? "").split("|").filter((m) => m !== ""),
          },
        ]),
      ),
    );
    const legendValues = await page.$$eval(".u-legend td", (tds) =>
      tds.map((t) => t.textContent ?? ""),
    );
    const xRowsShown = await page.$$eval(
      ".u-legend tr.mv-x",
      (rows) => rows.filter((r) => getComputedStyle(r).display !== "none").length,
    );
    const markerStyles = await page.$$eval("div.chart", (divs) =>
      Object.fromEntries(
        divs.map((d) => [
          d.id,
          Object.fromEntries(
            [...d.querySelectorAll(".u-legend tr")].map((tr) => [
              tr.querySelector(".u-label")?.textContent ?? "",
              (tr.querySelector(".u-marker") as HTMLElement | null)?.style.border ?? "",
            ]),
          ),
        ]),
      ),
    );
    const acceptedCoverage = await page.evaluate(lineCoverage, "rgb(36, 113, 163)");
    const over = await page.$("#chart-throughput .u-over");
    await over?.scrollIntoViewIfNeeded();
    const box = over ? await over.boundingBox() : null;
    if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const hovered = await page.$$eval("#chart-throughput .u-legend td", (tds) =>
      tds.map((t) => t.textContent ?? ""),
    );
    return {
      errors,
      requests,
      canvases,
      figures,
      legends,
      charts,
      legendValues,
      xRowsShown,
      markerStyles,
      hovered,
      acceptedCoverage,
    };
  } finally {
    await browser.close();
  }
}

/**
 * Runs in the page: the share of the throughput plot's pixel columns holding the colour `rgb`,
 * read off the canvas inside the plot area (uPlot's .u-over lies over it).
 */
function lineCoverage(rgb: string): number {
  const wrap = document.querySelector("#chart-throughput .u-wrap");
  const canvas = wrap?.querySelector("canvas");
  const over = wrap?.querySelector(".u-over") as HTMLElement | null;
  if (!canvas || !over) return 0;
  const ratio = canvas.width / canvas.getBoundingClientRect().width;
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  const left = Math.round(over.offsetLeft * ratio);
  const top = Math.round(over.offsetTop * ratio);
  const width = Math.round(over.offsetWidth * ratio);
  const height = Math.round(over.offsetHeight * ratio);
  const pixels = canvas.getContext("2d")?.getImageData(left, top, width, height).data;
  if (!pixels) return 0;
  let columns = 0;
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) {
      const i = (y * width + x) * 4;
      const near =
        Math.abs(pixels[i] - r) + Math.abs(pixels[i + 1] - g) + Math.abs(pixels[i + 2] - b);
      if (pixels[i + 3] > 0 && near < 40) {
        columns++;
        break;
      }
    }
  }
  return columns / width;
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
  const check = await openInChromium(renderHtml([doc]));
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
  const html = renderHtml([doc]);
  const marker = `{"x":${refused.atSeconds},"label":"first refused by gateway (connection 31)"`;
  assert.ok(html.includes(marker), marker);
  const check = await openInChromium(html);
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
