/**
 * Judging `--threshold` criteria against a run's Result, in the spirit of k6's thresholds: what
 * each metric measures, and whether it held. config/thresholds.ts turns the text into a
 * Threshold (its grammar is documented there and in docs/reference.md).
 */

import { settledCount, unacceptedCount } from "../stats/counts.js";
import { ERROR_CLASSES, type ErrorClass } from "../stats/errors.js";
import {
  DELIVERY_METRICS,
  deliveryUnit,
  isDeliveryMetric,
  measureDelivery,
} from "./delivery-metrics.js";
import {
  type ClassResult,
  type Latency,
  type LatencySummary,
  latencyField,
  type Result,
  type ThresholdOutcome,
} from "./result.js";

export const LATENCY_METRICS = ["p50", "p90", "p95", "p99", "mean", "min", "max"] as const;
export const METRICS = [
  ...LATENCY_METRICS,
  "error_rate",
  "rate",
  "plateau_rate",
  "apdex",
  "errors",
  "connections_per_message",
  "dropped",
  ...DELIVERY_METRICS,
] as const;
export type Metric = (typeof METRICS)[number];
export type LatencyMetric = (typeof LATENCY_METRICS)[number];

export const OPS = ["<=", ">=", "==", "<", ">"] as const;
export type Op = (typeof OPS)[number];

/** Which figure a metric is taken of: a latency, a message class, or an error class. */
export type ThresholdSelector =
  | { readonly key: "phase"; readonly name: Latency }
  | { readonly key: "class"; readonly name: string }
  | { readonly key: "type"; readonly name: ErrorClass };

export interface Threshold {
  readonly expression: string;
  readonly metric: Metric;
  readonly selector: ThresholdSelector | null;
  readonly op: Op;
  /** In the metric's unit: ms, %, messages/s, or a plain number. */
  readonly value: number;
}

export function latencyMetric(metric: Metric): LatencyMetric | undefined {
  return LATENCY_METRICS.find((m) => m === metric);
}

/** An error class by name; undefined when `name` is none. */
export function errorClassNamed(name: string): ErrorClass | undefined {
  return ERROR_CLASSES.find((c) => c === name);
}

/** The measured value a threshold compares, in its unit; null when the run has no such data. */
export function measure(t: Threshold, result: Result): number | null {
  const selector = t.selector;
  const cls = (): ClassResult | undefined =>
    selector?.key !== "class" || selector.name === "all"
      ? result.allClasses
      : result.classes.find((c) => c.name === selector.name);
  const latency = latencyMetric(t.metric);
  if (latency) {
    const summary: LatencySummary | undefined =
      selector?.key === "class"
        ? cls()?.transactionMs
        : result.latency[latencyField(selector?.key === "phase" ? selector.name : "transaction")];
    if (!summary || summary.count === 0) return null;
    return summary[latency];
  }
  if (isDeliveryMetric(t.metric)) {
    return measureDelivery(t.metric, selector?.key === "class" ? selector.name : null, result);
  }
  const errorClass = selector?.key === "type" ? selector.name : undefined;
  switch (t.metric) {
    case "error_rate": {
      if (errorClass) {
        const attempted = result.messages.attempted;
        return attempted > 0 ? (result.errorClasses[errorClass] / attempted) * 100 : null;
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
      return errorClass === undefined
        ? result.errors.reduce((sum, e) => sum + e.count, 0)
        : result.errorClasses[errorClass];
    case "connections_per_message":
      return result.messages.attempted > 0 ? result.connections.perMessage : null;
    case "dropped":
      return result.messages.dropped ?? 0;
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

/** The unit a metric's value and actual are in: "ms", "%", "/s", or "" for a plain number. */
export function metricUnit(metric: Metric): string {
  if (isDeliveryMetric(metric)) return deliveryUnit(metric);
  if (latencyMetric(metric)) return "ms";
  if (metric === "error_rate") return "%";
  if (metric === "rate" || metric === "plateau_rate") return "/s";
  return "";
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
      unit: metricUnit(t.metric),
      passed: actual !== null && holds(t.op, actual, t.value),
    };
  });
}

/** Running totals a live check can see (the run's progress reports). */
export interface LiveTotals {
  accepted: number;
  rejected: number;
  failed: number;
  unconfirmed: number;
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
  const done = settledCount(totals);
  if (done === 0) return [];
  // As the statistics table's error %: every message the server did not confirm it took.
  const errorPercent = (unacceptedCount(totals) / done) * 100;
  const out: string[] = [];
  for (const t of thresholds) {
    if (t.metric === "error_rate" && t.selector === null) {
      if (!holds(t.op, errorPercent, t.value)) {
        out.push(`${t.expression} (actual ${errorPercent.toFixed(3)} %)`);
      }
      continue;
    }
    const latency = latencyMetric(t.metric);
    const transaction =
      t.selector === null || (t.selector.key === "phase" && t.selector.name === "transaction");
    const summary = totals.transactionMs;
    if (!latency || !transaction || !summary || summary.count < LIVE_MIN_SAMPLES) continue;
    const actual = summary[latency];
    if (!holds(t.op, actual, t.value)) out.push(`${t.expression} (actual ${actual} ms so far)`);
  }
  return out;
}
