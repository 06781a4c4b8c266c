/**
 * One capacity step judged: its figures over the measured window (the warm-up left out) and
 * each service level against them. The time series gives the window's arrivals, outcomes and
 * its transaction and connect histograms (each interval's); the delivery section's seconds due
 * give the messages the window offered (accepted, lost, and the end-to-end latency of those
 * that arrived, whenever they came out); its per-second counts give the relaying and the
 * backlog. A further --qos threshold is judged as --threshold judges it, over the whole step.
 */
import type { Arrivals } from "../config/load-model.js";
import type { ServiceLevel } from "../config/service-levels.js";
import { type BacklogTrend, backlogTrend } from "../delivery/backlog-trend.js";
import type { CapacityCheck, CapacityStep, StepPurpose } from "../result/capacity-result.js";
import type { LatencySummary, Result } from "../result/result.js";
import { evaluateThresholds, holds, type LatencyMetric } from "../result/threshold-verdicts.js";
import { arrivalSchedule } from "../run/schedule.js";
import { addEncoded, fractionAtOrBelow, summariseHistogram } from "../stats/histogram.js";

/** What the search knows of a step: how it was run. */
export interface StepPlan {
  readonly purpose: StepPurpose;
  readonly percent: number | null;
  readonly ratePerSecond: number;
  readonly warmupMs: number;
  readonly measuredMs: number;
  /** How the step spaced its arrivals; null for the closed estimate step. */
  readonly arrivals: Arrivals | null;
}

/** The figures of the measured window, before any level is applied. */
interface Window {
  arrivals: number;
  accepted: number;
  turnedAway: number;
  seconds: number;
  /** The window's transaction histogram (encoded), or null without samples. */
  transaction: string | null;
  /** The window's connect histogram (encoded), or null when it made no connection. */
  connect: string | null;
  /** The window's span, epoch ms: the seconds due in it are its delivery's. */
  fromMs: number;
  toMs: number;
}

/** The series' intervals from the end of the warm-up to the end of the measured window. */
function measuredWindow(result: Result, plan: StepPlan): Window {
  const { intervalMs, points } = result.series;
  const start = points.length > 0 ? points[0].t : 0;
  const from = start + plan.warmupMs;
  const to = from + plan.measuredMs;
  const inside = points.filter((p) => p.t >= from && p.t < to);
  // A step shorter than an interval or two still has a window: its last intervals.
  const chosen = inside.length > 0 ? inside : points.slice(-1);
  let arrivals = 0;
  let accepted = 0;
  let turnedAway = 0;
  for (const p of chosen) {
    arrivals += p.sent + p.dropped;
    accepted += p.accepted;
    turnedAway += p.rejected + p.failed + p.dropped;
  }
  const histograms = chosen.filter((p) => p.p50Ms !== null).map((p) => p.histogram);
  const connects = chosen.flatMap((p) => (p.connectHistogram ? [p.connectHistogram] : []));
  return {
    arrivals,
    accepted,
    turnedAway,
    seconds: Math.max(1, chosen.length) * (intervalMs / 1000),
    transaction: histograms.length > 0 ? addEncoded(histograms) : null,
    connect: connects.length > 0 ? addEncoded(connects) : null,
    fromMs: chosen.length > 0 ? chosen[0].t : from,
    toMs: chosen.length > 0 ? chosen[chosen.length - 1].t + intervalMs : to,
  };
}

/** The messages due in the window that the gateway accepted, and what became of them. */
interface DeliveryWindow {
  accepted: number;
  lost: number;
  /** End-to-end latency of those that arrived in time (encoded), or null when none did. */
  endToEnd: string | null;
}

function dueInWindow(result: Result, w: Window): DeliveryWindow | null {
  const seconds = result.delivery?.dueSeconds;
  if (!seconds) return null;
  let accepted = 0;
  let lost = 0;
  const histograms: string[] = [];
  for (const s of seconds) {
    if (s.t < w.fromMs || s.t >= w.toMs) continue;
    accepted += s.accepted;
    lost += s.lost;
    if (s.endToEndHistogram !== null) histograms.push(s.endToEndHistogram);
  }
  return { accepted, lost, endToEnd: histograms.length > 0 ? addEncoded(histograms) : null };
}

/**
 * The arrivals waiting at the front door at the end of each interval of the measured window:
 * due by the step's own schedule (the same seed, so the very arrivals it offered) and not yet
 * settled (accepted, rejected, failed or dropped). Its trend says whether the target took
 * arrivals as fast as they came; an offset between the schedule's clock and the series' moves
 * every count alike and leaves the trend as it is.
 */
function waitingTrend(
  result: Result,
  plan: StepPlan,
  acceptedPerSecond: number,
): BacklogTrend | null {
  if (plan.arrivals === null) return null;
  const { intervalMs, points } = result.series;
  const startMs = Date.parse(result.startedAt);
  const endMs = plan.warmupMs + plan.measuredMs;
  const schedule = arrivalSchedule([{ atMs: 0, value: plan.ratePerSecond }], plan.arrivals);
  let due = 0;
  const dueBy = (at: number) => {
    while (schedule.arrivalTime(due) < at) due++;
    return due;
  };
  // The count at the window's start (the last interval end inside the warm-up, or the step's
  // start), so that a window of one interval still has a trend: one that waits for nothing at
  // the start and for most of its arrivals at the end did not keep up.
  const atSeconds = [0];
  const waiting = [0];
  let settled = 0;
  for (const p of points) {
    settled += p.accepted + p.rejected + p.failed + p.dropped;
    const at = p.t + intervalMs - startMs;
    if (at <= plan.warmupMs) {
      atSeconds[0] = at / 1000;
      waiting[0] = dueBy(at) - settled;
      continue;
    }
    // After the schedule's end the queue only drains: those intervals say nothing of the rate.
    if (at > endMs) continue;
    atSeconds.push(at / 1000);
    waiting.push(dueBy(at) - settled);
  }
  return waiting.length >= 2 ? backlogTrend(waiting, acceptedPerSecond, atSeconds) : null;
}

/** The per-second counts of the delivery section inside the measured window. */
function deliveryWindow(counts: readonly number[], plan: StepPlan): number[] {
  const from = Math.ceil(plan.warmupMs / 1000);
  const to = Math.floor((plan.warmupMs + plan.measuredMs) / 1000);
  const inside = counts.slice(from, Math.max(from + 1, to));
  return inside.length > 0 ? inside : counts.slice(-1);
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

function latencyOf(summary: LatencySummary | undefined, p: LatencyMetric | null): number | null {
  if (!summary || summary.count === 0) return null;
  return summary[p ?? "p95"];
}

/** The step's figures and its verdict on every level. */
export function judgeStep(
  result: Result,
  plan: StepPlan,
  levels: readonly ServiceLevel[],
): Omit<CapacityStep, "result"> {
  const w = measuredWindow(result, plan);
  const delivery = result.delivery;
  const due = dueInWindow(result, w);
  const acceptedPerSecond = round(w.accepted / w.seconds);
  const errorPercent = w.arrivals > 0 ? round((w.turnedAway / w.arrivals) * 100) : 0;
  const transaction = summaryOf(w.transaction);
  const connect = summaryOf(w.connect);
  // A result without seconds due (saved before them) has only the whole step's.
  const endToEnd = due ? summaryOf(due.endToEnd) : delivery?.endToEndMs;
  const backlog = delivery
    ? backlogTrend(deliveryWindow(delivery.perSecond.inside, plan), acceptedPerSecond)
    : null;
  const delivered = delivery ? deliveryWindow(delivery.perSecond.delivered, plan) : [];
  const figures = {
    connect: latencyOf(connect, "p95"),
    transaction: latencyOf(transaction, "p95"),
    delivery: delivery ? latencyOf(endToEnd, "p95") : null,
  };
  const waiting = waitingTrend(result, plan, acceptedPerSecond);
  const checks = levels.map((level) =>
    check(level, {
      result,
      w,
      transaction,
      connect,
      due,
      endToEnd,
      errorPercent,
      backlog,
      waiting,
      noisePerSecond: trendNoise(Math.max(plan.ratePerSecond, acceptedPerSecond), w.seconds),
    }),
  );
  return {
    purpose: plan.purpose,
    percent: plan.percent,
    ratePerSecond: plan.ratePerSecond,
    warmupMs: plan.warmupMs,
    measuredMs: plan.measuredMs,
    pass: checks.every((c) => c.pass),
    failed: checks.filter((c) => !c.pass).map((c) => c.criterion),
    limitedBy: result.generator?.limitedBy ?? "undetermined",
    arrivalsPerSecond: round(w.arrivals / w.seconds),
    acceptedPerSecond,
    deliveredPerSecond: delivery
      ? round(delivered.reduce((a, b) => a + b, 0) / delivered.length)
      : null,
    connectP95Ms: figures.connect,
    transactionP95Ms: figures.transaction,
    deliveryP95Ms: figures.delivery,
    errorPercent,
    backlog,
    checks,
  };
}

interface Measured {
  result: Result;
  w: Window;
  transaction: LatencySummary | undefined;
  connect: LatencySummary | undefined;
  due: DeliveryWindow | null;
  endToEnd: LatencySummary | undefined;
  errorPercent: number;
  backlog: CapacityStep["backlog"];
  waiting: BacklogTrend | null;
  /** A slope below this is the arrivals' own noise over the window (see trendNoise). */
  noisePerSecond: number;
}

/**
 * The slope a count inside a queue shows by chance over a short window: Poisson arrivals at λ/s
 * vary by √λ in a second, so a window of T seconds can show a slope of about √λ / T with
 * nothing growing; three times that is taken as noise. Over the default 30 s step it falls
 * below the trend's own tolerance (2 % of the accept rate) for any rate above about 25/s;
 * a 2 s step only sees a queue that grows fast.
 */
export function trendNoise(ratePerSecond: number, windowSeconds: number): number {
  return (3 * Math.sqrt(Math.max(0, ratePerSecond))) / Math.max(1, windowSeconds);
}

/** Growing beyond the trend's tolerance and beyond the noise of the window. */
function growing(trend: BacklogTrend, noisePerSecond: number): boolean {
  return trend.trend === "growing" && trend.perSecond > noisePerSecond;
}

/**
 * SPECmail's "% of messages delivered within" the limit: of the messages due in the window that
 * the gateway accepted, those that arrived in time within it. One lost, late, bounced without a
 * copy or not waited for did not.
 */
function deliveredWithin(due: DeliveryWindow | null, level: ServiceLevel): number | null {
  if (due === null || due.accepted === 0) return null;
  if (due.endToEnd === null) return 0;
  const arrived = summariseHistogram(due.endToEnd).count;
  return (fractionAtOrBelow(due.endToEnd, level.limit) * arrived) / due.accepted;
}

const summaryOf = (encoded: string | null) =>
  encoded === null ? undefined : summariseHistogram(encoded);

/** One level against the step: what it measured, whether it held, and SPECmail's % compliant. */
function check(level: ServiceLevel, m: Measured): CapacityCheck {
  const row = (actual: number | null, unit: string, compliance: number | null, pass?: boolean) => ({
    criterion: level.criterion,
    expression: level.expression,
    actual: actual === null ? null : round(actual),
    unit,
    pass: pass ?? (actual !== null && holds(level.op, actual, level.limit)),
    compliancePercent: compliance === null ? null : round(compliance * 100, 2),
  });
  const { result, w } = m;
  switch (level.criterion) {
    case "connect": {
      const actual = latencyOf(m.connect, level.percentile);
      // Reuse mode connects once per session: none in a window means no connect was slow.
      if (actual === null || w.connect === null) return row(null, "ms", null, true);
      return row(actual, "ms", fractionAtOrBelow(w.connect, level.limit));
    }
    case "transaction": {
      const actual = latencyOf(m.transaction, level.percentile);
      const within = w.transaction === null ? null : fractionAtOrBelow(w.transaction, level.limit);
      return row(actual, "ms", within);
    }
    case "errors":
      return row(m.errorPercent, "%", w.arrivals > 0 ? 1 - w.turnedAway / w.arrivals : null);
    case "delivery":
      return row(latencyOf(m.endToEnd, level.percentile), "ms", deliveredWithin(m.due, level));
    case "lost": {
      const d = m.due;
      if (d === null) {
        // A result without seconds due: the whole step's count.
        const lost = result.delivery?.lost ?? null;
        return row(lost, "", null);
      }
      return row(d.lost, "", d.accepted > 0 ? 1 - d.lost / d.accepted : null);
    }
    case "backlog": {
      const b = m.backlog;
      return row(b ? b.perSecond : null, "/s", null, b !== null && !growing(b, m.noisePerSecond));
    }
    case "waiting": {
      // The closed estimate step has no schedule: nothing waits for it.
      const b = m.waiting;
      return row(b ? b.perSecond : null, "/s", null, b === null || !growing(b, m.noisePerSecond));
    }
    case "threshold": {
      const [outcome] = level.threshold ? evaluateThresholds([level.threshold], result) : [];
      return row(outcome?.actual ?? null, outcome?.unit ?? "", null, outcome?.passed ?? false);
    }
  }
}
