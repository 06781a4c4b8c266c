/**
 * The HTML report's charts draw what happened: each chart, opened in headless Chromium from a
 * page `mailvolley report FILE --html` wrote, shows under the cursor in the middle of each
 * interval the figure the JSON gives for it: a rate as the interval's count over its real length
 * (a partial first or last interval included), open sessions as the interval's mean, one unit an
 * axis, and the open model's scheduled rate under the achieved one.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { generatorResult } from "../src/result/generator-verdict.js";
import type { Result } from "../src/result/result.js";
import { StartLateness } from "../src/stats/start-lateness.js";
import { skipWithoutChromium } from "./helpers/chromium.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const GOLDEN = fileURLToPath(new URL("../../test/golden/result-reuse.json", import.meta.url));

/**
 * The saved run of four 1 s intervals, its first connect 10 ms into the first one and its end
 * half-way through the fourth: the first interval is 0.99 s long, the last 0.51 s. Open model,
 * with a generator figure and a mean of open sessions in each interval.
 */
function savedRun(): Result {
  const r = JSON.parse(readFileSync(GOLDEN, "utf8")) as Result;
  r.series.points = r.series.points.slice(0, 4);
  r.elapsedSeconds = 3.5;
  const means = [2.5, 4, 3.7, 1.2];
  r.series.points.forEach((p, i) => {
    p.openSessionsMean = means[i];
    p.dropped = i === 2 ? 7 : 0;
    p.generator = {
      busy: 0.1 * (i + 1),
      busiestThread: "main",
      eventLoopDelayP99Ms: 2 + i,
      cpuSeconds: 0.1,
    };
  });
  const lateness = new StartLateness(10);
  lateness.record(0, 1);
  r.generator = generatorResult([], {
    arrivalIntervalMs: 10,
    lateness: lateness.snapshot(),
    dropped: 0,
  });
  return r;
}

type Point = Result["series"]["points"][number];

/** Each chart's lines and the figure of a point each must show, as the JSON gives it. */
function expected(
  r: Result,
): Record<string, Record<string, (p: Point, seconds: number) => number>> {
  return {
    "chart-throughput": {
      "scheduled/s": (p, s) => (p.sent + p.dropped) / s,
      "accepted/s": (p, s) => p.accepted / s,
      "sent/s": (p, s) => p.sent / s,
    },
    "chart-latency": { p50: (p) => p.p50Ms ?? 0, p99: (p) => p.p99Ms ?? 0 },
    "chart-errors": {
      ...Object.fromEntries(
        Object.entries(r.errorClasses)
          .filter(([c]) => r.series.points.some((p) => p.errors[c as keyof Point["errors"]] > 0))
          .map(([c]) => [c, (p: Point, s: number) => p.errors[c as keyof Point["errors"]] / s]),
      ),
      "dropped/s": (p, s) => p.dropped / s,
    },
    "chart-sessions": { "open sessions (interval mean)": (p) => p.openSessionsMean ?? -1 },
    "chart-connections": { "connections opened/s": (p, s) => p.connectionsOpened / s },
    "chart-generator": { "busiest thread % busy": (p) => (p.generator?.busy ?? 0) * 100 },
    "chart-event-loop": { "event-loop delay p99": (p) => p.generator?.eventLoopDelayP99Ms ?? 0 },
  };
}

/** Each chart's y-axis unit(s), one an axis. */
const UNITS: Record<string, string> = {
  "chart-throughput": "messages/s",
  "chart-latency": "ms",
  "chart-errors": "errors/s",
  "chart-sessions": "sessions",
  "chart-connections": "connections/s",
  "chart-generator": "% busy",
  "chart-event-loop": "ms",
};

interface Hovered {
  units: string;
  /** Legend label → the value shown, in the order drawn. */
  values: [string, string][];
}

/** Opens the page and, per chart, moves the cursor to each x (a fraction of the axis). */
async function hover(file: string, fractions: number[]): Promise<Record<string, Hovered[]>> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`file://${file}`, { waitUntil: "load" });
    const out: Record<string, Hovered[]> = {};
    for (const id of Object.keys(UNITS)) {
      const over = await page.$(`#${id} .u-over`);
      assert.ok(over, `${id} is drawn`);
      await over.scrollIntoViewIfNeeded();
      const box = await over.boundingBox();
      assert.ok(box);
      out[id] = [];
      for (const f of fractions) {
        await page.mouse.move(box.x + box.width * f, box.y + box.height / 2);
        const values = await page.$$eval(`#${id} .u-legend tr.u-series`, (rows) =>
          rows
            .filter((row) => !row.classList.contains("mv-x"))
            .map((row): [string, string] => [
              row.querySelector(".u-label")?.textContent ?? "",
              row.querySelector(".u-value")?.textContent ?? "",
            ]),
        );
        const units = await page.$eval(`#${id}`, (d) => (d as HTMLElement).dataset.units ?? "");
        out[id].push({ units, values });
      }
    }
    return out;
  } finally {
    await browser.close();
  }
}

test("each chart draws the JSON's figure of each interval, rates over the interval's real length", async (t) => {
  if (skipWithoutChromium(t)) return;
  const r = savedRun();
  const dir = tempDir("mailvolley-chart-values-");
  const json = join(dir, "result.json");
  const html = join(dir, "report.html");
  writeFileSync(json, JSON.stringify(r));
  const { code, stderr } = await mailvolley(["report", json, "--html", html, "-q"]);
  assert.equal(code, 0, stderr);
  const start = Date.parse(r.startedAt);
  const starts = r.series.points.map((p) => Math.max(0, (p.t - start) / 1000));
  const ends = starts.map((_, i) => starts[i + 1] ?? r.elapsedSeconds);
  assert.deepEqual(
    ends.map((e, i) => Math.round((e - starts[i]) * 1000)),
    [990, 1000, 1000, 510],
    "a partial first and last interval",
  );
  const mids = starts.map((x, i) => (x + ends[i]) / 2 / r.elapsedSeconds);
  const shown = await hover(html, mids);
  for (const [id, lines] of Object.entries(expected(r))) {
    const labels = Object.keys(lines);
    shown[id].forEach((at, i) => {
      assert.equal(at.units, UNITS[id], `${id}: one unit on its axis`);
      const seconds = ends[i] - starts[i];
      const p = r.series.points[i];
      const want = labels.map((label): [string, string] => [
        label,
        lines[label](p, seconds).toFixed(1),
      ]);
      if (id === "chart-errors") {
        // Labelled by the error class's name; compare the values in class order.
        assert.deepEqual(
          at.values.map(([, v]) => v),
          want.map(([, v]) => v),
          `${id} interval ${i}`,
        );
      } else {
        assert.deepEqual(at.values, want, `${id} interval ${i}`);
      }
    });
  }
  // The first interval's 97 accepted over its 0.99 s, not over a whole second.
  assert.deepEqual(shown["chart-throughput"][0].values[1], ["accepted/s", "98.0"]);
});
