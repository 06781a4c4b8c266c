/**
 * `--repeat N`: the Result's `repeat` section from the runs of one load, each run's headline
 * figures and, per figure, its spread over the runs that had it.
 */
import type { Static } from "@sinclair/typebox";
import type { Result } from "../result/result.js";
import type { RepeatSection as RepeatSchema } from "../result/schema/repeat.js";
import {
  HEADLINE_FIGURES,
  type HeadlineFigure,
  type HeadlineFigures,
  headlineFigures,
} from "./headline-figures.js";
import { type Spread, spreadOf } from "./statistics.js";

export type RepeatSection = Static<typeof RepeatSchema>;

/** The values a figure took over a set of runs, leaving out the runs without it. */
export function valuesOf(runs: readonly HeadlineFigures[], figure: HeadlineFigure): number[] {
  return runs.flatMap((r) => (r[figure] === null ? [] : [r[figure]]));
}

/** Each headline figure's spread over `runs`; null for a figure no run had. */
export function spreads(runs: readonly HeadlineFigures[]): Record<HeadlineFigure, Spread | null> {
  const out = {} as Record<HeadlineFigure, Spread | null>;
  for (const figure of HEADLINE_FIGURES) {
    const values = valuesOf(runs, figure);
    out[figure] = values.length === 0 ? null : spreadOf(values);
  }
  return out;
}

/** The section for `results`, the runs in the order they ran (at least one). */
export function repeatSection(results: readonly Result[], pauseMs: number): RepeatSection {
  const runs = results.map((r) => ({
    runId: r.runId,
    startedAt: r.startedAt,
    accepted: r.messages.accepted,
    figures: headlineFigures(r),
  }));
  return { count: runs.length, pauseMs, runs, spread: spreads(runs.map((r) => r.figures)) };
}

/** The headline figures of each run a result holds: a --repeat result's runs, else its own. */
export function runsOf(result: Result): HeadlineFigures[] {
  return result.repeat ? result.repeat.runs.map((r) => r.figures) : [headlineFigures(result)];
}

/**
 * `compare --repeat`: per figure, the ratio other / base of each round (the runs paired by
 * index) and its spread; null where no round has both figures, or a base figure is 0.
 */
export function ratioSpreads(
  base: readonly HeadlineFigures[],
  other: readonly HeadlineFigures[],
): Record<HeadlineFigure, Spread | null> {
  const out = {} as Record<HeadlineFigure, Spread | null>;
  for (const figure of HEADLINE_FIGURES) {
    const ratios = base.flatMap((b, i) => {
      const x = b[figure];
      const y = other[i]?.[figure];
      return x === null || x === 0 || y === null || y === undefined ? [] : [y / x];
    });
    out[figure] = ratios.length === 0 ? null : spreadOf(ratios);
  }
  return out;
}
