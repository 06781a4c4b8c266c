/**
 * Pass/fail criteria on a run's Result (`--threshold`), in the spirit of k6's thresholds:
 *
 *   threshold = metric [ "{" key ":" name "}" ] op number [unit]
 *   metric    = p50 | p90 | p95 | p99 | mean | min | max     latency, unit ms (default), s or us
 *             | error_rate                                  unit % (a bare number is a fraction)
 *             | rate | plateau_rate                         messages/s, unit /s optional
 *             | apdex                                       0…1
 *             | errors                                      error occurrences
 *             | connections_per_message
 *   key       = phase (latency: transaction, connect, banner, ehlo, tls, auth, envelope, data,
 *                      quit, session)
 *             | class (a message class, or "all")
 *             | type  (errors and error_rate: refused, rateLimited, temporary, rejected,
 *                      transport, unsent)
 *   op        = < | <= | > | >= | ==
 *
 * Examples: `p99<50ms`, `p99{phase:envelope}<5ms`, `error_rate<0.1%`, `rate>=5000/s`,
 * `apdex{class:bulk}>=0.9`, `errors{type:refused}==0`.
 */
import { ERROR_CLASSES, type ErrorClass } from "../stats/errors.js";
import type { ClassResult, LatencySummary, Result, ThresholdOutcome } from "../stats/result.js";
import { ConfigError } from "./parse.js";

const OPTION = "--threshold";

const LATENCY_METRICS = ["p50", "p90", "p95", "p99", "mean", "min", "max"] as const;
const METRICS = [
  ...LATENCY_METRICS,
  "error_rate",
  "rate",
  "plateau_rate",
  "apdex",
  "errors",
  "connections_per_message",
] as const;
type Metric = (typeof METRICS)[number];
type LatencyMetric = (typeof LATENCY_METRICS)[number];

const PHASES = [
  "transaction",
  "connect",
  "banner",
  "ehlo",
  "tls",
  "auth",
  "envelope",
  "data",
  "quit",
  "session",
];
const OPS = ["<=", ">=", "==", "<", ">"] as const;
type Op = (typeof OPS)[number];

export interface Threshold {
  readonly expression: string;
  readonly metric: Metric;
  readonly selector: { readonly key: "phase" | "class" | "type"; readonly name: string } | null;
  readonly op: Op;
  /** In the metric's unit: ms, %, messages/s, or a plain number. */
  readonly value: number;
}

const SYNTAX = /^([a-z_0-9]+)(?:\{\s*([a-z]+)\s*:\s*([^}]+?)\s*\})?\s*(<=|>=|==|<|>)\s*(.+)$/;

export function parseThreshold(text: string): Threshold {
  const expression = text.trim();
  const fail = (why: string): never => {
    throw new ConfigError(OPTION, `"${expression}": ${why}; e.g. 'p99<50ms', 'error_rate<0.1%'`);
  };
  const m = SYNTAX.exec(expression);
  if (!m) return fail("expected METRIC[{key:name}] OP VALUE");
  const [, metricText, key, name, opText, valueText] = m;
  if (!(METRICS as readonly string[]).includes(metricText)) {
    return fail(`unknown metric "${metricText}" (one of ${METRICS.join(", ")})`);
  }
  const metric = metricText as Metric;
  let selector: Threshold["selector"] = null;
  if (key !== undefined) {
    const allowed = selectorKeys(metric);
    if (!allowed.includes(key)) {
      return fail(`${metric} takes ${allowed.length ? allowed.join(" or ") : "no selector"}`);
    }
    if (key === "phase" && !PHASES.includes(name)) {
      return fail(`unknown phase "${name}" (one of ${PHASES.join(", ")})`);
    }
    if (key === "type" && !(ERROR_CLASSES as readonly string[]).includes(name)) {
      return fail(`unknown error type "${name}" (one of ${ERROR_CLASSES.join(", ")})`);
    }
    selector = { key: key as "phase" | "class" | "type", name };
  }
  const value = parseValue(metric, valueText.trim(), fail);
  return Object.freeze({ expression, metric, selector, op: opText as Op, value });
}

function selectorKeys(metric: Metric): string[] {
  if ((LATENCY_METRICS as readonly string[]).includes(metric)) return ["phase", "class"];
  if (metric === "error_rate") return ["class", "type"];
  if (metric === "errors") return ["type"];
  if (metric === "rate" || metric === "apdex") return ["class"];
  return [];
}

function parseValue(metric: Metric, text: string, fail: (why: string) => never): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|us|µs|s|%|\/s)?$/.exec(text);
  if (!m) return fail(`"${text}" is not a number with an optional unit`);
  const n = Number(m[1]);
  const unit = m[2] ?? "";
  if ((LATENCY_METRICS as readonly string[]).includes(metric)) {
    if (unit === "" || unit === "ms") return n;
    if (unit === "s") return n * 1000;
    if (unit === "us" || unit === "µs") return n / 1000;
    return fail(`${metric} is a latency: give ms, s or us`);
  }
  if (metric === "error_rate") {
    if (unit === "%") return n;
    if (unit === "") return n * 100;
    return fail("error_rate is a share: give a percentage (0.1%) or a fraction (0.001)");
  }
  if (metric === "rate" || metric === "plateau_rate") {
    if (unit === "" || unit === "/s") return n;
    return fail(`${metric} is in messages per second: give e.g. 5000/s`);
  }
  if (unit !== "") return fail(`${metric} is a plain number: give no unit`);
  return n;
}

export function parseThresholds(raw: unknown): Threshold[] {
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((text) => parseThreshold(String(text)));
}

/** The measured value a threshold compares, in its unit; null when the run has no such data. */
export function measure(t: Threshold, result: Result): number | null {
  const name = t.selector?.name;
  const cls = (): ClassResult | undefined =>
    name === undefined || name === "all"
      ? result.allClasses
      : result.classes.find((c) => c.name === name);
  if ((LATENCY_METRICS as readonly string[]).includes(t.metric)) {
    let summary: LatencySummary | undefined;
    if (t.selector?.key === "class") summary = cls()?.transactionMs;
    else summary = result.latency[`${name ?? "transaction"}Ms` as keyof Result["latency"]];
    if (!summary || summary.count === 0) return null;
    return summary[t.metric as LatencyMetric];
  }
  switch (t.metric) {
    case "error_rate": {
      if (t.selector?.key === "type") {
        const attempted = result.messages.attempted;
        const n = result.errorClasses[name as ErrorClass];
        return attempted > 0 ? (n / attempted) * 100 : null;
      }
      const c = cls();
      return c && c.attempted > 0 ? c.errorPercent : null;
    }
    case "rate":
      return cls()?.messagesPerSecond ?? null;
    case "plateau_rate":
      return result.throughput.plateau?.messagesPerSecond ?? null;
    case "apdex":
      return cls()?.apdex ?? null;
    case "errors":
      return name === undefined
        ? result.errors.reduce((sum, e) => sum + e.count, 0)
        : result.errorClasses[name as ErrorClass];
    case "connections_per_message":
      return result.messages.attempted > 0 ? result.connections.perMessage : null;
  }
  return null;
}

export function holds(op: Op, actual: number, value: number): boolean {
  switch (op) {
    case "<":
      return actual < value;
    case "<=":
      return actual <= value;
    case ">":
      return actual > value;
    case ">=":
      return actual >= value;
    case "==":
      return actual === value;
  }
}

/** Every threshold against the Result. A threshold without data (no samples) fails. */
export function evaluateThresholds(
  thresholds: readonly Threshold[],
  result: Result,
): ThresholdOutcome[] {
  return thresholds.map((t) => {
    const actual = measure(t, result);
    const rounded = actual === null ? null : Math.round(actual * 1000) / 1000;
    return {
      expression: t.expression,
      actual: rounded,
      passed: actual !== null && holds(t.op, actual, t.value),
    };
  });
}

/** Running totals a live check can see (the run's progress reports). */
export interface LiveTotals {
  accepted: number;
  rejected: number;
  failed: number;
  /** Transaction latency of the run so far (absent: latency thresholds wait for the end). */
  transactionMs?: LatencySummary;
}

/** Latency thresholds are judged live only once this many messages were accepted. */
export const LIVE_MIN_SAMPLES = 100;

/**
 * --abort-on-fail while the run goes, as k6 does: the thresholds running totals can decide are
 * checked once a second against the run so far: `error_rate` without a selector, and the
 * transaction latency metrics (no selector or `{phase:transaction}`) once LIVE_MIN_SAMPLES
 * messages were accepted. Rate, Apdex, class and other phase thresholds are checked at the end.
 */
export function breachedLive(thresholds: readonly Threshold[], totals: LiveTotals): string[] {
  const done = totals.accepted + totals.rejected + totals.failed;
  if (done === 0) return [];
  const errorPercent = ((totals.rejected + totals.failed) / done) * 100;
  const out: string[] = [];
  for (const t of thresholds) {
    if (t.metric === "error_rate" && t.selector === null) {
      if (!holds(t.op, errorPercent, t.value)) {
        out.push(`${t.expression} (actual ${errorPercent.toFixed(3)} %)`);
      }
      continue;
    }
    const latency = (LATENCY_METRICS as readonly string[]).includes(t.metric);
    const transaction =
      t.selector === null || (t.selector.key === "phase" && t.selector.name === "transaction");
    const summary = totals.transactionMs;
    if (!latency || !transaction || !summary || summary.count < LIVE_MIN_SAMPLES) continue;
    const actual = summary[t.metric as LatencyMetric];
    if (!holds(t.op, actual, t.value)) out.push(`${t.expression} (actual ${actual} ms so far)`);
  }
  return out;
}
