/**
 * Headless Chromium (Debian's, driven by playwright-core; no browser is downloaded) opening an
 * HTML report from a file: what it logged, what it fetched, which charts it drew and what they
 * show. The HTML and pack tests open reports written by the bin and by the installed package.
 */
import assert from "node:assert/strict";
import { accessSync, constants } from "node:fs";
import type { TestContext } from "node:test";
import { pathToFileURL } from "node:url";
import { requirePeer } from "./peer.js";

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

export function haveChromium(): boolean {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface PageCheck {
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

/** Opens the report in `file` and reads the page. */
export async function openInChromium(file: string): Promise<PageCheck> {
  const { chromium } = await import("playwright-core");
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

/** Skips (or fails under MAILVOLLEY_REQUIRE_PEERS=1) without Chromium; true when skipped. */
export function skipWithoutChromium(t: TestContext): boolean {
  return !requirePeer(t, "chromium", haveChromium(), "apt-get install chromium");
}

/** The charts every report with a time series draws: each one a canvas with a size. */
export const DRAWN_CHARTS = [
  "chart-throughput",
  "chart-latency",
  "chart-sessions",
  "chart-generator",
];

/**
 * What a user sees first: the page logged no error, fetched nothing off the file, and drew its
 * charts (a canvas each, not the empty boxes a broken chart script leaves).
 */
export function assertChartsDrawn(check: PageCheck, charts = DRAWN_CHARTS): void {
  assert.deepEqual(check.errors, [], "console errors and page errors");
  assert.deepEqual(check.requests, [], "requests off the file");
  for (const id of charts) {
    const canvas = check.canvases.find((c) => c.id === id);
    assert.ok(canvas && canvas.width > 0 && canvas.height > 0, `${id}: ${JSON.stringify(canvas)}`);
  }
}
