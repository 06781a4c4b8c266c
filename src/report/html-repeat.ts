/**
 * The HTML report's section for a --repeat result: each headline figure as mean ± CI with its
 * spread, and the warning when the runs varied more than 10 %. Pure.
 */
import { HEADLINE_FIGURES } from "../diff/headline-figures.js";
import { ratioSpreads } from "../diff/repeat.js";
import type { Result } from "../result/result.js";
import { esc } from "./html-escape.js";
import {
  headlineText,
  meanText,
  percentText,
  ratioText,
  times,
  UNSTABLE,
  unstableFigures,
} from "./repeat.js";

/**
 * compare --repeat: each figure's ratio reuse / per-message per round, from the rounds' figures
 * the two runs keep, with its interval; "" unless both modes were repeated.
 */
function ratiosHtml(runs: readonly Result[]): string {
  const base = runs.find((r) => r.mode === "per-message")?.repeat;
  const reuse = runs.find((r) => r.mode === "reuse")?.repeat;
  if (!base || !reuse) return "";
  const ratios = ratioSpreads(
    base.runs.map((r) => r.figures),
    reuse.runs.map((r) => r.figures),
  );
  const rows = HEADLINE_FIGURES.flatMap((figure) => {
    const s = ratios[figure];
    if (!s) return [];
    return [
      `<tr data-figure="${figure}"><td>${figure}</td><td data-value="${s.mean}">${esc(ratioText(s))}</td><td>${esc(`${times(s.min)}× … ${times(s.max)}×`)}</td><td>${s.cv === null ? "-" : esc(percentText(s.cv))}</td></tr>`,
    ];
  });
  return `<section class="repeat ratios"><h2>Repeated: reuse / per-message over ${base.count} rounds</h2><table><tr><th>figure</th><th>mean ± 95 % CI</th><th>min … max</th><th>CV</th></tr>${rows.join("")}</table></section>`;
}

/** The section, or "" when no run of the report was repeated. */
export function repeatHtml(runs: readonly Result[]): string {
  return (
    ratiosHtml(runs) +
    runs
      .map((r, i) => {
        const repeat = r.repeat;
        if (!repeat) return "";
        const at = runs.length > 1 ? `runs.${i}.repeat` : "repeat";
        const rows = HEADLINE_FIGURES.flatMap((figure) => {
          const s = repeat.spread[figure];
          if (!s) return [];
          const text = (v: number) => esc(headlineText(figure, v));
          const field = `${at}.spread.${figure}`;
          return [
            `<tr data-figure="${figure}"><td>${figure}</td><td data-field="${field}.mean" data-value="${s.mean}">${esc(meanText(figure, s))}</td><td data-field="${field}.sd" data-value="${s.sd}">${text(s.sd)}</td><td>${text(s.min)} … ${text(s.max)}</td><td data-field="${field}.cv" data-value="${s.cv ?? ""}">${s.cv === null ? "-" : esc(percentText(s.cv))}</td></tr>`,
          ];
        });
        const unstable = unstableFigures(repeat.spread);
        const warning =
          unstable.length > 0
            ? `<div class="verdict unstable"><p>${esc(UNSTABLE)} (CV over 10 %: ${esc(unstable.join(", "))})</p></div>`
            : "";
        const title = `Repeated: ${repeat.count} runs${runs.length > 1 ? ` — ${r.mode}` : ""}`;
        return `<section class="repeat"><h2>${esc(title)}</h2><p class="run">Each figure over the runs; the rest of the report is the last run's.</p>${warning}<table><tr><th>figure</th><th>mean ± 95 % CI</th><th>sd</th><th>min … max</th><th>CV</th></tr>${rows.join("")}</table></section>`;
      })
      .join("")
  );
}
