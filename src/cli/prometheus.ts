/**
 * --out prometheus=FILE: the run's running totals in Prometheus' text exposition format (0.0.4),
 * rewritten whole (temporary file + rename) after every interval and at the end, as node_exporter's
 * textfile collector expects a `*.prom` file to be: a scrape never sees half a file, and a killed
 * run leaves the totals of its last complete interval. At the end the figures are the Result's.
 */
import { renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Result, SeriesPointResult } from "../result/result.js";
import { type ProgressCounts, zeroProgressCounts } from "../run/progress.js";
import { ERROR_CLASSES, type ErrorClass } from "../stats/errors.js";

/**
 * What the file says of one run, named by its mode (compare writes every run into one file;
 * compare --starttls names its two per-message runs "per-message full" and "per-message
 * resumed"): the running totals (the
 * `sent` outcome is `attempted`), and more.
 */
interface Totals extends ProgressCounts {
  errors: Record<ErrorClass, number>;
  /** The last interval's transaction latency, ms (null: none accepted in it). */
  p50Ms: number | null;
  p99Ms: number | null;
  /** At the end only: elapsed seconds and the generator verdict. */
  elapsedSeconds: number | null;
  limitedBy: string | null;
}

const METRICS: [name: string, type: "counter" | "gauge", help: string][] = [
  [
    "mailvolley_messages_total",
    "counter",
    "Messages by outcome (sent: started; dropped: open-model arrivals never started).",
  ],
  ["mailvolley_connections_opened_total", "counter", "Connections attempted."],
  ["mailvolley_open_sessions", "gauge", "Sessions open at the end of the last interval."],
  ["mailvolley_errors_total", "counter", "Error occurrences by class."],
  [
    "mailvolley_interval_transaction_latency_ms",
    "gauge",
    "Transaction latency of the last interval's accepted messages.",
  ],
  [
    "mailvolley_elapsed_seconds",
    "gauge",
    "From the first connect to the last reply; at the end of the run only.",
  ],
  [
    "mailvolley_limited_by",
    "gauge",
    "1 for who set the rate (generator, target, undetermined); at the end only.",
  ],
];

function empty(): Totals {
  const errors = Object.fromEntries(ERROR_CLASSES.map((c) => [c, 0])) as Record<ErrorClass, number>;
  return {
    ...zeroProgressCounts(),
    errors,
    p50Ms: null,
    p99Ms: null,
    elapsedSeconds: null,
    limitedBy: null,
  };
}

export class PrometheusFile {
  private readonly modes = new Map<string, Totals>();

  constructor(private readonly path: string) {}

  /** One complete interval of the run named `mode`. */
  add(mode: string, p: Omit<SeriesPointResult, "histogram" | "generator">): void {
    const t = this.totals(mode);
    t.attempted += p.sent;
    t.accepted += p.accepted;
    t.rejected += p.rejected;
    t.failed += p.failed;
    t.unconfirmed += p.unconfirmed ?? 0;
    t.dropped += p.dropped ?? 0;
    t.connectionsOpened += p.connectionsOpened;
    t.openSessions = p.openSessions;
    for (const c of ERROR_CLASSES) t.errors[c] += p.errors[c];
    t.p50Ms = p.p50Ms;
    t.p99Ms = p.p99Ms;
  }

  /** The run's end: its totals are the Result's; `mode` names the run as add() did. */
  finish(result: Result, mode: string = result.mode): void {
    const t = this.totals(mode);
    const m = result.messages;
    Object.assign(t, {
      attempted: m.attempted,
      accepted: m.accepted,
      rejected: m.rejected,
      failed: m.failed,
      unconfirmed: m.unconfirmed ?? 0,
      dropped: m.dropped,
      connectionsOpened: result.connections.opened,
      errors: { ...result.errorClasses },
      elapsedSeconds: result.elapsedSeconds,
      limitedBy: result.generator?.limitedBy ?? null,
    });
    this.flush();
  }

  /** Rewrites the file whole. */
  flush(): void {
    const tmp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.tmp`);
    writeFileSync(tmp, exposition(this.modes));
    renameSync(tmp, this.path);
  }

  private totals(mode: string): Totals {
    let t = this.modes.get(mode);
    if (!t) {
      t = empty();
      this.modes.set(mode, t);
    }
    return t;
  }
}

/** The text exposition of every mode's totals. */
export function exposition(modes: ReadonlyMap<string, Totals>): string {
  const samples = new Map<string, string[]>(METRICS.map(([name]) => [name, []]));
  const put = (name: string, labels: Record<string, string>, value: number) => {
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}="${v}"`)
      .join(",");
    samples.get(name)?.push(`${name}{${text}} ${value}`);
  };
  for (const [mode, t] of modes) {
    put("mailvolley_messages_total", { mode, outcome: "sent" }, t.attempted);
    for (const outcome of ["accepted", "rejected", "failed", "unconfirmed", "dropped"] as const) {
      put("mailvolley_messages_total", { mode, outcome }, t[outcome]);
    }
    put("mailvolley_connections_opened_total", { mode }, t.connectionsOpened);
    put("mailvolley_open_sessions", { mode }, t.openSessions);
    for (const c of ERROR_CLASSES) put("mailvolley_errors_total", { mode, class: c }, t.errors[c]);
    if (t.p50Ms !== null)
      put("mailvolley_interval_transaction_latency_ms", { mode, quantile: "0.5" }, t.p50Ms);
    if (t.p99Ms !== null)
      put("mailvolley_interval_transaction_latency_ms", { mode, quantile: "0.99" }, t.p99Ms);
    if (t.elapsedSeconds !== null) put("mailvolley_elapsed_seconds", { mode }, t.elapsedSeconds);
    if (t.limitedBy !== null) put("mailvolley_limited_by", { mode, verdict: t.limitedBy }, 1);
  }
  const out: string[] = [];
  for (const [name, type, help] of METRICS) {
    const lines = samples.get(name) ?? [];
    if (lines.length === 0) continue;
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...lines);
  }
  return `${out.join("\n")}\n`;
}
