/**
 * The knee of a run: where success fell below 100%, what was being sent and accepted then, and
 * the mean throughput while it held at 100% (the PTS-style answer for an arrival-rate ramp; it
 * is computed for any run). Read off the time series, so to the interval's resolution; the
 * moment itself is the earliest error's exact time (firstSeen) when it lies in that interval.
 */
import { settledCount } from "../stats/counts.js";
import type { FirstSeen, Knee, Result } from "./result.js";

/** See Result.knee for the definition. */
export function knee(
  series: Result["series"],
  firstEventMs: number,
  firstSeen: readonly FirstSeen[],
  lastEventMs = Number.POSITIVE_INFINITY,
): Knee | null {
  const points = series.points;
  // An arrival dropped (open model: no session could start it) did not succeed either: a ramp
  // that overloads the target shows its knee in drops before any reply fails.
  const asked = (p: (typeof points)[number]) => settledCount(p) + (p.dropped ?? 0);
  const start = points.findIndex((p) => asked(p) > 0);
  if (start < 0) return null;
  const seconds = series.intervalMs / 1000;
  // Times are clamped into the run: the last interval may reach past the last reply.
  const since = (epochMs: number) =>
    round(Math.max(0, (Math.min(epochMs, lastEventMs) - firstEventMs) / 1000), 3);
  let at = start;
  while (at < points.length && asked(points[at]) === points[at].accepted) at++;
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
      successPercent: round((p.accepted / asked(p)) * 100, 2),
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
