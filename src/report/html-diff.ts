/**
 * `mailvolley diff --html`: one self-contained page; per figure, every run of A and of B as a
 * point on one axis, each side's mean as a bar and its 95 % interval as a line, beside the
 * table the terminal prints. Inline SVG: no script, nothing to load. Pure.
 */
import type { DiffDocument, DiffFigure } from "../diff/diff.js";
import type { Spread } from "../diff/statistics.js";
import { changeCell, inconclusiveText, pText, sideText } from "./diff.js";
import { esc } from "./html-escape.js";
import { headlineText, meanText } from "./repeat.js";

const WIDTH = 340;
const ROW = 26;
const PAD = 12;

/** One side's row of the plot: its runs as points, its mean and interval. */
function sideRow(
  y: number,
  spread: Spread,
  runs: readonly number[],
  x: (v: number) => number,
  cls: string,
): string {
  const points = runs
    .map(
      (v) =>
        `<circle class="${cls}" cx="${x(v).toFixed(1)}" cy="${y}" r="3.5"><title>${v}</title></circle>`,
    )
    .join("");
  const interval =
    spread.ciLow === null || spread.ciHigh === null
      ? ""
      : `<line class="ci ${cls}" x1="${x(spread.ciLow).toFixed(1)}" x2="${x(spread.ciHigh).toFixed(1)}" y1="${y + 8}" y2="${y + 8}"/>`;
  const mean = `<line class="mean ${cls}" x1="${x(spread.mean).toFixed(1)}" x2="${x(spread.mean).toFixed(1)}" y1="${y - 9}" y2="${y + 9}"/>`;
  return points + interval + mean;
}

/** The plot of one figure: A's row above B's, on one axis from the smallest to the largest. */
function plot(f: DiffFigure): string {
  const all = [...f.aRuns, ...f.bRuns, f.a.ciLow, f.a.ciHigh, f.b.ciLow, f.b.ciHigh].filter(
    (v): v is number => v !== null,
  );
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const span = hi - lo || Math.abs(hi) || 1;
  const x = (v: number) => 40 + ((v - lo) / span) * (WIDTH - 40 - PAD);
  const height = 2 * ROW + 24;
  const axis = `<text x="40" y="${height - 4}">${esc(headlineText(f.figure, lo))}</text><text x="${WIDTH - PAD}" y="${height - 4}" text-anchor="end">${esc(headlineText(f.figure, hi))}</text>`;
  return `<svg class="runs" width="${WIDTH}" height="${height}" role="img" aria-label="${esc(f.figure)}: every run of A and B"><text x="4" y="${ROW - 2}">A</text><text x="4" y="${2 * ROW - 2}">B</text>${sideRow(ROW - 6, f.a, f.aRuns, x, "a")}${sideRow(2 * ROW - 6, f.b, f.bRuns, x, "b")}${axis}</svg>`;
}

function figureRow(f: DiffFigure, i: number): string {
  const at = `diff.figures.${i}`;
  const change = f.change === null ? "" : ` data-value="${f.change}"`;
  return `<tr data-figure="${esc(f.figure)}"><td>${esc(f.figure)}</td><td data-field="${at}.a.mean" data-value="${f.a.mean}">${esc(meanText(f.figure, f.a))}</td><td data-field="${at}.b.mean" data-value="${f.b.mean}">${esc(meanText(f.figure, f.b))}</td><td data-field="${at}.change"${change}>${esc(changeCell(f))}</td><td data-field="${at}.p">${esc(pText(f.p))}</td><td class="${f.verdict === "better" ? "good" : f.verdict === "worse" ? "bad" : ""}" data-field="${at}.verdict">${esc(f.verdict)}</td><td class="plot">${plot(f)}</td></tr>`;
}

export function renderDiffHtml(doc: DiffDocument): string {
  const { diff } = doc;
  const notes = [
    inconclusiveText(diff),
    ...diff.loadDifferences.map((l) => `load differs (--force): ${l}`),
    ...diff.failIf.map((g) => `--fail-if ${g.expression}: ${g.breached ? "breached" : "held"}`),
  ].filter((l): l is string => l !== null);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mailvolley diff</title>
<style>${CSS}</style>
</head><body>
<header><h1>mailvolley diff</h1><p class="run">A: ${esc(sideText(diff.a))}</p><p class="run">B: ${esc(sideText(diff.b))}</p>${diff.a.load ? `<p class="run">Load: ${esc(diff.a.load)}</p>` : ""}</header>
${notes.map((n) => `<p class="note">${esc(n)}</p>`).join("")}
<table><tr><th>figure</th><th>A</th><th>B</th><th>change (95 % CI)</th><th>p</th><th></th><th>runs (dots), mean (bar), 95 % CI (line)</th></tr>
${diff.figures.map(figureRow).join("\n")}
</table>
<p class="run">A, B: mean ± 95 % confidence interval. p: Welch's t-test; ~: no significant difference (p ≥ 0.05).</p>
</body></html>
`;
}

const CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1240px; color: #1c2833; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } .run { color: #566573; margin: 0; }
.note { padding: 6px 12px; border-left: 4px solid #b7950b; background: #fef9e7; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eaeded; text-align: right; white-space: nowrap; vertical-align: middle; }
th:first-child, td:first-child { text-align: left; } th { background: #f4f6f7; font-weight: 600; }
.good { color: #1e8449; font-weight: 600; } .bad { color: #c0392b; font-weight: 600; }
svg.runs text { font-size: 11px; fill: #566573; }
circle.a { fill: #2e86c1; fill-opacity: 0.7; } circle.b { fill: #d35400; fill-opacity: 0.7; }
line.mean { stroke-width: 3; } line.ci { stroke-width: 1.5; }
line.a { stroke: #2e86c1; } line.b { stroke: #d35400; }
`;
