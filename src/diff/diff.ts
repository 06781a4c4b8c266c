/**
 * Two sets of runs of one load, A and B, compared per headline figure: each side's spread, the
 * change of the mean with its 95 % interval, Welch's p-value, and a word (better, worse, ~).
 * Pure: the runs' figures in, the `diff` section of a diff document out.
 */
import type { Static } from "@sinclair/typebox";
import type { DiffSchema } from "../result/schema/diff.js";
import { DIFF_SCHEMA } from "../result/schema/names.js";
import { beyond, type FailIf } from "./gate.js";
import {
  betterOf,
  HEADLINE_FIGURES,
  type HeadlineFigure,
  type HeadlineFigures,
} from "./headline-figures.js";
import { valuesOf } from "./repeat.js";
import { ALPHA, MIN_RUNS, spreadOf, welch } from "./statistics.js";

export type DiffDocument = Static<typeof DiffSchema>;
export type Diff = DiffDocument["diff"];
export type DiffFigure = Diff["figures"][number];

/** One side of a diff: the files it came from, its load in words and each run's figures. */
export interface DiffSide {
  files: string[];
  load: string | null;
  runs: HeadlineFigures[];
}

/** A figure of A against B; null when either side lacks it. */
export function diffFigure(
  figure: HeadlineFigure,
  a: readonly HeadlineFigures[],
  b: readonly HeadlineFigures[],
): DiffFigure | null {
  const x = valuesOf(a, figure);
  const y = valuesOf(b, figure);
  if (x.length === 0 || y.length === 0) return null;
  const sa = spreadOf(x);
  const sb = spreadOf(y);
  const tested = x.length >= 2 && y.length >= 2 ? welch(x, y) : null;
  const conclusive = x.length >= MIN_RUNS && y.length >= MIN_RUNS;
  const significant = conclusive && tested !== null && tested.p < ALPHA;
  // Relative to A's mean; where that is 0 only no difference has a relative size (0).
  const relative = (v: number) => (sa.mean !== 0 ? v / sa.mean : v === 0 ? 0 : null);
  const better = betterOf(figure);
  const rose = sb.mean > sa.mean;
  return {
    figure,
    better,
    a: sa,
    b: sb,
    aRuns: x,
    bRuns: y,
    change: relative(sb.mean - sa.mean),
    changeLow: tested === null ? null : relative(tested.low),
    changeHigh: tested === null ? null : relative(tested.high),
    p: tested === null ? null : tested.p,
    significant,
    verdict: !significant ? "~" : rose === (better === "higher") ? "better" : "worse",
  };
}

/** The diff of A and B, the --fail-if bounds judged; loadDifferences as found (and forced). */
export function diffOf(
  a: DiffSide,
  b: DiffSide,
  gates: readonly FailIf[],
  loadDifferences: readonly string[],
): DiffDocument {
  const figures = HEADLINE_FIGURES.flatMap((f) => diffFigure(f, a.runs, b.runs) ?? []);
  const failIf = gates.map((gate) => {
    const row = figures.find((f) => f.figure === gate.figure);
    const breached = !!row && row.significant && row.change !== null && beyond(gate, row.change);
    return { expression: gate.expression, breached };
  });
  const side = (s: DiffSide) => ({ files: s.files, runs: s.runs.length, load: s.load });
  return {
    schema: DIFF_SCHEMA,
    diff: {
      test: "welch-t",
      alpha: ALPHA,
      a: side(a),
      b: side(b),
      conclusive: a.runs.length >= MIN_RUNS && b.runs.length >= MIN_RUNS,
      loadDifferences: [...loadDifferences],
      figures,
      failIf,
    },
  };
}
