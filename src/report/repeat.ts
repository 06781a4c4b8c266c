/**
 * Repeated runs in the terminal: each headline figure as "mean ± CI" with its spread, and the
 * warning when the runs varied too much to compare. How a headline figure's number is written
 * is here too, for the repeat block, its HTML and `mailvolley diff`. Pure.
 */
import { HEADLINE_FIGURES, type HeadlineFigure } from "../diff/headline-figures.js";
import { halfInterval, type Spread, UNSTABLE_CV } from "../diff/statistics.js";
import type { Result } from "../result/result.js";
import type { CompareRepeat } from "./compare.js";
import { fmt, ms, runLabel } from "./figures.js";
import { painter, renderSummary, type TerminalOptions, table } from "./terminal.js";

/** A headline figure's number as the reports write it. */
export function headlineText(figure: HeadlineFigure, value: number): string {
  if (figure.endsWith("Ms") && figure !== "cpuMsPerMessage") return ms(value);
  switch (figure) {
    case "errorPercent":
      return value.toFixed(2);
    case "connectionsPerMessage":
    case "cpuMsPerMessage":
      return fmt(value, 4);
    default:
      return fmt(value, 1);
  }
}

/** "301.2 ± 4.1"; the mean alone for one run. */
export function meanText(figure: HeadlineFigure, spread: Spread): string {
  const half = halfInterval(spread);
  const mean = headlineText(figure, spread.mean);
  return half === null ? mean : `${mean} ± ${headlineText(figure, half)}`;
}

/** "12.5 %" */
export const percentText = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;

/** The warning when runs varied more than UNSTABLE_CV. */
export const UNSTABLE = "unstable: add runs, or quiet the machine";

/** The figures whose runs varied more than UNSTABLE_CV, with their CV: "throughput 14.2 %". */
export function unstableFigures(spread: Readonly<Record<string, Spread | null>>): string[] {
  return HEADLINE_FIGURES.flatMap((figure) => {
    const cv = spread[figure]?.cv;
    return cv != null && cv > UNSTABLE_CV ? [`${figure} ${percentText(cv)}`] : [];
  });
}

/** The terminal summary, with a --repeat result's block of spreads after it. */
export function renderRunSummary(result: Result, options: TerminalOptions): string {
  const block = repeatBlock(result, painter(options.color));
  return block === null
    ? renderSummary(result, options)
    : `${renderSummary(result, options)}\n${block}\n`;
}

/** The terminal's block for a --repeat result; null for a single run. */
export function repeatBlock(
  result: Result,
  paint: ReturnType<typeof painter>,
  heading = "the figures above are the last run's",
): string | null {
  const repeat = result.repeat;
  if (!repeat) return null;
  const rows = [["  figure", "mean ± 95 % CI", "sd", "min … max", "CV"]];
  for (const figure of HEADLINE_FIGURES) {
    const s = repeat.spread[figure];
    if (!s) continue;
    const text = (v: number) => headlineText(figure, v);
    rows.push([
      `  ${figure}`,
      meanText(figure, s),
      text(s.sd),
      `${text(s.min)} … ${text(s.max)}`,
      s.cv === null ? "-" : percentText(s.cv),
    ]);
  }
  const apart = repeat.pauseMs > 0 ? `, ${(repeat.pauseMs / 1000).toFixed(1)} s apart` : "";
  const out = [
    `Repeated      ${repeat.count} runs${apart}; ${heading}`,
    table(rows, [false, true, true, true, true]),
  ];
  const unstable = unstableFigures(repeat.spread);
  if (unstable.length > 0) {
    out.push(paint.yellow(`  ${UNSTABLE} (CV over 10 %: ${unstable.join(", ")})`));
  }
  return out.join("\n");
}

/** A ratio to two decimals, or two significant digits below 0.1 (0.0040, not 0.00). */
export const times = (v: number) => (v === 0 || Math.abs(v) >= 0.1 ? fmt(v, 2) : v.toPrecision(2));

/** "2.31× ± 0.12"; the ratio alone for one round. */
export function ratioText(spread: Spread): string {
  const half = halfInterval(spread);
  const mean = `${times(spread.mean)}×`;
  return half === null ? mean : `${mean} ± ${times(half)}`;
}

/**
 * `compare --repeat` in the terminal: the compare of the last round, each mode's block of
 * spreads, and the ratios reuse / per-message with their intervals.
 */
export function renderCompareRepeat(
  compare: string,
  runs: readonly Result[],
  repeat: CompareRepeat,
  options: TerminalOptions,
): string {
  const paint = painter(options.color);
  const rows = [["  reuse / per-message", "mean ± 95 % CI", "min … max", "CV"]];
  for (const figure of HEADLINE_FIGURES) {
    const s = repeat.ratios[figure];
    if (!s) continue;
    rows.push([
      `  ${figure}`,
      ratioText(s),
      `${times(s.min)}× … ${times(s.max)}×`,
      s.cv === null ? "-" : percentText(s.cv),
    ]);
  }
  const blocks = runs.flatMap((r) => {
    const block = repeatBlock(r, paint, `the ${runLabel(r, runs)} runs`);
    return block === null ? [] : [block];
  });
  const out = [
    compare.trimEnd(),
    "",
    `Repeated      ${repeat.rounds} rounds; the columns above are the last round's`,
    table(rows, [false, true, true, true]),
    ...blocks.flatMap((b) => ["", b]),
  ];
  return `${out.join("\n")}\n`;
}
