/**
 * `mailvolley compare`: two Results of the same load, a connection per message and session
 * reuse, side by side, with the ratio reuse / per-message of every figure. Pure: Results in,
 * text out.
 */
import type { HeadlineFigure } from "../diff/headline-figures.js";
import type { Spread } from "../diff/statistics.js";
import { COMPARE_SCHEMA, type Mode, type Result } from "../result/result.js";
import { ERROR_CLASS_LABELS, ERROR_CLASSES, type ErrorClass } from "../stats/errors.js";
import { printable } from "../stats/printable.js";
import {
  firstSeenSpan,
  fmt,
  latencyCell,
  offeredResumption,
  PHASE_ROWS,
  QUIT_REPEATS_DATA_NOTE,
  quitRepeatsData,
  ratio,
  runLabel,
  sessionsOpen,
} from "./figures.js";

export { runLabel } from "./figures.js";

import { deliverySection } from "./delivery.js";
import {
  COMPARE_ROWS,
  COMPARE_TLS_ROWS,
  FIGURES,
  type Figure,
  figureText,
  figureValue,
} from "./figure-table.js";
import { painter, table } from "./terminal.js";
import { compareVerdictLines, wrapLines } from "./verdict.js";

export { COMPARE_SCHEMA };

export interface CompareRepeat {
  rounds: number;
  ratios: Record<HeadlineFigure, Spread | null>;
}

export interface Comparison {
  schema: typeof COMPARE_SCHEMA;
  /** In the order they ran; each carries its `mode`. */
  runs: Result[];
  /** The modes not run because a signal stopped the compare first; absent when both ran. */
  notRun?: Mode[];
  /** `compare --repeat`: the rounds and each figure's ratio reuse / per-message. */
  repeat?: CompareRepeat;
}

/**
 * The per-message run and the reuse run, whatever order they ran in; with TLS (compare
 * --starttls) `base` is the per-message run with full handshakes and `resumed` the per-message
 * run that resumed sessions.
 */
function pair(runs: readonly Result[]): { base: Result; reuse: Result; resumed?: Result } {
  const perMessage = runs.filter((r) => r.mode === "per-message");
  const resumed = perMessage.length > 1 ? perMessage.find(offeredResumption) : undefined;
  const base = perMessage.find((r) => r !== resumed) ?? runs[0];
  const reuse = runs.find((r) => r.mode === "reuse") ?? runs.find((r) => r !== base) ?? runs[1];
  return { base, reuse, resumed };
}

/** One sentence per figure that matters most, for the top of the report. */
export function headline(runs: readonly Result[]): string[] {
  const { base, reuse, resumed } = pair(runs);
  const rate = (r: Result) => r.throughput.messagesPerSecond;
  const lines = resumed
    ? [
        `TLS resumption delivered ${fmt(rate(resumed), 1)} messages/s against ${fmt(rate(base), 1)} with a full handshake per connection (${ratio(rate(base), rate(resumed))});`,
        `session reuse ${fmt(rate(reuse), 1)} (${ratio(rate(base), rate(reuse))} full, ${ratio(rate(resumed), rate(reuse))} resumed),`,
      ]
    : [
        `Session reuse delivered ${fmt(rate(reuse), 1)} messages/s against ${fmt(rate(base), 1)} with a connection per message (${ratio(rate(base), rate(reuse))}),`,
      ];
  lines.push(
    `opening ${fmt(reuse.connections.opened)} connections instead of ${fmt(base.connections.opened)} (${fmt(reuse.connections.perMessage, 4)} vs ${fmt(base.connections.perMessage, 4)} per message).`,
  );
  if (resumed?.tls) {
    lines.push(
      `Handshakes resumed: ${fmt(resumed.tls.resumed)} of ${fmt(resumed.tls.full + resumed.tls.resumed)} in the resumed run, ${fmt(base.tls?.resumed ?? 0)} in the full run.`,
    );
  }
  // Every run in the headline's order: per-message (full, then resumed) before reuse.
  const ordered = resumed ? [base, resumed, reuse] : [base, reuse];
  const count = (r: Result, cls: ErrorClass) => r.errorClasses?.[cls] ?? 0;
  const some = (cls: ErrorClass) => ordered.some((r) => count(r, cls) > 0);
  const each = (cls: ErrorClass, say: (n: string, r: Result, first: boolean) => string) =>
    inWords(ordered.map((r, i) => say(fmt(count(r, cls)), r, i === 0)));
  const onsets = (cls: ErrorClass) => ordered.map((r) => onset(r, cls, runs)).join("; ");
  if (some("refused")) {
    const refused = each("refused", (n, r, first) =>
      first
        ? `${n} connections of the ${runLabel(r, runs)} run`
        : `${n} of the ${runLabel(r, runs)} run`,
    );
    lines.push(`The gateway refused ${refused}.`, `First refusal: ${onsets("refused")}.`);
  }
  if (some("rateLimited")) {
    const limited = each(
      "rateLimited",
      (n, r) => `${n} times ${r.mode === "reuse" ? "with reuse" : runLabel(r, runs)}`,
    );
    lines.push(
      `Message rate limits answered ${limited}: reuse does not dodge those.`,
      `First rate limit: ${onsets("rateLimited")}.`,
    );
  }
  return lines;
}

/** "a and b", "a, b and c". */
function inWords(parts: string[]): string {
  return parts.length < 2 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

/** Where an error class first appeared in a run, in words (see Result.firstSeen). */
function onset(run: Result, cls: ErrorClass, runs: readonly Result[]): string {
  const name = runLabel(run, runs);
  const f = run.firstSeen?.find((s) => s.class === cls);
  if (!f) return `none in the ${name} run`;
  if (f.atSeconds === undefined || !f.connection) {
    return `${firstSeenSpan(f)} into the ${name} run, after ${fmt(f.connectionsOpened)} connections and ${fmt(f.sent)} messages`;
  }
  const message = f.message ? ` and message ${fmt(f.message)}` : "";
  return `${f.atSeconds.toFixed(3)} s into the ${name} run, at connection ${fmt(f.connection)}${message} (${sessionsOpen(f.openSessions)}, ${fmt(f.sent)} messages started)`;
}

/** The load both runs carried (Result.run), once when it is the same. */
function loadLines(runs: readonly Result[]): string[] {
  const loads = runs.map((r) => r.run?.load).filter((l): l is string => l !== undefined);
  if (loads.length === 0) return [];
  if (new Set(loads).size === 1) return [`Load: ${loads[0]}`];
  return runs.map((r) => `Load (${runLabel(r, runs)}): ${r.run?.load ?? "not recorded"}`);
}

export function renderCompare(
  runs: readonly Result[],
  options: { color: boolean; width?: number },
): string {
  const paint = painter(options.color);
  const first = runs[0];
  const out: string[] = [
    paint.bold(`mailvolley compare → ${first.target}`) +
      `  (${fmt(first.sessions)} sessions, ${fmt(first.messages.attempted)} messages each)`,
    ...compareVerdictLines(runs).flatMap((l) =>
      wrapLines([l.text], options.width).map((text) => (l.alarm ? paint.red(text) : text)),
    ),
    ...loadLines(runs),
    "",
    ...headline(runs),
    "",
    figuresTable(runs),
    "",
    latencyTable(runs),
    "",
    ...deliveryLines(runs, paint),
    `Ratios are ${ratioNames(runs).join(" and ")}: ×0.10 means a tenth, ×10 ten times as much; "4 vs 2,000" where a ratio would not read as a number.`,
  ];
  return `${out.join("\n")}\n`;
}

/** Each run's delivery section (--receive), as `run` prints it, under the run's name. */
function deliveryLines(runs: readonly Result[], paint: ReturnType<typeof painter>): string[] {
  return runs.flatMap((r) => {
    const section = deliverySection(r, paint);
    return section === "" ? [] : [paint.bold(`${runLabel(r, runs)} run`), section, ""];
  });
}

/** A ratio column of a compare: its name, and the two runs it divides (other / base). */
export interface RatioColumn {
  name: string;
  base: Result;
  other: Result;
}

/**
 * The ratio columns every compare report shows (terminal and HTML): reuse / per-message, and
 * with TLS (compare --starttls) resumed / full too.
 */
export function ratioColumns(runs: readonly Result[]): RatioColumn[] {
  const { base, reuse, resumed } = pair(runs);
  return resumed
    ? [
        { name: "resumed / full", base, other: resumed },
        { name: "reuse / per-message full", base, other: reuse },
      ]
    : [{ name: "reuse / per-message", base, other: reuse }];
}

function ratioNames(runs: readonly Result[]): string[] {
  return ratioColumns(runs).map((c) => c.name);
}

/** The runs' figures side by side, each with its ratios (ratioColumns). */
function figuresTable(runs: readonly Result[]): string {
  const head = ["", ...runs.map((r) => runLabel(r, runs)), ...ratioNames(runs)];
  const rows: string[][] = [head];
  const ratios = (pick: (r: Result) => number) =>
    ratioColumns(runs).map((c) => ratio(pick(c.base), pick(c.other)));
  const line = (label: string, pick: (r: Result) => number, show: (v: number) => string) => {
    rows.push([label, ...runs.map((r) => show(pick(r))), ...ratios(pick)]);
  };
  const names = [...COMPARE_ROWS, ...(runs.some((r) => r.tls) ? COMPARE_TLS_ROWS : [])];
  for (const figure of names.map((name): Figure => FIGURES[name])) {
    const values = runs.map((r) => figureValue(figure, r));
    rows.push([
      figure.short ?? figure.label,
      ...values.map((v) => (v === null ? "n/a" : figureText(figure, v))),
      // A ratio needs both sides: none where a run lacks the figure.
      ...(values.every((v) => v !== null)
        ? ratios((r) => figureValue(figure, r) ?? 0)
        : ratioNames(runs).map(() => "")),
    ]);
  }
  const classes = ERROR_CLASSES.filter((c) => runs.some((r) => (r.errorClasses?.[c] ?? 0) > 0));
  if (classes.length > 0) rows.push(head.map((_, i) => (i === 0 ? "Errors" : "")));
  for (const c of classes) {
    line(
      `  ${ERROR_CLASS_LABELS[c]}`,
      (r) => r.errorClasses?.[c] ?? 0,
      (v) => fmt(v),
    );
  }
  const warnings = warningRows(runs);
  if (warnings.length > 0) rows.push(head.map((_, i) => (i === 0 ? "Warnings" : "")));
  for (const [label, pick] of warnings) line(label, pick, (v) => fmt(v));
  return table(
    rows,
    head.map((_, i) => i > 0),
  );
}

/**
 * The accepted quirks by code, each with how to read a run's count of it (report/terminal.ts
 * prints each code with its meaning and first reply).
 */
function warningRows(runs: readonly Result[]): [string, (r: Result) => number][] {
  const codes = [...new Set(runs.flatMap((r) => (r.warnings ?? []).map((w) => w.code)))];
  return codes.map((code) => [
    `  ${printable(code)}`,
    (r) => r.warnings?.find((w) => w.code === code)?.count ?? 0,
  ]);
}

/** p50 and p99 of each phase in every run, with the ratios reuse / per-message (full). */
function latencyTable(runs: readonly Result[]): string {
  const { base, reuse, resumed } = pair(runs);
  const lat: string[][] = [
    [
      "Latency (ms)",
      ...runs.map((r) => `${runLabel(r, runs)} p50 / p99`),
      // With three runs, say which two the ratio compares.
      resumed ? "p50 reuse / full" : "p50 ratio",
      resumed ? "p99 reuse / full" : "p99 ratio",
    ],
  ];
  const repeats = runs.filter(quitRepeatsData).map((r) => runLabel(r, runs));
  for (const [name, key] of PHASE_ROWS) {
    if (runs.every((r) => r.latency[key].count === 0)) continue;
    lat.push([
      `  ${name}${name === "quit" && repeats.length > 0 ? " *" : ""}`,
      ...runs.map(
        (r) => `${latencyCell(r.latency[key], "p50")} / ${latencyCell(r.latency[key], "p99")}`,
      ),
      ratio(base.latency[key].p50, reuse.latency[key].p50),
      ratio(base.latency[key].p99, reuse.latency[key].p99),
    ]);
  }
  const text = table(
    lat,
    lat[0].map((_, i) => i > 0),
  );
  if (repeats.length === 0) return text;
  return `${text}\n  (${QUIT_REPEATS_DATA_NOTE}; in the ${repeats.join(" and ")} run)`;
}
