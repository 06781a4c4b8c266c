/**
 * The terminal summary: a pure function of a Result. The caller decides where it goes and
 * whether colour is on (only on a TTY).
 */

import { sinkAgrees } from "../result/accounting.js";
import type { LatencySummary, Result } from "../result/result.js";
import { printable } from "../stats/printable.js";
import { accountingLine, endedEarlyLine, stoppedLine, unconfirmedLine } from "./accounting.js";
import { deliverySection } from "./delivery.js";
import {
  columnText,
  columnWords,
  ERROR_COLUMNS,
  isTextColumn,
  LATENCY_COLUMNS,
  STATISTICS_COLUMNS,
} from "./figure-columns.js";
import { figureCells, TERMINAL_LINES } from "./figure-table.js";
import {
  classLabel,
  durationText,
  errorClassRows,
  firstSeenText,
  fmt,
  kneeText,
  PHASE_ROWS,
  QUIT_REPEATS_DATA_NOTE,
  quitRepeatsData,
  shardText,
  statisticsRows,
  thresholdActual,
} from "./figures.js";
import {
  ceilingLine,
  deliveryAlarm,
  latenessLine,
  rateVerdictLines,
  selfTestRefusals,
  sinkClassesText,
  THREAD_COLUMNS,
  threadRows,
  verdictLines,
  wrapLines,
} from "./verdict.js";

export { fmt } from "./figures.js";

export interface TerminalOptions {
  color: boolean;
  /** The terminal's columns: the verdict wraps to them. Absent (not a terminal): no wrapping. */
  width?: number;
}

export type Paint = ReturnType<typeof painter>;

export function renderSummary(result: Result, options: TerminalOptions): string {
  const paint = painter(options.color);
  const out: string[] = [
    paint.bold(`mailvolley ${result.mode} → ${result.target}`) +
      `  (${[`${fmt(result.sessions)} sessions`, `run ${result.runId}`, shardText(result)].filter(Boolean).join(", ")})`,
    ...verdictLine(result, paint, options.width),
    "",
    ...overview(result, paint),
  ];
  const sections = [
    deliverySection(result, paint),
    statisticsTable(result),
    latencyTable(result),
    generatorTable(result),
    errorClassLine(result, paint),
    errorTable(result),
    warningLines(result, paint),
    thresholdLines(result, paint),
    sinkLine(result, paint),
  ];
  for (const section of sections) if (section) out.push("", section);
  return `${out.join("\n")}\n`;
}

function overview(result: Result, paint: Paint): string[] {
  const m = result.messages;
  const plateau = result.throughput.plateau;
  return [
    ...(result.run ? [row("Load", [result.run.load])] : []),
    row("Time taken", [`${result.elapsedSeconds.toFixed(3)} s (first connect to last reply)`]),
    figureLine(result, "Messages", paint),
    ...accountingRows(result, paint),
    row("Throughput", [
      `${paint.bold(`${fmt(result.throughput.messagesPerSecond, 1)} messages/s`)} (whole-run mean)`,
      plateau
        ? `plateau ${fmt(plateau.messagesPerSecond, 1)}/s over ${fmt(plateau.intervals)} intervals`
        : "plateau n/a (fewer than 3 steady intervals)",
    ]),
    ...(kneeText(result.knee) ? [row("Knee", [kneeText(result.knee) ?? ""])] : []),
    figureLine(result, "Connections", paint),
    ...tlsRows(result),
    figureLine(result, "Recipients", paint),
    ...(m.dropped > 0
      ? [row("Dropped", [paint.red(`${fmt(m.dropped)} arrivals no session could start in time`)])]
      : []),
    ...(result.sources ?? []).map((src) =>
      row("Source", [
        `${src.kind} for class ${src.className}: ${fmt(src.count)} messages, ${fmt(src.totalBytes)} octets`,
        ...(src.longLines > 0 ? [paint.yellow(`${fmt(src.longLines)} lines over 998 octets`)] : []),
      ]),
    ),
  ];
}

/** One of the summary's lines of counts (figure-table.ts TERMINAL_LINES), painted by tone. */
function figureLine(
  result: Result,
  label: "Messages" | "Connections" | "Recipients",
  paint: Paint,
) {
  return row(label, figureCells(result, TERMINAL_LINES[label], paint));
}

/** Where every message asked for went, and why a load ended before it was done. */
function accountingRows(result: Result, paint: Paint): string[] {
  const line = accountingLine(result);
  const early = endedEarlyLine(result);
  const stopped = stoppedLine(result);
  const unconfirmed = unconfirmedLine(result);
  return [
    ...(line ? [row("Accounting", [line])] : []),
    ...(early ? [row("Ended early", [paint.red(early)])] : []),
    ...(stopped ? [row("Stopped", [paint.yellow(stopped)])] : []),
    ...(unconfirmed ? [row("Unconfirmed", [paint.yellow(unconfirmed)])] : []),
  ];
}

/**
 * Full and resumed handshakes with each kind's median handshake time, then the versions and
 * ciphers seen (with counts when more than one).
 */
function tlsRows(result: Result): string[] {
  const tls = result.tls;
  if (!tls) return [];
  const kind = (name: string, count: number, ms: { p50: number }) =>
    count > 0 ? `${name} ${fmt(count)} (p50 ${fmt(ms.p50, 3)} ms)` : `${name} 0`;
  const seen = tls.seen.map((s) =>
    tls.seen.length > 1 ? `${s.version} ${s.cipher} ×${fmt(s.count)}` : `${s.version} ${s.cipher}`,
  );
  return [
    row("TLS", [kind("full", tls.full, tls.fullMs), kind("resumed", tls.resumed, tls.resumedMs)]),
    row("TLS seen", seen),
  ];
}

/**
 * Mail lost through a gateway (red), then who set the rate, right under the title: red when
 * the generator did, yellow when a self-test's sink refused mail.
 */
function verdictLine(result: Result, paint: Paint, width: number | undefined): string[] {
  const limitedBy = result.generator?.limitedBy;
  // A self-test's generator limit is its answer (the ceiling), not a warning.
  const ceiling = ceilingLine(result) !== null;
  const colour =
    selfTestRefusals(result) !== null
      ? paint.yellow
      : limitedBy === "generator" && !ceiling
        ? paint.red
        : limitedBy === "target" || ceiling
          ? paint.green
          : paint.yellow;
  const alarm = deliveryAlarm(result);
  const alarmLines = alarm ? wrapLines(verdictLines(result).slice(0, 1), width) : [];
  const rate = wrapLines(rateVerdictLines(result), width);
  return [...alarmLines.map((line) => paint.red(line)), ...rate.map((line) => colour(line))];
}

/** The generator's own load per thread, and in the open model its start lateness. */
function generatorTable(result: Result): string {
  const g = result.generator;
  if (!g || g.threads.length === 0) return "";
  const rows = [THREAD_COLUMNS, ...threadRows(g)];
  const lines = [
    table(
      rows,
      THREAD_COLUMNS.map((_, i) => i > 0),
    ),
  ];
  const lateness = latenessLine(g);
  if (lateness) lines.push(`Open model: ${lateness}`);
  return lines.join("\n");
}

/** JMeter's dashboard statistics: one row per message class and one for the whole run. */
function statisticsTable(result: Result): string {
  if (!result.allClasses || result.allClasses.attempted === 0) return "";
  const apdex = `Apdex ${durationText(result.apdex.satisfiedMs)}`;
  const head = STATISTICS_COLUMNS.map((c) => (c.key === "apdex" ? apdex : c.heading));
  const rows: string[][] = [["Statistics", ...head]];
  for (const c of statisticsRows(result)) {
    rows.push([`  ${c.name}`, ...STATISTICS_COLUMNS.map((column) => columnText(column, c))]);
  }
  const note =
    "  (transaction ms of accepted messages; error % = (rejected + failed + unconfirmed) / count)";
  return `${table(rows, [false, ...STATISTICS_COLUMNS.map(() => true)])}\n${note}`;
}

function latencyTable(result: Result): string {
  if (result.latency.connectMs.count === 0 && result.latency.transactionMs.count === 0) return "";
  const rows: string[][] = [["Latency (ms)", ...LATENCY_COLUMNS.map((c) => c.heading)]];
  const quitNote = quitRepeatsData(result);
  for (const [name, key] of PHASE_ROWS) {
    const l: LatencySummary = result.latency[key];
    if (l.count === 0) continue;
    rows.push([
      `  ${name}${name === "quit" && quitNote ? " *" : ""}`,
      ...LATENCY_COLUMNS.map((column) => columnText(column, l)),
    ]);
  }
  const text = table(rows, [false, ...LATENCY_COLUMNS.map(() => true)]);
  return quitNote ? `${text}\n  (${QUIT_REPEATS_DATA_NOTE})` : text;
}

function errorClassLine(result: Result, paint: Paint): string {
  const classes = errorClassRows(result);
  if (classes.length === 0) return "";
  const lines = [
    row(
      "Error classes",
      classes.map(([, label, count]) => paint.red(`${label} ${fmt(count)}`)),
    ),
  ];
  (result.firstSeen ?? []).forEach((f, i) => {
    lines.push(row(i === 0 ? "First seen" : "", [firstSeenText(f, classLabel(result, f.class))]));
  });
  return lines.join("\n");
}

function errorTable(result: Result): string {
  if (result.errors.length === 0) return "";
  const rows: string[][] = [["Errors", ...ERROR_COLUMNS.map((c) => c.heading)]];
  for (const e of result.errors) {
    const cells = ERROR_COLUMNS.map((c) => {
      if (!isTextColumn(c)) return columnText(c, e);
      const words = printable(columnWords(c, e)) || (c.empty ?? "");
      return c.long ? truncate(words, 60) : words;
    });
    rows.push(["", ...cells]);
  }
  return table(rows, [false, ...ERROR_COLUMNS.map((c) => !isTextColumn(c))]);
}

/** One line per warning: its code and count, what it means, and the first reply (escaped). */
function warningLines(result: Result, paint: Paint): string {
  return (result.warnings ?? [])
    .map((w, i) =>
      row(i === 0 ? "Warnings" : "", [
        `${paint.yellow(`${printable(w.code)} ×${fmt(w.count)}`)}: ${printable(w.description)}; first reply: ${printable(w.firstReply)}`,
      ]),
    )
    .join("\n");
}

function thresholdLines(result: Result, paint: Paint): string {
  if (!result.thresholds || result.thresholds.length === 0) return "";
  const lines = ["Thresholds"];
  for (const t of result.thresholds) {
    const actual = t.actual === null ? "no data" : `actual ${thresholdActual(t)}`;
    lines.push(
      t.passed
        ? `  ${paint.green("pass")}  ${t.expression}  (${actual})`
        : `  ${paint.red("FAIL")}  ${t.expression}  (${actual})`,
    );
  }
  return lines.join("\n");
}

function sinkLine(result: Result, paint: Paint): string {
  if (!result.sink) return "";
  const accepted = result.messages.accepted;
  const same = result.sink.messagesAccepted === accepted;
  const unconfirmed = result.messages.unconfirmed ?? 0;
  // Above the client's count by no more than its unconfirmed: the "Unconfirmed" line says how many.
  const verdict = same
    ? paint.green(`equals the client's ${fmt(accepted)} accepted`)
    : sinkAgrees(result)
      ? paint.yellow(
          `within the client's ${fmt(accepted)} accepted + ${fmt(unconfirmed)} unconfirmed`,
        )
      : paint.red(`DIFFERS from the client's ${fmt(accepted)} accepted`);
  const classes = sinkClassesText(result);
  return row("Sink count", [
    `accepted ${fmt(result.sink.messagesAccepted)}`,
    `sessions ${fmt(result.sink.sessions)}`,
    verdict,
    ...(classes ? [`per class: ${classes}`] : []),
  ]);
}

/** Columns padded to their widest cell; `right` marks right-aligned (numeric) columns. */
export function table(rows: string[][], right: boolean[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => visible(r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => {
          const pad = " ".repeat(Math.max(0, widths[i] - visible(cell).length));
          return right[i] ? pad + cell : cell + pad;
        })
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** A cell without its colour codes, for measuring. */
function visible(cell: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC
  return cell.replace(/\u001b\[\d+m/g, "");
}

export function row(label: string, cells: string[]): string {
  return `${label.padEnd(14)}${cells.join("   ")}`;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const _id = (s: string) => s;

export function painter(color: boolean) {
  const wrap = (code: number) => (s: string) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { bold: wrap(1), green: wrap(32), yellow: wrap(33), red: wrap(31), dim: wrap(2) };
}
