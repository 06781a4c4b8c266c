/**
 * What the reports have in common: the rows they show, in which order, under which label, and
 * how numbers are written. Terminal, HTML and compare all read these, so a figure is labelled
 * and rounded the same everywhere.
 */

import {
  type ClassResult,
  type FirstSeen,
  type Knee,
  LATENCIES,
  type Latency,
  type LatencyField,
  type LatencySummary,
  latencyField,
  type Result,
  type ThresholdOutcome,
} from "../result/result.js";
import { ERROR_CLASS_LABELS, ERROR_CLASSES, type ErrorClass } from "../stats/errors.js";
import { grouped } from "../stats/number-format.js";

/** The latency rows, labelled by name, in report order (smtp/phases.ts). */
export const PHASE_ROWS: readonly (readonly [Latency, LatencyField])[] = LATENCIES.map(
  (latency) => [latency, latencyField(latency)] as const,
);

/**
 * QUIT went in the final dot's write (RFC 2920 §3.1 lets it end a pipelined group) and the
 * server answered both in one read: the quit row then repeats the data row, figure for figure,
 * and QUIT has no time of its own to show. Telling the two replies apart would take a round
 * trip of QUIT's own, the cost per-message mode exists to show without. Reports mark the row.
 */
export function quitRepeatsData(result: Result): boolean {
  const q = result.latency.quitMs;
  const d = result.latency.dataMs;
  if (q.count === 0 || q.count !== d.count) return false;
  return (
    q.min === d.min && q.mean === d.mean && q.p50 === d.p50 && q.p99 === d.p99 && q.max === d.max
  );
}

/** The note under a latency table whose quit row repeats the data row (quitRepeatsData). */
export const QUIT_REPEATS_DATA_NOTE =
  "quit *: QUIT went in the final dot's write and both replies came in one read, so this row repeats data's; QUIT has no time of its own to show (docs/reading-results-verdict.md)";

/** Rows of the statistics table: each class that saw a message, then "all". */
export function statisticsRows(result: Result): ClassResult[] {
  const classes = (result.classes ?? []).filter((c) => c.attempted > 0);
  // A run with one class that is the whole run needs no second row saying the same.
  if (classes.length === 1 && classes[0].attempted === result.allClasses.attempted) {
    return [result.allClasses];
  }
  return [...classes, result.allClasses];
}

/** Error classes with at least one occurrence, in ERROR_CLASSES order. */
export function errorClassRows(result: Result): [ErrorClass, string, number][] {
  const counts = result.errorClasses;
  if (!counts) return [];
  return ERROR_CLASSES.filter((c) => counts[c] > 0).map((c) => [
    c,
    classLabel(result, c),
    counts[c],
  ]);
}

/**
 * An error class's label in this result: `refused` made only of TCP refusals (nothing
 * listening, `run 127.0.0.1:1`) is not "refused by gateway".
 */
export function classLabel(result: Result, cls: ErrorClass): string {
  if (cls !== "refused") return ERROR_CLASS_LABELS[cls];
  const rows = (result.errors ?? []).filter((e) => e.class === "refused");
  const tcp = rows.filter((e) => e.reply === "refused").length;
  if (tcp === 0) return ERROR_CLASS_LABELS.refused;
  return tcp === rows.length
    ? "connection refused (nothing listening)"
    : "refused (by the gateway, or nothing listening)";
}

/** A latency figure, or "-" when the summary has no samples (not 0.000). */
export function latencyCell(
  l: LatencySummary,
  key: Exclude<keyof LatencySummary, "count">,
): string {
  return l.count === 0 ? "-" : ms(l[key] ?? 0);
}

/**
 * Which part of a run spread over machines a Result is, as --shard names it: "shard 1/3 on
 * host-b", "3 shards merged"; "" for a run on one machine.
 */
export function shardText(result: Result): string {
  if (result.shards && result.shards.length > 0) return `${result.shards.length} shards merged`;
  const s = result.shard;
  return s && s.count > 1 ? `shard ${s.index}/${s.count} on ${s.host}` : "";
}

/** Thousands separated by commas, so 50000 reads as 50,000. */
export function fmt(value: number, digits = 0): string {
  return grouped(value, digits, digits);
}

/** Milliseconds with microsecond resolution, as measured. */
export function ms(value: number): string {
  return value.toFixed(3);
}

export function percent(value: number): string {
  return `${value.toFixed(2)} %`;
}

/**
 * A ratio b / a written as "×1.23". When it is not a useful number (one side is 0, or it would
 * show as ×0.00) the two figures themselves: "4 vs 2,000". "=" when both are 0.
 */
export function ratio(a: number, b: number): string {
  if (a === 0 && b === 0) return "=";
  const r = b / a;
  if (a === 0 || b === 0 || r < 0.01) return `${plain(b)} vs ${plain(a)}`;
  return `×${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}`;
}

/** A figure as short as it reads: whole numbers with separators, others to 3 significant digits. */
function plain(value: number): string {
  return Number.isInteger(value) ? fmt(value) : String(Number(value.toPrecision(3)));
}

/** "500ms", "1.5s": an Apdex threshold as it was given. */
export function durationText(msValue: number): string {
  return msValue >= 1000 && msValue % 100 === 0 ? `${msValue / 1000}s` : `${msValue}ms`;
}

/** One Result.firstSeen entry in words: "refused by gateway at 0.412 s on connection 31: …". */
export function firstSeenText(f: FirstSeen, label = ERROR_CLASS_LABELS[f.class]): string {
  return `${label} ${firstSeenWhere(f)}`;
}

/** The same without the class: "at 0.412 s on connection 31: 4 sessions open, …". */
export function firstSeenWhere(f: FirstSeen): string {
  if (f.atSeconds === undefined) {
    return (
      `${firstSeenSpan(f)} in: ` +
      `${fmt(f.openSessions)} sessions open, ${fmt(f.connectionsOpened)} connections and ` +
      `${fmt(f.sent)} messages started by then`
    );
  }
  return (
    `at ${firstSeenOn(f)}: ${sessionsOpen(f.openSessions)}, ` +
    `${fmt(f.sent)} messages started by then`
  );
}

/** "1 session open", "4 sessions open". */
export function sessionsOpen(n: number): string {
  return `${fmt(n)} session${n === 1 ? "" : "s"} open`;
}

/** "0.412 s on connection 31", "1.250 s on connection 1, message 11". */
export function firstSeenOn(f: FirstSeen): string {
  const at = `${(f.atSeconds ?? f.fromSeconds).toFixed(3)} s`;
  if (!f.connection) return at;
  const message = f.message ? `, message ${fmt(f.message)}` : "";
  return `${at} on connection ${fmt(f.connection)}${message}`;
}

/** "3.0–4.0 s", or "0.0 s" when the interval, clamped to the run, is shorter than that shows. */
export function firstSeenSpan(f: FirstSeen): string {
  const from = f.fromSeconds.toFixed(1);
  const to = f.toSeconds.toFixed(1);
  return from === to ? `${from} s` : `${from}–${to} s`;
}

/**
 * Result.knee in words: "success fell to 98.20 % at 12.345 s: sent 1,200.0/s, accepted
 * 1,180.0/s; 100 % before it for 11 s, mean 1,050.3/s". null when success never fell.
 */
export function kneeText(k: Knee | null | undefined): string | null {
  if (!k?.fell) return null;
  const f = k.fell;
  const scheduled =
    f.scheduledPerSecond > f.sentPerSecond ? `, scheduled ${fmt(f.scheduledPerSecond, 1)}/s` : "";
  const at =
    `success fell to ${percent(f.successPercent)} at ${f.atSeconds.toFixed(3)} s: ` +
    `sent ${fmt(f.sentPerSecond, 1)}/s${scheduled}, accepted ${fmt(f.acceptedPerSecond, 1)}/s`;
  const w = k.cleanWindow;
  if (!w) return `${at}; never at 100 % before it`;
  const span = fmt(w.toSeconds - w.fromSeconds, 1);
  return `${at}; 100 % before it for ${span} s, mean ${fmt(w.messagesPerSecond, 1)}/s`;
}

/** A threshold's measured value with its unit: "6.615 ms", "0.500 %", "97.5/s", "3"; "no data". */
export function thresholdActual(t: ThresholdOutcome): string {
  if (t.actual === null) return "no data";
  const unit = t.unit ?? "";
  if (unit === "/s") return `${fmt(t.actual, 1)}/s`;
  const digits = unit === "" && Number.isInteger(t.actual) ? 0 : 3;
  return unit ? `${fmt(t.actual, digits)} ${unit}` : fmt(t.actual, digits);
}

/** Whether a run's client offered TLS resumption (false: --no-tls-resume, or no TLS). */
export function offeredResumption(r: Result): boolean {
  if (!r.tls) return false;
  const given = r.run?.options?.tlsResume;
  return typeof given === "boolean" ? given : r.tls.resumed > 0;
}

/**
 * A run's name in a compare: its mode, and with two per-message runs (compare --starttls) the
 * kind of their handshakes, "per-message full" or "per-message resumed".
 */
export function runLabel(r: Result, runs: readonly Result[]): string {
  if (r.mode !== "per-message") return r.mode;
  if (runs.filter((x) => x.mode === "per-message").length < 2) return r.mode;
  return offeredResumption(r) ? "per-message resumed" : "per-message full";
}
