/**
 * The statistics of repeated runs: a figure's spread over the runs of one side, and Welch's
 * t-test of two sides. The distributions come from stdlib (@stdlib/stats-ttest2 for the test
 * and its interval, @stdlib/stats-base-dists-t-quantile for one side's interval); what is
 * written here is arithmetic and the cases the library leaves undefined (a side that did not
 * vary). test/diff-statistics.test.ts holds them to scipy's results for fixed samples.
 */
import { createRequire } from "node:module";
import type { Static } from "@sinclair/typebox";
import type TQuantile from "@stdlib/stats-base-dists-t-quantile";
import type Ttest2 from "@stdlib/stats-ttest2";
import type { Spread as SpreadSchema } from "../result/schema/repeat.js";

export type Spread = Static<typeof SpreadSchema>;

/**
 * stdlib's CommonJS, required on first use: the bundle leaves what createRequire loads to
 * node_modules (esbuild follows no createRequire), so a run without --repeat never loads it,
 * and its own require of Node's builtins works as in any CommonJS package.
 */
const stdlib = {
  tQuantile: null as typeof TQuantile | null,
  ttest2: null as typeof Ttest2 | null,
};

/** The t distribution's quantile (stdlib): tCritical below, and nothing else. */
function tQuantile(p: number, df: number): number {
  stdlib.tQuantile ??= createRequire(import.meta.url)(
    "@stdlib/stats-base-dists-t-quantile",
  ) as typeof TQuantile;
  return stdlib.tQuantile(p, df);
}

function ttest2(...args: Parameters<typeof Ttest2>): ReturnType<typeof Ttest2> {
  stdlib.ttest2 ??= createRequire(import.meta.url)("@stdlib/stats-ttest2") as typeof Ttest2;
  return stdlib.ttest2(...args);
}

/** The significance level: 95 % intervals, significant below p = 0.05. */
export const ALPHA = 0.05;

/** Fewer runs a side than this, and a diff concludes nothing. */
export const MIN_RUNS = 3;

/** Over this coefficient of variation the runs are called unstable. */
export const UNSTABLE_CV = 0.1;

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** Sample variance (n − 1); 0 for one value. */
function variance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1);
}

/** The two-sided 95 % critical value of Student's t with `df` degrees of freedom. */
export function tCritical(df: number): number {
  return tQuantile(1 - ALPHA / 2, df);
}

/** The spread of one figure over runs (at least one value). */
export function spreadOf(values: readonly number[]): Spread {
  const n = values.length;
  const m = mean(values);
  const sd = Math.sqrt(variance(values));
  const half = n < 2 ? null : tCritical(n - 1) * (sd / Math.sqrt(n));
  return {
    runs: n,
    mean: m,
    sd,
    ciLow: half === null ? null : m - half,
    ciHigh: half === null ? null : m + half,
    min: Math.min(...values),
    max: Math.max(...values),
    cv: m === 0 ? null : sd / Math.abs(m),
  };
}

/** Half the 95 % interval of a spread's mean; null for one run. */
export function halfInterval(spread: Spread): number | null {
  return spread.ciHigh === null ? null : spread.ciHigh - spread.mean;
}

export interface WelchOutcome {
  /** Two-sided p-value that the means are equal. */
  p: number;
  /** 95 % interval of mean(b) − mean(a). */
  low: number;
  high: number;
}

/**
 * Welch's two-sample t-test of b against a (each at least 2 values): the p-value and the 95 %
 * interval of mean(b) − mean(a). Where neither side varied the statistic is 0/0 for the
 * library: equal means are no difference (p = 1), different ones a certain one (p = 0).
 */
export function welch(a: readonly number[], b: readonly number[]): WelchOutcome {
  const diff = mean(b) - mean(a);
  if (variance(a) === 0 && variance(b) === 0) {
    return { p: diff === 0 ? 1 : 0, low: diff, high: diff };
  }
  const test = ttest2([...b], [...a], { alpha: ALPHA });
  return { p: test.pValue, low: test.ci[0], high: test.ci[1] };
}
