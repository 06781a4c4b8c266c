/**
 * Every report names every run: compare --starttls's three runs (per-message full, per-message
 * resumed, reuse) are told apart in the terminal and everywhere on the HTML page (verdict
 * boxes, headings, the overview's ratio columns, the latency table's run column, the charts'
 * legends), by the one rule runLabel.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ChartRun } from "../src/report/browser/chart-data.js";
import { renderCompare } from "../src/report/compare.js";
import { renderHtml } from "../src/report/html.js";
import type { LatencySummary, Result } from "../src/result/result.js";

const GOLDEN = fileURLToPath(new URL("../../test/golden/result-reuse.json", import.meta.url));

function run(mode: Result["mode"], resume: boolean, rate: number): Result {
  const r = JSON.parse(readFileSync(GOLDEN, "utf8")) as Result;
  r.mode = mode;
  r.throughput = { ...r.throughput, messagesPerSecond: rate };
  const ms: LatencySummary = r.latency.connectMs;
  r.tls = {
    full: resume ? 1 : 100,
    resumed: resume ? 99 : 0,
    fullMs: ms,
    resumedMs: ms,
    seen: [{ version: "TLSv1.3", cipher: "TLS_AES_256_GCM_SHA384", count: 100 }],
  };
  if (r.run) r.run = { ...r.run, options: { ...r.run.options, tlsResume: resume } };
  if (r.generator) r.generator = undefined;
  return r;
}

const LABELS = ["per-message full", "per-message resumed", "reuse"];
const runs = () => [
  run("per-message", false, 100),
  run("per-message", true, 200),
  run("reuse", true, 1000),
];

/** The cells of the first row of the table under `<h2>title</h2>`. */
function headRow(html: string, title: string): string[] {
  const at = html.indexOf(`<h2>${title}</h2>`);
  const row = html.slice(at, html.indexOf("</tr>", at));
  return [...row.matchAll(/<th[^>]*>(.*?)<\/th>/g)].map((m) => m[1]);
}

test("compare --starttls: the terminal names the three runs and both ratios", () => {
  const text = renderCompare(runs(), { color: false });
  for (const label of LABELS) assert.ok(text.includes(`${label} p50 / p99`), label);
  assert.match(text, /resumed \/ full +reuse \/ per-message full/);
});

test("compare --starttls: the page names each run wherever the terminal does, and more", () => {
  const html = renderHtml(runs());
  const header = html.slice(0, html.indexOf("</header>"));
  for (const label of LABELS) assert.ok(header.includes(`<p class="run">${label}: run `), label);
  // The overview: a column per run, then the terminal's two ratio columns.
  assert.deepEqual(headRow(html, "Overview"), [
    "",
    ...LABELS,
    "resumed / full",
    "reuse / per-message full",
  ]);
  const at = html.indexOf("<h2>Overview</h2>");
  const overview = html.slice(at, html.indexOf("</table>", at));
  const rate = overview.split("<tr>").find((row) => row.includes("throughput.messagesPerSecond"));
  assert.match(rate ?? "", /<td class="ratio">×2\.00<\/td><td class="ratio">×10\.0<\/td><\/tr>$/);
  // The latency table: one row per run, named in its run column.
  assert.deepEqual(headRow(html, "Latency per phase (ms)").slice(0, 2), ["phase", "run"]);
  const phases = html.slice(html.indexOf("<h2>Latency per phase (ms)</h2>"));
  const table = phases.slice(0, phases.indexOf("</table>"));
  const named = [...table.matchAll(/<tr><td>[^<]*<\/td><td>([^<]*)<\/td>/g)].map((m) => m[1]);
  assert.deepEqual(named.slice(0, 3), LABELS);
  assert.ok(named.length % 3 === 0 && named.length >= 6, named.join("|"));
  // The statistics headings and the charts' legends.
  for (const label of LABELS) assert.ok(html.includes(`<h2>Statistics — ${label}</h2>`), label);
  const data = JSON.parse(
    html.slice(
      html.indexOf('type="application/json">') + 24,
      html.indexOf("</script>", html.indexOf('type="application/json">')),
    ),
  ) as { runs: ChartRun[] };
  assert.deepEqual(
    data.runs.map((r) => r.label),
    LABELS,
  );
  // No bare "per-message" names a run anywhere a run is named.
  assert.doesNotMatch(html, /<h3>per-message<\/h3>|<td>per-message<\/td>|<th>per-message<\/th>/);
});
