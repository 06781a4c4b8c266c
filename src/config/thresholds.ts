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
 *             | dropped                                     arrivals dropped (open model)
 *             | delivered_ratio | lost | duplicated          through the gateway (--receive):
 *             | e2e_p99 | drain | relay_rate | backlog_max   %, counts, ms, ms, /s, messages
 *   key       = phase (latency: one of LATENCIES in smtp/phases.ts: transaction, connect,
 *                      banner, ehlo, tls, auth, envelope, data, quit, session)
 *             | class (a message class, or "all")
 *             | type  (errors and error_rate: refused, rateLimited, temporary, rejected,
 *                      transport, unsent)
 *   op        = < | <= | > | >= | ==
 *
 * Examples: `p99<50ms`, `p99{phase:envelope}<5ms`, `error_rate<0.1%`, `rate>=5000/s`,
 * `apdex{class:bulk}>=0.9`, `errors{type:refused}==0`, `dropped==0`. k6's spellings are read
 * as these: `p(99)` as p99, `avg` as mean, `med` as p50.
 *
 * Parsing only: result/threshold-verdicts.ts judges a Threshold against a Result.
 */

import {
  errorClassNamed,
  latencyMetric,
  METRICS,
  type Metric,
  OPS,
  type Threshold,
  type ThresholdSelector,
} from "../result/threshold-verdicts.js";
import { isLatency, LATENCIES } from "../smtp/phases.js";
import { ERROR_CLASSES } from "../stats/errors.js";
import { UsageError } from "../usage/usage-error.js";

const OPTION = "--threshold";

const SYNTAX = /^([a-z_0-9]+)(?:\{\s*([a-z]+)\s*:\s*([^}]+?)\s*\})?\s*(<=|>=|==|<|>)\s*(.+)$/;

/** k6's names for the same figures, as k6 users write them. */
const K6_NAMES: readonly [RegExp, string][] = [
  [/^p\((50|90|95|99)\)/, "p$1"],
  [/^avg\b/, "mean"],
  [/^med\b/, "p50"],
];

export function parseThreshold(text: string): Threshold {
  const expression = text.trim();
  const spelled = K6_NAMES.reduce((t, [k6, ours]) => t.replace(k6, ours), expression);
  const fail = (why: string): never => {
    throw new UsageError(OPTION, `"${expression}": ${why}; e.g. 'p99<50ms', 'error_rate<0.1%'`);
  };
  const m = SYNTAX.exec(spelled);
  if (!m) return fail("expected METRIC[{key:name}] OP VALUE");
  const [, metricText, key, name, opText, valueText] = m;
  const metric = METRICS.find((known) => known === metricText);
  if (!metric) return fail(`unknown metric "${metricText}" (one of ${METRICS.join(", ")})`);
  const selector = key === undefined ? null : parseSelector(metric, key, name, fail);
  const op = OPS.find((known) => known === opText) ?? fail(`unknown operator "${opText}"`);
  const value = parseValue(metric, valueText.trim(), fail);
  return Object.freeze({ expression, metric, selector, op, value });
}

/** `{key:name}` after a metric: a key the metric takes, and a name that key knows. */
function parseSelector(
  metric: Metric,
  key: string,
  name: string,
  fail: (why: string) => never,
): ThresholdSelector {
  const allowed = selectorKeys(metric);
  if (!allowed.includes(key)) {
    return fail(`${metric} takes ${allowed.length ? allowed.join(" or ") : "no selector"}`);
  }
  if (key === "phase") {
    if (!isLatency(name)) return fail(`unknown phase "${name}" (one of ${LATENCIES.join(", ")})`);
    return { key, name };
  }
  if (key === "type") {
    const errorClass = errorClassNamed(name);
    if (!errorClass) {
      return fail(`unknown error type "${name}" (one of ${ERROR_CLASSES.join(", ")})`);
    }
    return { key, name: errorClass };
  }
  return { key: "class", name };
}

function selectorKeys(metric: Metric): string[] {
  if (latencyMetric(metric)) return ["phase", "class"];
  if (metric === "error_rate") return ["class", "type"];
  if (metric === "errors") return ["type"];
  if (metric === "rate" || metric === "apdex") return ["class"];
  if (metric === "e2e_p99" || metric === "lost" || metric === "delivered_ratio") return ["class"];
  return [];
}

function parseValue(metric: Metric, text: string, fail: (why: string) => never): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|us|µs|s|%|\/s)?$/.exec(text);
  if (!m) return fail(`"${text}" is not a number with an optional unit`);
  const n = Number(m[1]);
  const unit = m[2] ?? "";
  if (latencyMetric(metric) || metric === "e2e_p99" || metric === "drain") {
    if (unit === "" || unit === "ms") return n;
    if (unit === "s") return n * 1000;
    if (unit === "us" || unit === "µs") return n / 1000;
    return fail(`${metric} is a latency: give ms, s or us`);
  }
  if (metric === "error_rate" || metric === "delivered_ratio") {
    const percent = unit === "%" ? n : unit === "" ? n * 100 : Number.NaN;
    if (Number.isNaN(percent)) {
      return fail(`${metric} is a share: give a percentage (0.1%) or a fraction (0.001)`);
    }
    if (percent > 100) return fail(`${metric} is at most 100% (a fraction at most 1)`);
    return percent;
  }
  if (metric === "rate" || metric === "plateau_rate" || metric === "relay_rate") {
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
