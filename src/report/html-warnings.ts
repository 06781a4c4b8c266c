/**
 * The HTML report's warnings: replies mailvolley accepted though they bent a rule, one row per
 * code, per run, each count carrying its JSON field as html.ts's cells do.
 */
import type { Result } from "../result/result.js";
import { fmt, runLabel } from "./figures.js";
import { esc } from "./html-escape.js";

/** The "Warnings" section, or "" when no run has any. */
export function warningsHtml(runs: readonly Result[], prefix: (i: number) => string): string {
  if (!runs.some((r) => r.warnings?.length)) return "";
  const parts = runs.map((r, i) => {
    const title = runs.length > 1 ? `<h3>${esc(runLabel(r, runs))}</h3>` : "";
    if (!r.warnings?.length) return `${title}<p class="good">no warnings</p>`;
    const rows = r.warnings.map((w, j) => {
      const field = `${prefix(i)}warnings.${j}.count`;
      const count = `<td data-field="${esc(field)}" data-value="${w.count}">${esc(fmt(w.count))}</td>`;
      return `<tr><td class="text">${esc(w.code)}</td>${count}<td class="text">${esc(w.description)}</td><td class="text">${esc(w.firstReply)}</td></tr>`;
    });
    return `${title}<table><tr><th>warning</th><th>count</th><th>meaning</th><th>first reply</th></tr>${rows.join("")}</table>`;
  });
  return `<section><h2>Warnings</h2>${parts.join("")}</section>`;
}
