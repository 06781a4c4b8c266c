/**
 * `mailvolley diff --json`: two sets of runs of one load (A and B) compared headline figure by
 * headline figure (result-schema/repeat.ts defines each figure and which way is better).
 */
import { Type } from "@sinclair/typebox";
import { def, enumOf, nullable, ref } from "./define.js";
import { Count, Fraction } from "./kinds.js";
import { DIFF_SCHEMA, HEADLINE_FIGURES } from "./names.js";
import { Spread } from "./repeat.js";

const side = (name: string) =>
  Type.Object(
    {
      files: Type.Array(Type.String(), { description: "The result files of this side, as given." }),
      runs: ref(Count, "Runs on this side: a --repeat result's runs, or one per file."),
      load: nullable(Type.String(), "The load in one line (run.load); null when unrecorded."),
    },
    { description: `The runs of ${name}.`, additionalProperties: false },
  );

export const DiffFigure = def(
  "diffFigure",
  Type.Object(
    {
      figure: enumOf(HEADLINE_FIGURES, "The headline figure compared (headlineFigures)."),
      better: enumOf(["higher", "lower"], "Which way is better, from the figure's definition."),
      a: ref(Spread, "The figure over A's runs."),
      b: ref(Spread, "The figure over B's runs."),
      aRuns: Type.Array(Type.Number(), {
        description: "A's value in each of its runs that had the figure, in order.",
      }),
      bRuns: Type.Array(Type.Number(), {
        description: "B's value in each of its runs that had the figure, in order.",
      }),
      change: nullable(
        Type.Number(),
        "(mean B − mean A) / mean A: -0.3 is 30 % less in B; 0 when the means are equal. null when A's mean is 0 and B's is not.",
      ),
      changeLow: nullable(
        Type.Number(),
        "Low end of the change's 95 % confidence interval: Welch's interval of mean B − mean A, over mean A. null with fewer than 2 runs a side, or when A's mean is 0 and the interval is not 0 … 0.",
      ),
      changeHigh: nullable(Type.Number(), "High end of that interval."),
      p: nullable(
        ref(Fraction),
        "Two-sided p-value of Welch's t-test that A and B have the same mean; null with fewer than 2 runs a side.",
      ),
      significant: Type.Boolean({
        description:
          "p < alpha with at least 3 runs a side (and, when neither side varied, means that differ).",
      }),
      verdict: enumOf(
        ["better", "worse", "~"],
        "better or worse: B against A, significant, by the figure's `better`; ~: no significant difference.",
      ),
    },
    { description: "One figure of A against B.", additionalProperties: false },
  ),
);

export const DiffSchema = def(
  "diff",
  Type.Object(
    {
      schema: Type.Literal(DIFF_SCHEMA, { description: "This document's kind and version." }),
      diff: Type.Object(
        {
          test: enumOf(
            ["welch-t"],
            "The test behind p: Welch's two-sample t-test (docs/comparing-runs.md says why).",
          ),
          alpha: ref(Fraction, "The significance level: 0.05."),
          a: side("A, the baseline"),
          b: side("B, compared against A"),
          conclusive: Type.Boolean({
            description:
              "Both sides have at least 3 runs; with fewer, nothing can be concluded and no figure is significant.",
          }),
          loadDifferences: Type.Array(Type.String(), {
            description:
              "How A's load differs from B's (--force compared them anyway); empty when alike. The target's address is not part of the load.",
          }),
          figures: Type.Array(ref(DiffFigure), {
            description: "The headline figures both sides have, in report order.",
          }),
          failIf: Type.Array(
            Type.Object(
              {
                expression: Type.String({ description: "The bound as given (--fail-if)." }),
                breached: Type.Boolean({
                  description: "The change was significant and beyond the bound.",
                }),
              },
              { additionalProperties: false },
            ),
            { description: "Each --fail-if and whether it was breached (exit 99)." },
          ),
        },
        { description: "A against B, figure by figure.", additionalProperties: false },
      ),
    },
    {
      description: "`mailvolley diff`: two sets of runs of one load, compared.",
      additionalProperties: false,
    },
  ),
);
