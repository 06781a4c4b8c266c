/**
 * `mailvolley capacity --html`: the headline, a chart of the rate offered, accepted and
 * delivered at each step against the rate found (each step marked pass or fail on the service
 * levels), the step table and SPECmail's 80/100/120 % table. Self-contained: the chart is
 * inline SVG, no script. Pure: the capacity document in, HTML out.
 */
import type { Capacity, CapacityDocument, CapacityStep } from "../result/capacity-result.js";
import {
  complianceHeader,
  complianceRows,
  rateText,
  STEP_HEADER,
  sideBySide,
  stepCells,
} from "./capacity.js";
import { CSS } from "./html.js";
import { esc } from "./html-escape.js";

const CHART_CSS = `
svg.capacity { font: 11px system-ui, sans-serif; }
svg.capacity .offered { fill: #aab7b8; } svg.capacity .accepted { fill: #2e86c1; }
svg.capacity .delivered { fill: #28b463; } svg.capacity .found { stroke: #1c2833; stroke-dasharray: 5 3; }
svg.capacity .pass { fill: #1e8449; } svg.capacity .fail { fill: #c0392b; }
`;

/** The bars of one step: offered (or, for the estimate, none), accepted, delivered. */
function stepBars(s: CapacityStep, x: number, width: number, y: (v: number) => number): string {
  const bars: [string, number | null][] = [
    ["offered", s.purpose === "estimate" ? null : s.ratePerSecond],
    ["accepted", s.acceptedPerSecond],
    ["delivered", s.deliveredPerSecond],
  ];
  const w = width / 3;
  return bars
    .map(([name, v], i) =>
      v === null
        ? ""
        : `<rect class="${name}" x="${(x + i * w).toFixed(1)}" y="${y(v).toFixed(1)}" width="${(w - 1).toFixed(1)}" height="${(y(0) - y(v)).toFixed(1)}"><title>${esc(`${name} ${rateText(v)}`)}</title></rect>`,
    )
    .join("");
}

/** Offered, accepted and delivered per step, the rate found as a dashed line. */
export function capacityChart(c: Capacity): string {
  const steps = c.steps;
  if (steps.length === 0) return "";
  const width = 760;
  const height = 240;
  const left = 56;
  const bottom = 40;
  const top = 12;
  const peak = Math.max(
    1,
    ...steps.flatMap((s) => [s.ratePerSecond, s.acceptedPerSecond, s.deliveredPerSecond ?? 0]),
  );
  const y = (v: number) => top + (height - top - bottom) * (1 - v / peak);
  const slot = (width - left) / steps.length;
  const parts = steps.map((s, i) => {
    const x = left + i * slot + slot * 0.1;
    const mark = s.purpose === "estimate" ? "est." : s.pass ? "pass" : "fail";
    const cls = s.purpose === "estimate" ? "" : s.pass ? "pass" : "fail";
    return `${stepBars(s, x, slot * 0.8, y)}<text x="${(x + slot * 0.4).toFixed(1)}" y="${height - bottom + 14}" text-anchor="middle">${i + 1}${s.percent === null ? "" : ` (${s.percent}%)`}</text><text class="${cls}" x="${(x + slot * 0.4).toFixed(1)}" y="${height - bottom + 28}" text-anchor="middle">${mark}</text>`;
  });
  const found =
    c.sustainedPerSecond === null
      ? ""
      : `<line class="found" x1="${left}" x2="${width}" y1="${y(c.sustainedPerSecond).toFixed(1)}" y2="${y(c.sustainedPerSecond).toFixed(1)}"/><text x="${width}" y="${(y(c.sustainedPerSecond) - 4).toFixed(1)}" text-anchor="end">${esc(`${c.atLeast ? "at least " : ""}${rateText(c.sustainedPerSecond)}`)}</text>`;
  const axis = [0, peak / 2, peak]
    .map(
      (v) =>
        `<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(rateText(Math.round(v)))}</text>`,
    )
    .join("");
  const legend = `<text x="${left}" y="${top}"><tspan class="offered">■</tspan> offered <tspan class="accepted">■</tspan> accepted <tspan class="delivered">■</tspan> delivered — per step, messages/s; pass/fail on the service levels</text>`;
  return `<svg class="capacity" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${legend}${axis}${parts.join("")}${found}</svg>`;
}

function htmlTable(header: readonly string[], rows: string[][]): string {
  const head = `<tr>${header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>`;
  return `<table>${head}${rows.map((r) => `<tr>${r.join("")}</tr>`).join("")}</table>`;
}

function stepsHtml(c: Capacity): string {
  const rows = c.steps.map((s, i) =>
    stepCells(s, i).map((cell, j) => {
      const verdict = j === STEP_HEADER.length - 1 && s.purpose !== "estimate";
      return `<td${verdict ? ` class="${s.pass ? "pass" : "fail"}"` : ""}>${esc(cell)}</td>`;
    }),
  );
  return htmlTable(STEP_HEADER, rows);
}

function complianceHtml(c: Capacity): string {
  if (c.levels.length === 0) return "";
  const rows = complianceRows(c).map((r) => [
    `<td>${esc(r.expression)}</td>`,
    `<td>${esc(r.shown)}</td>`,
    ...r.cells.map((cell) => `<td class="${cell.pass ? "pass" : "fail"}">${esc(cell.text)}</td>`),
  ]);
  rows.push([
    "<td>all levels</td>",
    "<td></td>",
    ...c.levels.map(
      (l) => `<td class="${l.pass ? "pass" : "fail"}">${l.pass ? "pass" : "fail"}</td>`,
    ),
  ]);
  return `<h3>At 80, 100 and 120 % of the rate found: each level's % compliant (or what was measured), pass or fail</h3>${htmlTable(complianceHeader(c), rows)}`;
}

function sectionHtml(c: Capacity): string {
  return [
    `<h2>${esc(c.mode)}</h2>`,
    `<div class="verdict ${c.sustainedPerSecond === null ? "generator" : "target"}"><p class="capacity-headline">${esc(c.headline)}</p></div>`,
    `<p class="run">Search ended: ${esc(c.reason)} (limited by ${esc(c.limitedBy)}; ${c.steps.length} steps, ${c.arrivals} arrivals). Service levels: ${esc(c.levelsJudged.join(", "))}.</p>`,
    capacityChart(c),
    `<h3>Steps</h3>${stepsHtml(c)}`,
    complianceHtml(c),
  ].join("\n");
}

export function renderCapacityHtml(doc: CapacityDocument): string {
  const sections = doc.perMessage ? [doc.perMessage, doc.capacity] : [doc.capacity];
  const title = `mailvolley capacity — ${doc.capacity.target}`;
  const both = doc.perMessage
    ? `<p class="capacity-both">${esc(sideBySide(doc.perMessage, doc.capacity))}</p>`
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}${CHART_CSS}</style>
</head><body>
<header><h1>${esc(title)}</h1></header>
${both}
${sections.map(sectionHtml).join("\n")}
</body></html>
`;
}
