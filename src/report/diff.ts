/**
 * `mailvolley diff` in the terminal, as benchstat prints it: per figure A and B as mean ± CI,
 * the change with its 95 % interval, the p-value and a word (better, worse, ~). Pure.
 */
import type { Diff, DiffDocument, DiffFigure } from "../diff/diff.js";
import { MIN_RUNS } from "../diff/statistics.js";
import { headlineText, meanText, percentText } from "./repeat.js";
import { painter, type TerminalOptions, table } from "./terminal.js";

/** "-50.1 %" with its sign. */
export function changeText(change: number): string {
  const text = percentText(change);
  return change > 0 ? `+${text}` : text;
}

/** "-50.1 % (-51.9 % … -48.3 %)"; "n/a" when A's mean is 0 and B's is not. */
export function changeCell(f: DiffFigure): string {
  if (f.change === null) return "n/a";
  const interval =
    f.changeLow === null || f.changeHigh === null
      ? ""
      : ` (${changeText(f.changeLow)} … ${changeText(f.changeHigh)})`;
  return `${changeText(f.change)}${interval}`;
}

/** The p-value as benchstat writes it: three decimals, "<0.001" below. */
export function pText(p: number | null): string {
  if (p === null) return "-";
  return p < 0.001 ? "<0.001" : p.toFixed(3);
}

/** Who A and B are: "a.json (5 runs)", "a1.json, a2.json (2 runs)". */
export function sideText(side: Diff["a"]): string {
  return `${side.files.join(", ")} (${side.runs} run${side.runs === 1 ? "" : "s"})`;
}

/** The sentence when a side has too few runs to conclude anything. */
export function inconclusiveText(diff: Diff): string | null {
  if (diff.conclusive) return null;
  return `fewer than ${MIN_RUNS} runs a side: nothing can be concluded (run each with --repeat ${MIN_RUNS} or more)`;
}

export function renderDiff(doc: DiffDocument, options: TerminalOptions): string {
  const { diff } = doc;
  const paint = painter(options.color);
  const word = (f: DiffFigure) =>
    f.verdict === "better"
      ? paint.green("better")
      : f.verdict === "worse"
        ? paint.red("worse")
        : "~";
  const rows = [["figure", "A", "B", "change (95 % CI)", "p", ""]];
  for (const f of diff.figures) {
    rows.push([
      f.figure,
      meanText(f.figure, f.a),
      meanText(f.figure, f.b),
      changeCell(f),
      pText(f.p),
      word(f),
    ]);
  }
  const out = [
    paint.bold("mailvolley diff"),
    `A  ${sideText(diff.a)}`,
    `B  ${sideText(diff.b)}`,
    ...(diff.a.load ? [`Load  ${diff.a.load}`] : []),
    "",
    table(rows, [false, true, true, true, true, false]),
    "",
    "A, B: mean ± 95 % confidence interval. p: Welch's t-test; ~: no significant difference (p ≥ 0.05).",
  ];
  const none = inconclusiveText(diff);
  if (none) out.push(paint.yellow(none));
  for (const line of diff.loadDifferences)
    out.push(paint.yellow(`load differs (--force): ${line}`));
  for (const gate of diff.failIf) {
    out.push(
      gate.breached
        ? paint.red(`--fail-if ${gate.expression}: breached`)
        : `--fail-if ${gate.expression}: held`,
    );
  }
  return `${out.join("\n")}\n`;
}

export { headlineText };

/** The diff document as `--json` writes it. */
export function renderDiffJson(doc: DiffDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
