/**
 * The HTML report: one self-contained file that opens without a network. Tables are rendered
 * here; the charts are drawn in the page by uPlot, whose script and stylesheet are read from
 * node_modules and inlined. One Result, or two side by side (compare).
 *
 * Every number in a table carries `data-field` (its path in the JSON the page was made from)
 * and `data-value` (the JSON's value), so tests can check the page against the JSON.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Result } from "../result/result.js";
import { ERROR_CLASS_LABELS, ERROR_CLASSES } from "../stats/errors.js";
import { jsonPrintable } from "../stats/printable.js";
import { endedLines, unconfirmedLine } from "./accounting.js";
import { headline, ratioColumns, runLabel } from "./compare.js";
import {
  type Column,
  columnValue,
  columnWords,
  ERROR_COLUMNS,
  isTextColumn,
  LATENCY_COLUMNS,
  STATISTICS_COLUMNS,
} from "./figure-columns.js";
import { titleOf } from "./figure-docs.js";
import {
  ACCOUNTING_ROWS,
  FIGURES,
  type Figure,
  FORMATS,
  figureText,
  figureValue,
  OVERVIEW_ROWS,
  TLS_ROWS,
} from "./figure-table.js";
import {
  durationText,
  errorClassRows,
  firstSeenWhere,
  fmt,
  kneeText,
  PHASE_ROWS,
  QUIT_REPEATS_DATA_NOTE,
  quitRepeatsData,
  ratio,
  shardText,
  statisticsRows,
  thresholdActual,
} from "./figures.js";
import { chartRun } from "./html-chart-runs.js";
import { chartBoxes, chartScript } from "./html-charts.js";
import { deliveryHtml } from "./html-delivery.js";
import { esc } from "./html-escape.js";
import { repeatHtml } from "./html-repeat.js";
import { warningsHtml } from "./html-warnings.js";
import {
  ceilingLine,
  deliveryAlarm,
  latenessLine,
  measuredLine,
  rateVerdictLines,
  ratioVerdict,
  selfTestRefusals,
  sinkClassesText,
  THREAD_COLUMNS,
  threadRows,
  verdictLines,
} from "./verdict.js";

export interface HtmlOptions {
  /** Defaults to a title made from the runs' mode and target. */
  title?: string;
}

function uplotAsset(file: string): string {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("uplot/package.json"));
  return readFileSync(join(root, "dist", file), "utf8");
}

/** One run (`runs.length === 1`) or a comparison of two. */
export function renderHtml(runs: readonly Result[], options: HtmlOptions = {}): string {
  const compare = runs.length > 1;
  const prefix = (i: number) => (compare ? `runs.${i}.` : "");
  const title =
    options.title ??
    (compare
      ? `mailvolley compare: ${runs.map((r) => runLabel(r, runs)).join(" vs ")} → ${runs[0].target}`
      : `mailvolley ${runs[0].mode} → ${runs[0].target}`);
  const chartRuns = runs.map((r) => chartRun(r, runLabel(r, runs)));
  const labels = Object.fromEntries(ERROR_CLASSES.map((c) => [c, ERROR_CLASS_LABELS[c]]));
  const body = [
    `<header><h1>${esc(title)}</h1>${runs.map((r) => runLine(r, runLabel(r, runs))).join("")}</header>`,
    verdictBanner(runs),
    thresholdBanner(runs),
    repeatHtml(runs),
    compare
      ? `<div class="headline">${headline(runs)
          .map((l) => `<p>${esc(l)}</p>`)
          .join("")}</div>`
      : "",
    section(
      "Overview",
      overview(runs, prefix) + runNotes(runs, "knee") + runNotes(runs, "unconfirmed"),
    ),
    deliveryHtml(runs, prefix),
    ...runs.map((r, i) =>
      section(`Statistics${compare ? ` — ${runLabel(r, runs)}` : ""}`, statistics(r, prefix(i))),
    ),
    section("Latency per phase (ms)", phases(runs, prefix)),
    generatorSection(runs, prefix),
    section(
      "Errors",
      runs.map((r, i) => errors(r, prefix(i), compare ? runLabel(r, runs) : "")).join(""),
    ),
    warningsHtml(runs, prefix),
    thresholds(runs, prefix),
    section("Over time", chartBoxes(runs.some((r) => r.delivery))),
  ].join("\n");
  const data = jsonPrintable(JSON.stringify({ runs: chartRuns, labels })).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${uplotAsset("uPlot.min.css")}</style>
<style>${CSS}</style>
</head><body>
${body}
<script id="mailvolley-data" type="application/json">${data}</script>
<script>${uplotAsset("uPlot.iife.min.js")}</script>
<script>
const data = JSON.parse(document.getElementById("mailvolley-data").textContent);
${chartScript("data")}
</script>
</body></html>
`;
}

export { esc } from "./html-escape.js";

export const CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1140px; color: #1c2833; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d5d8dc; }
h3 { font-size: 14px; margin: 16px 0 4px; color: #566573; }
.run { color: #566573; margin: 0; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eaeded; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, td.text { text-align: left; }
td.text { white-space: normal; max-width: 480px; }
th { background: #f4f6f7; font-weight: 600; }
.ratio { color: #566573; } .good { color: #1e8449; font-weight: 600; } .bad { color: #c0392b; font-weight: 600; }
.pass { color: #1e8449; } .fail { color: #c0392b; font-weight: 600; }
.chart { min-height: 40px; } .mv-idle .u-legend th::after { content: ""; }
.verdict { padding: 8px 12px; margin: 12px 0; border-left: 4px solid #b7950b; background: #fef9e7; }
.verdict.generator, .verdict.lost { border-color: #c0392b; background: #fdedec; } .verdict.target, .verdict.ceiling { border-color: #1e8449; background: #eafaf1; }
.verdict p { margin: 0; }
.thresholds-banner { padding: 8px 12px; margin: 12px 0; font-size: 16px; }
.thresholds-banner.pass { background: #eafaf1; color: #1e8449; } .thresholds-banner.fail { background: #fdedec; color: #c0392b; }
.thresholds-banner ul { margin: 4px 0 0; font-size: 14px; } .headline p { margin: 2px 0; font-size: 15px; } .verdict ul { margin: 4px 0 0; padding-left: 20px; color: #566573; }
`;

/**
 * A note a run, named when there are several: where success fell below 100% (marked "knee" on
 * the charts), or what became of its unconfirmed messages (the terminal's "Unconfirmed" line).
 */
function runNotes(runs: readonly Result[], kind: "knee" | "unconfirmed"): string {
  const head = kind === "knee" ? "Knee" : "Unconfirmed";
  return runs
    .map((r) => {
      const text = kind === "knee" ? kneeText(r.knee) : unconfirmedLine(r);
      const who = runs.length > 1 ? `${esc(runLabel(r, runs))}: ` : "";
      return text ? `<p class="${kind}">${head} — ${who}${esc(text)}</p>` : "";
    })
    .join("");
}

function runLine(r: Result, label: string): string {
  const load = r.run
    ? `<p class="run load">${esc(label)} load: ${esc(r.run.load)} (mailvolley ${esc(r.run.version)}, Node.js ${esc(r.run.node)}, on ${esc(r.run.host)})</p>`
    : "";
  const shard = shardText(r);
  return `<p class="run">${esc(label)}: run ${esc(r.runId)}, started ${esc(r.startedAt)}, ${fmt(r.sessions)} sessions, ${esc(r.target)}${shard ? `, ${esc(shard)}` : ""}</p>${load}`;
}

function section(title: string, html: string): string {
  return `<section><h2>${esc(title)}</h2>${html}</section>`;
}

/** A table cell holding a number from the JSON at `field`. */
function num(field: string, value: number, text: string, cls = ""): string {
  const c = cls ? ` class="${cls}"` : "";
  return `<td${c} data-field="${esc(field)}" data-value="${value}">${esc(text)}</td>`;
}

/** A figure-columns cell of `row`, whose path in the JSON starts `at`; "-" without a value. */
function columnCell(column: Column, row: unknown, at: string): string {
  const value = columnValue(column, row);
  if (value === null) return "<td>-</td>";
  return num(at + column.key, value, FORMATS[column.format](value));
}

function overview(runs: readonly Result[], prefix: (i: number) => string): string {
  const names = [
    ...OVERVIEW_ROWS,
    ...(runs.some((r) => r.accounting) ? ACCOUNTING_ROWS : []),
    ...(runs.some((r) => r.tls) ? TLS_ROWS : []),
  ];
  const rows = names.map((name): Figure => FIGURES[name]);
  // The terminal compare's ratio columns, the same rule (compare.ts ratioColumns).
  const columns = runs.length > 1 ? ratioColumns(runs) : [];
  const head = `<tr><th></th>${runs.map((r) => `<th>${esc(runLabel(r, runs))}</th>`).join("")}${columns.map((c) => `<th>${esc(c.name)}</th>`).join("")}</tr>`;
  const body = rows.map((figure) => {
    const pick = (r: Result) => figureValue(figure, r);
    const cells = runs.map((r, i) => {
      const v = pick(r);
      return v === null ? "<td>n/a</td>" : num(prefix(i) + figure.path, v, figureText(figure, v));
    });
    const ratios = columns.map((c) => {
      const [a, b] = [pick(c.base), pick(c.other)];
      return `<td class="ratio">${a === null || b === null ? "" : esc(ratio(a, b))}</td>`;
    });
    return `<tr><th${titleOf(figure.path, esc)}>${esc(figure.label)}</th>${cells.join("")}${ratios.join("")}</tr>`;
  });
  return `<table>${head}${body.join("")}</table>`;
}

function statistics(r: Result, prefix: string): string {
  if (!r.allClasses) return "<p>no per-class statistics in this result</p>";
  const apdex = `Apdex (T ${durationText(r.apdex.satisfiedMs)})`;
  const head = ["class", ...STATISTICS_COLUMNS.map((c) => (c.key === "apdex" ? apdex : c.heading))];
  const rows = statisticsRows(r).map((c) => {
    const base =
      c.name === "all" && c === r.allClasses
        ? `${prefix}allClasses`
        : `${prefix}classes.${r.classes.indexOf(c)}`;
    const cells = STATISTICS_COLUMNS.map((column) => columnCell(column, c, `${base}.`));
    return `<tr><td>${esc(c.name)}</td>${cells.join("")}</tr>`;
  });
  const titles = ["", ...STATISTICS_COLUMNS.map((c) => titleOf(`allClasses.${c.key}`, esc))];
  return `<table><tr>${head.map((h, i) => `<th${titles[i]}>${esc(h)}</th>`).join("")}</tr>${rows.join("")}</table><p class="run">Transaction latency (MAIL to the final reply) of accepted messages; error % = (rejected + failed + unconfirmed) / count.</p>`;
}

/**
 * Each phase's latency, one row a run (named in its own column in a compare), and on each row
 * a ratio column compares, its p50 and p99 against the column's base (compare.ts ratioColumns).
 */
function phases(runs: readonly Result[], prefix: (i: number) => string): string {
  const compare = runs.length > 1;
  const columns = compare ? ratioColumns(runs) : [];
  const base = columns[0]?.base;
  const against = base ? ` (÷ ${runLabel(base, runs)})` : "";
  const head = `<tr><th>phase</th>${compare ? "<th>run</th>" : ""}${LATENCY_COLUMNS.map((c) => `<th>${c.heading}</th>`).join("")}${compare ? `<th>p50 ratio${esc(against)}</th><th>p99 ratio${esc(against)}</th>` : ""}</tr>`;
  const rows: string[] = [];
  const repeats = runs.filter(quitRepeatsData).map((r) => runLabel(r, runs));
  for (const [phase, key] of PHASE_ROWS) {
    if (runs.every((r) => r.latency[key].count === 0)) continue;
    const name = phase === "quit" && repeats.length > 0 ? "quit *" : phase;
    runs.forEach((r, i) => {
      const l = r.latency[key];
      const cells = LATENCY_COLUMNS.map((c) => columnCell(c, l, `${prefix(i)}latency.${key}.`));
      const divided = columns.some((c) => c.other === r) && base;
      const ratios = divided
        ? `<td class="ratio">${ratio(base.latency[key].p50, l.p50)}</td><td class="ratio">${ratio(base.latency[key].p99, l.p99)}</td>`
        : compare
          ? "<td></td><td></td>"
          : "";
      rows.push(
        `<tr><td>${i === 0 ? esc(name) : ""}</td>${compare ? `<td>${esc(runLabel(r, runs))}</td>` : ""}${cells.join("")}${ratios}</tr>`,
      );
    });
  }
  const note = `${QUIT_REPEATS_DATA_NOTE}${compare ? ` (${repeats.join(", ")})` : ""}`;
  const said =
    repeats.length > 0 ? `<p class="run" data-note="quit-repeats-data">${esc(note)}</p>` : "";
  return `<table>${head}${rows.join("")}</table>${said}`;
}

function errors(r: Result, prefix: string, label: string): string {
  const title = label ? `<h3>${esc(label)}</h3>` : "";
  if (r.errors.length === 0) return `${title}<p class="good">no errors</p>`;
  const where = (c: string) => {
    const f = r.firstSeen?.find((s) => s.class === c);
    return `<td class="text">${f ? esc(firstSeenWhere(f)) : ""}</td>`;
  };
  const classes = errorClassRows(r)
    .map(
      ([c, label, count]) =>
        `<tr><td>${esc(label)}</td>${num(`${prefix}errorClasses.${c}`, count, fmt(count))}${where(c)}</tr>`,
    )
    .join("");
  const rows = r.errors
    .map((e, i) => {
      const cells = ERROR_COLUMNS.map((c) =>
        isTextColumn(c)
          ? `<td class="text">${esc(columnWords(c, e))}</td>`
          : columnCell(c, e, `${prefix}errors.${i}.`),
      );
      return `<tr>${cells.join("")}</tr>`;
    })
    .join("");
  return `${title}<table><tr><th>error class</th><th>count</th><th>first seen</th></tr>${classes}</table><table><tr>${ERROR_COLUMNS.map((c) => `<th>${esc(c.heading)}</th>`).join("")}</tr>${rows}</table>`;
}

function thresholds(runs: readonly Result[], prefix: (i: number) => string): string {
  const parts = runs.map((r, i) => {
    if (!r.thresholds || r.thresholds.length === 0) return "";
    const rows = r.thresholds
      .map((t, j) => {
        const actual =
          t.actual === null
            ? "<td>no data</td>"
            : num(`${prefix(i)}thresholds.${j}.actual`, t.actual, fmt(t.actual, 3)) +
              `<td class="text">${esc(t.unit ?? "")}</td>`;
        return `<tr><td class="${t.passed ? "pass" : "fail"}">${t.passed ? "pass" : "FAIL"}</td><td class="text">${esc(t.expression)}</td>${actual}</tr>`;
      })
      .join("");
    return `<table><tr><th></th><th>threshold</th><th>actual</th><th>unit</th></tr>${rows}</table>`;
  });
  const html = parts.join("");
  return html ? section("Thresholds", html) : "";
}

/** PASS or FAIL for the thresholds, at the top of the page, with each breach. */
function thresholdBanner(runs: readonly Result[]): string {
  const judged = runs.flatMap((r) => (r.thresholds ?? []).map((t) => ({ run: r, t })));
  if (judged.length === 0) return "";
  const failed = judged.filter(({ t }) => !t.passed);
  const who = (r: Result) => (runs.length > 1 ? `${runLabel(r, runs)}: ` : "");
  const items = failed
    .map(({ run, t }) => {
      const actual = t.actual === null ? "no data" : `actual ${thresholdActual(t)}`;
      return `<li>${esc(`${who(run)}${t.expression} (${actual})`)}</li>`;
    })
    .join("");
  const verdict = failed.length === 0 ? "PASS" : "FAIL";
  const summary =
    failed.length === 0
      ? `all ${fmt(judged.length)} thresholds held`
      : `${fmt(failed.length)} of ${fmt(judged.length)} thresholds breached`;
  return `<div class="thresholds-banner ${verdict.toLowerCase()}" data-thresholds="${verdict}"><strong>${verdict}</strong> ${esc(summary)}${items ? `<ul>${items}</ul>` : ""}</div>`;
}

/**
 * Mail lost through a gateway, then who set the rate, at the top of the page (the terminal's
 * first lines).
 */
function verdictBanner(runs: readonly Result[]): string {
  const who = (r: Result) => (runs.length > 1 ? `${runLabel(r, runs)} run` : "");
  const lost = runs.map((r) => {
    const [alarm] = deliveryAlarm(r) ? verdictLines(r, who(r)) : [];
    return alarm
      ? `<div class="verdict lost" data-delivery="lost"><p><strong>${esc(alarm)}</strong></p></div>`
      : "";
  });
  const boxes = runs.map((r) => {
    const g = r.generator;
    if (!g) return "";
    const [head, ...reasons] = rateVerdictLines(r, who(r));
    const classes = sinkClassesText(r);
    const sink = classes ? [`the sink counted per class: ${classes}`] : [];
    const items = [...reasons, ...endedLines(r), ...sink]
      .map((line) => `<li>${esc(line.trim())}</li>`)
      .join("");
    const look =
      ceilingLine(r) !== null ? "ceiling" : selfTestRefusals(r) !== null ? "refused" : g.limitedBy;
    const m = runs.length > 1 ? measuredLine(r) : null;
    const said = m ? `<p class="measured" data-measured="${m.measured}">${esc(m.text)}</p>` : "";
    return `<div class="verdict ${look}" data-limited-by="${g.limitedBy}"><p><strong>${esc(head)}</strong></p>${said}<ul>${items}</ul></div>`;
  });
  const ratios = runs.length > 1 ? ratioVerdict(runs) : null;
  const note = ratios ? `<p class="${ratios.alarm ? "bad" : "good"}">${esc(ratios.text)}</p>` : "";
  return lost.join("") + boxes.join("") + note;
}

/** The generator's own load per thread; the open model's start lateness under it. */
function generatorSection(runs: readonly Result[], prefix: (i: number) => string): string {
  const parts = runs.map((r, i) => {
    const g = r.generator;
    if (!g || g.threads.length === 0) return "";
    const head = `<tr>${THREAD_COLUMNS.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>`;
    const rows = threadRows(g).map((cells, j) => {
      const t = g.threads[j];
      // CPU seconds as measured (the figure the page's checks read back); the rest as text.
      const cpu = num(`${prefix(i)}generator.threads.${j}.cpuSeconds`, t.cpuSeconds, cells[1]);
      const rest = cells
        .slice(2)
        .map((c) => `<td>${esc(c)}</td>`)
        .join("");
      return `<tr><td>${esc(cells[0])}</td>${cpu}${rest}</tr>`;
    });
    const lateness = latenessLine(g);
    const title = runs.length > 1 ? `<h3>${esc(runLabel(r, runs))}</h3>` : "";
    return `${title}<table>${head}${rows.join("")}</table>${lateness ? `<p>Open model: ${esc(lateness)}</p>` : ""}`;
  });
  const html = parts.join("");
  return html ? section("Generator", html) : "";
}
