/**
 * The HTML report's delivery section (--receive): the same figures as the terminal's
 * (report/delivery.ts), one column per run, each cell carrying its JSON field as html.ts's do.
 */
import { deliveryVerdict, drainText, keysStripped } from "../delivery/delivery-verdict.js";
import { DELIVERY_STATES } from "../delivery/records.js";
import type { DeliveryResult } from "../result/delivery-result.js";
import type { LatencySummary, Result } from "../result/result.js";
import { refsText, statusesText } from "./delivery.js";
import { titleOf } from "./figure-docs.js";
import { DELIVERY_ROWS, FIGURES, type Figure, figureText, figureValue } from "./figure-table.js";
import { ms } from "./figures.js";

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

type Latency = [string, string, (d: DeliveryResult) => LatencySummary | undefined];

const LATENCIES: Latency[] = [
  ["end to end (intended send → first arrival)", "endToEndMs", (d) => d.endToEndMs],
  ["inside the gateway (250 → first arrival)", "insideGatewayMs", (d) => d.insideGatewayMs],
  ["retry delay (first refusal → arrival)", "retryDelayMs", (d) => d.retryDelayMs],
];

/** The end-to-end and in-gateway latencies of each final state some run has. */
function stateLatencies(runs: readonly (DeliveryResult | undefined)[]): Latency[] {
  const states = DELIVERY_STATES.filter((state) => runs.some((d) => d?.byState[state]));
  return states.flatMap((state): Latency[] => [
    [`  ${state}: end to end`, `byState.${state}.endToEndMs`, (d) => d.byState[state]?.endToEndMs],
    [
      `  ${state}: inside the gateway`,
      `byState.${state}.insideGatewayMs`,
      (d) => d.byState[state]?.insideGatewayMs,
    ],
  ]);
}

function cell(field: string, value: number, text: string, bad: boolean): string {
  const cls = bad && value > 0 ? ' class="bad"' : "";
  return `<td${cls} data-field="${escapeHtml(field)}" data-value="${value}">${escapeHtml(text)}</td>`;
}

/** The section, or "" when no run received (no --receive). */
export function deliveryHtml(runs: readonly Result[], prefix: (i: number) => string): string {
  const received = runs.map((r, i) => ({ d: r.delivery, at: `${prefix(i)}delivery.` }));
  if (received.every((r) => !r.d)) return "";
  const head = `<tr><th></th>${runs.map((r) => `<th>${escapeHtml(r.mode)}</th>`).join("")}</tr>`;
  const rows = DELIVERY_ROWS.map((name) => {
    const figure: Figure = FIGURES[name];
    const cells = runs.map((r, i) => {
      if (!r.delivery) return "<td></td>";
      const v = figureValue(figure, r);
      if (v === null) return "<td>n/a</td>";
      return cell(`${prefix(i)}${figure.path}`, v, figureText(figure, v), figure.bad === true);
    });
    return `<tr><td${titleOf(figure.path, escapeHtml)}>${escapeHtml(figure.label)}</td>${cells.join("")}</tr>`;
  });
  const split = stateLatencies(received.map((r) => r.d));
  const latencies = [...LATENCIES, ...(split.length > 2 ? split : [])].map(
    ([label, field, summary]) => {
      const cells = received.map(({ d, at }) => {
        const s = d ? summary(d) : null;
        if (!s || s.count === 0) return "<td>n/a</td>";
        const text = `p50 ${ms(s.p50)} · p99 ${ms(s.p99)} · max ${ms(s.max)}`;
        return cell(`${at}${field}.p99`, s.p99, text, false);
      });
      return `<tr><td>${escapeHtml(label)} (ms)</td>${cells.join("")}</tr>`;
    },
  );
  const says = (what: (d: DeliveryResult) => string | null) =>
    received
      .map(({ d }, i) => {
        const text = d ? what(d) : null;
        return text ? `<p>${escapeHtml(`${runs[i].mode}: ${text}`)}</p>` : "";
      })
      .join("");
  const verdicts = says(deliveryVerdict);
  const drains = says((d) => `drain: ${drainText(d)}`);
  const stripped = says((d) =>
    keysStripped(d)
      ? `every arrival was foreign (${d.foreign}): the gateway stripped the keys; run with --tag-recipients`
      : null,
  );
  const bounces = says((d) =>
    d.bounced > 0 ? `bounced: ${statusesText(d.bounceStatuses)}` : null,
  );
  const lists = (title: string, refs: (d: DeliveryResult) => DeliveryResult["firstLost"]) => {
    const items = received
      .flatMap(({ d }) => (d ? refs(d).slice(0, 10) : []))
      .map((m) => `<li>${escapeHtml(refsText([m], 1))}</li>`)
      .join("");
    return items
      ? `<h3>${escapeHtml(title)} (id, class, gateway queue id)</h3><ul>${items}</ul>`
      : "";
  };
  const table = `<table>${head}${[...rows, ...latencies].join("")}</table>`;
  return `<section><h2>Through the gateway</h2>${verdicts}${drains}${stripped}${bounces}${table}${classTable(runs, prefix)}${lists("first lost", (d) => d.firstLost)}${lists("first duplicated", (d) => d.firstDuplicated)}</section>`;
}

/** Per message class and run: its counts and end-to-end latency, as the terminal lists them. */
function classTable(runs: readonly Result[], prefix: (i: number) => string): string {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.delivery?.classes ?? {})))];
  if (names.length < 2) return "";
  const head = `<tr><th>class</th>${runs.map((r) => `<th>${escapeHtml(r.mode)}</th>`).join("")}</tr>`;
  const rows = names.map((name) => {
    const cells = runs.map((r, i) => {
      const c = r.delivery?.classes[name];
      if (!c) return "<td></td>";
      const bounced =
        c.bounced > 0 ? ` · bounced ${c.bounced} (${statusesText(c.bounceStatuses)})` : "";
      const e2e = c.endToEndMs.count === 0 ? "n/a" : `p99 ${ms(c.endToEndMs.p99)} ms`;
      const text = `delivered ${c.delivered}/${c.accepted} · lost ${c.lost}${bounced} · e2e ${e2e}`;
      return cell(`${prefix(i)}delivery.classes.${name}.lost`, c.lost, text, true);
    });
    return `<tr><td>${escapeHtml(name)}</td>${cells.join("")}</tr>`;
  });
  return `<h3>per class</h3><table>${head}${rows.join("")}</table>`;
}
