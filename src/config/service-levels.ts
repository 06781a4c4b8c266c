/**
 * `capacity --qos`: the service levels a step must meet, SPECmail2001's as defaults (a load is
 * sustained when more than 95 % of SMTP connects and data transfers finish within 5 s, more
 * than 95 % of messages are delivered within 60 s, and fewer than 1 % end in an error), each
 * adjustable in the grammar of `--threshold` (config/thresholds.ts):
 *
 *   qos       = level | threshold
 *   level     = ("connect" | "transaction" | "delivery") SP percentile op duration
 *             | ("errors" | "error_rate") op share
 *             | "lost" op count
 *   threshold = any --threshold expression; p95{phase:connect}<5s is the connect level,
 *               p95<5s (transaction, no selector) the transaction level, error_rate<1% the
 *               errors level, lost==0 the lost level; any other is judged as a further level
 *
 * A level given replaces its default. Two levels judge a trend and have no limit to set: the
 * arrivals waiting at the front door, and (--receive) the backlog inside the gateway, must not
 * grow over the measured window.
 */
import type { LatencyMetric, Op, Threshold } from "../result/threshold-verdicts.js";
import { UsageError } from "../usage/usage-error.js";
import { parseThreshold } from "./thresholds.js";

/** The named levels of a capacity step; `threshold`: a further --qos criterion. */
export type Criterion =
  | "connect"
  | "transaction"
  | "errors"
  | "waiting"
  | "delivery"
  | "lost"
  | "backlog";

export interface ServiceLevel {
  readonly criterion: Criterion | "threshold";
  /** As written in reports and JSON: "connect p95<=5s". */
  readonly expression: string;
  /** Latency levels: which percentile is judged. */
  readonly percentile: LatencyMetric | null;
  readonly op: Op;
  /** In the unit: ms for latencies, % for errors, a count for lost. */
  readonly limit: number;
  /** A further criterion: judged as --threshold judges it, over the whole step. */
  readonly threshold: Threshold | null;
}

/** Levels that only a step through the gateway (--receive) can judge. */
export const GATEWAY_CRITERIA: readonly Criterion[] = ["delivery", "lost", "backlog"];

const level = (
  criterion: Criterion,
  percentile: LatencyMetric | null,
  op: Op,
  limit: number,
  written: string,
): ServiceLevel =>
  Object.freeze({
    criterion,
    expression: percentile
      ? `${criterion} ${percentile}${op}${written}`
      : `${criterion}${op}${written}`,
    percentile,
    op,
    limit,
    threshold: null,
  });

/** A level on a count's trend: it must not grow (delivery/backlog-trend.ts states the tolerance). */
function flat(criterion: Criterion): ServiceLevel {
  return Object.freeze({
    criterion,
    expression: `${criterion} flat`,
    percentile: null,
    op: "<=",
    limit: 0,
    threshold: null,
  });
}

/** SPECmail2001's rating, in the order a step is judged. */
export const DEFAULT_LEVELS: readonly ServiceLevel[] = Object.freeze([
  level("connect", "p95", "<=", 5000, "5s"),
  level("transaction", "p95", "<=", 5000, "5s"),
  level("errors", null, "<", 1, "1%"),
  // Not SPECmail's: a short step can pass its latency levels while arrivals queue up at the
  // front door faster than the target takes them; that queue's trend tells, as the backlog's does.
  flat("waiting"),
  level("delivery", "p95", "<=", 60_000, "60s"),
  level("lost", null, "==", 0, "0"),
  flat("backlog"),
]);

const NAMED = /^(connect|transaction|delivery)\s+(.+)$/;

/** One --qos text as a level (replacing its default) or a further criterion. */
export function parseServiceLevel(text: string): ServiceLevel {
  const expression = text.trim();
  const named = NAMED.exec(expression);
  let threshold: Threshold;
  try {
    threshold = parseThreshold(named ? named[2] : expression);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(
      "--qos",
      `${error.problem.replace(/; e\.g\..*$/, "")}; e.g. 'connect p95<5s', 'errors<0.5%', 'delivery p99<30s'`,
    );
  }
  const written = expression.replace(/^.*?(<=|>=|==|<|>)\s*/, "");
  const latency = ["p50", "p90", "p95", "p99", "mean", "min", "max"].includes(threshold.metric)
    ? (threshold.metric as LatencyMetric)
    : null;
  if (named) {
    if (!latency || threshold.selector !== null) {
      throw new UsageError(
        "--qos",
        `"${expression}": ${named[1]} takes a latency, e.g. '${named[1]} p95<5s'`,
      );
    }
    return level(named[1] as Criterion, latency, threshold.op, threshold.value, written);
  }
  const s = threshold.selector;
  if (latency && (s === null || (s.key === "phase" && s.name === "transaction"))) {
    return level("transaction", latency, threshold.op, threshold.value, written);
  }
  if (latency && s?.key === "phase" && s.name === "connect") {
    return level("connect", latency, threshold.op, threshold.value, written);
  }
  if (threshold.metric === "error_rate" && s === null) {
    return level("errors", null, threshold.op, threshold.value, written);
  }
  if (threshold.metric === "lost" && s === null) {
    return level("lost", null, threshold.op, threshold.value, written);
  }
  return Object.freeze({
    criterion: "threshold",
    expression,
    percentile: null,
    op: threshold.op,
    limit: threshold.value,
    threshold,
  });
}

/**
 * The levels a step is judged against: the defaults, each replaced by a --qos that names it,
 * then the further criteria. Without --receive the delivery, lost and backlog levels are left
 * out (nothing measures them), and a --qos naming one is refused.
 */
export function parseServiceLevels(raw: unknown, throughGateway: boolean): ServiceLevel[] {
  const list = raw === undefined ? [] : (Array.isArray(raw) ? raw : [raw]).map(String);
  // "errors<1%" reads as the error_rate metric of --threshold.
  const given = list.map((text) =>
    parseServiceLevel(text.trim().replace(/^errors(?=\s*[<>=])/, "error_rate")),
  );
  for (const g of given) {
    if (!throughGateway && (GATEWAY_CRITERIA as readonly string[]).includes(g.criterion)) {
      throw new UsageError(
        "--qos",
        `"${g.expression}": ${g.criterion} is measured through the gateway; add --receive ADDR`,
      );
    }
  }
  const levels = DEFAULT_LEVELS.filter(
    (d) => throughGateway || !GATEWAY_CRITERIA.includes(d.criterion as Criterion),
  ).map((d) => [...given].reverse().find((g) => g.criterion === d.criterion) ?? d);
  return [...levels, ...given.filter((g) => g.criterion === "threshold")];
}
