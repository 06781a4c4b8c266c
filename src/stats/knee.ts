/**
 * The knee of a run: where success fell below 100%, what was being sent and accepted then, and
 * the mean throughput while it held at 100% (the PTS-style answer for an arrival-rate ramp; it
 * is computed for any run). Read off the time series, so to the interval's resolution; the
 * moment itself is the earliest error's exact time (firstSeen) when it lies in that interval.
 */
import { settledCount } from "./counts.js";
import type { FirstSeen, Knee, Result } from "./result.js";

/** See Result.knee for the definition. */
export function knee(
  series: Result["series"],
  firstEventMs: number,
  firstSeen: readonly FirstSeen[],
): Knee | null {
  const points = series.points;
  const start = points.findIndex((p) => settledCount(p) > 0);
  if (start < 0) return null;
  const seconds = series.intervalMs / 1000;
  const since = (epochMs: number) => round(Math.max(0, (epochMs - firstEventMs) / 1000), 3);
  let at = start;
  while (at < points.length && points[at].rejected + points[at].failed === 0) at++;
  const clean = points.slice(start, at);
  const accepted = clean.reduce((n, p) => n + p.accepted, 0);
  const cleanWindow =
    clean.length === 0
      ? null
      : {
          fromSeconds: since(clean[0].t),
          toSeconds: since(clean[clean.length - 1].t + series.intervalMs),
          intervals: clean.length,
          messagesPerSecond: round(accepted / (clean.length * seconds), 1),
        };
  if (at === points.length) return { fell: null, cleanWindow };
  const p = points[at];
  const from = since(p.t);
  const to = since(p.t + series.intervalMs);
  // The earliest error recorded exactly, when it lies in the knee's interval.
  const exact = firstSeen
    .map((f) => f.atSeconds)
    .filter((s): s is number => s !== undefined && s >= from && s <= to)
    .sort((a, b) => a - b)[0];
  return {
    fell: {
      atSeconds: exact ?? from,
      fromSeconds: from,
      toSeconds: to,
      successPercent: round((p.accepted / settledCount(p)) * 100, 2),
      sentPerSecond: round(p.sent / seconds, 1),
      scheduledPerSecond: round((p.sent + (p.dropped ?? 0)) / seconds, 1),
      acceptedPerSecond: round(p.accepted / seconds, 1),
    },
    cleanWindow,
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
