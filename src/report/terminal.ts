/**
 * The terminal summary: a pure function of a Result. The caller decides where it goes and
 * whether colour is on (only on a TTY).
 */
import type { LatencySummary, Result } from "../stats/result.js";

export interface TerminalOptions {
  color: boolean;
}

const LATENCY_ROWS: [string, keyof Result["latency"]][] = [
  ["transaction", "transactionMs"],
  ["connect", "connectMs"],
  ["banner", "bannerMs"],
  ["ehlo", "ehloMs"],
  ["envelope", "envelopeMs"],
  ["data", "dataMs"],
  ["quit", "quitMs"],
  ["session", "sessionMs"],
];

export function renderSummary(result: Result, options: TerminalOptions): string {
  const paint = painter(options.color);
  const m = result.messages;
  const c = result.connections;
  const out: string[] = [];
  out.push(
    paint.bold(`mailvolley ${result.mode} → ${result.target}`) +
      `  (${result.sessions} sessions, run ${result.runId})`,
  );
  out.push("");
  out.push(
    row("Messages", [
      `attempted ${fmt(m.attempted)}`,
      paint.green(`accepted ${fmt(m.accepted)}`),
      (m.rejected ? paint.yellow : id)(`rejected ${fmt(m.rejected)}`),
      (m.failed ? paint.red : id)(`failed ${fmt(m.failed)}`),
    ]),
  );
  out.push(
    row("Time taken", [`${result.elapsedSeconds.toFixed(3)} s (first connect to last reply)`]),
  );
  out.push(
    row("Throughput", [`${fmt(result.throughput.messagesPerSecond, 1)} messages/s accepted`]),
  );
  out.push(
    row("Connections", [
      `opened ${fmt(c.opened)}`,
      `established ${fmt(c.established)}`,
      `refused ${fmt(c.refused)}`,
      `${fmt(c.perMessage, 4)} per message`,
    ]),
  );
  const r = result.recipients;
  out.push(
    row("Recipients", [
      `attempted ${fmt(r.attempted)}`,
      `accepted ${fmt(r.accepted)}`,
      `rejected ${fmt(r.rejected)}`,
    ]),
  );
  if (result.latency.connectMs.count > 0) {
    out.push("");
    out.push(latencyTable(result));
  }
  if (result.errors.length > 0) {
    out.push("");
    out.push(errorTable(result));
  }
  if (result.sink) {
    out.push("");
    const same = result.sink.messagesAccepted === m.accepted;
    const verdict = same
      ? paint.green(`equals the client's ${fmt(m.accepted)} accepted`)
      : paint.red(`DIFFERS from the client's ${fmt(m.accepted)} accepted`);
    out.push(
      row("Sink count", [
        `accepted ${fmt(result.sink.messagesAccepted)}`,
        `sessions ${fmt(result.sink.sessions)}`,
        verdict,
      ]),
    );
  }
  return `${out.join("\n")}\n`;
}

function latencyTable(result: Result): string {
  const head = ["Latency (ms)", "count", "min", "mean", "p50", "p90", "p99", "max"];
  const rows: string[][] = [head];
  for (const [name, key] of LATENCY_ROWS) {
    const l: LatencySummary = result.latency[key];
    if (l.count === 0) continue;
    rows.push([
      `  ${name}`,
      fmt(l.count),
      ms(l.min),
      ms(l.mean),
      ms(l.p50),
      ms(l.p90),
      ms(l.p99),
      ms(l.max),
    ]);
  }
  return table(rows, [false, true, true, true, true, true, true, true]);
}

function errorTable(result: Result): string {
  const rows: string[][] = [["Errors", "count", "reply", "enhanced", "phase", "text"]];
  for (const e of result.errors) {
    rows.push(["", fmt(e.count), e.reply, e.enhanced || "-", e.phase, truncate(e.text, 60)]);
  }
  return table(rows, [false, true, false, false, false, false]);
}

/** Columns padded to their widest cell; `right` marks right-aligned (numeric) columns. */
export function table(rows: string[][], right: boolean[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (right[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function row(label: string, cells: string[]): string {
  return `${label.padEnd(13)}${cells.join("   ")}`;
}

/** Thousands separated by commas, so 50000 reads as 50,000. */
export function fmt(value: number, digits = 0): string {
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function ms(value: number): string {
  return value.toFixed(3);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const id = (s: string) => s;

function painter(color: boolean) {
  const wrap = (code: number) => (s: string) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { bold: wrap(1), green: wrap(32), yellow: wrap(33), red: wrap(31) };
}
