/**
 * What the HTML report's charts are drawn from, made in Node from a Result and embedded in the
 * page as JSON (browser/charts.ts draws it in the browser). The x axis is time since the run's
 * first connect: the clock of Result.knee and Result.firstSeen.
 */
import { ERROR_CLASS_LABELS } from "../stats/errors.js";
import type { Result } from "../stats/result.js";
import type { ChartMarker, ChartRun } from "./browser/chart-data.js";
import { fmt } from "./figures.js";

/**
 * One run as the charts draw it, named by its label (runLabel in a compare): x in seconds since the first connect (the clock of Result.knee
 * and Result.firstSeen), each interval from its start (the first one from the first connect).
 */
export function chartRun(r: Result, label: string = r.mode): ChartRun {
  const start = Date.parse(r.startedAt);
  const points = (r.series?.points ?? []).map(({ histogram: _h, t, ...p }) => ({
    x: Math.max(0, (t - start) / 1000),
    ...p,
  }));
  const delivery = r.delivery?.perSecond;
  return {
    label,
    intervalMs: r.series?.intervalMs ?? 1000,
    endX: Math.max(r.elapsedSeconds, ...points.map((p) => p.x)),
    markers: chartMarkers(r),
    ...(delivery && delivery.accepted.length > 0 ? { delivery } : {}),
    points,
  };
}

/** The knee and where each error class first appeared (exact when the Result has it). */
export function chartMarkers(r: Result): ChartMarker[] {
  const knee: ChartMarker[] = r.knee?.fell
    ? [{ x: r.knee.fell.atSeconds, label: "knee", class: null }]
    : [];
  const firsts = (r.firstSeen ?? []).map((f) => ({
    x: f.atSeconds ?? f.fromSeconds,
    label: `first ${ERROR_CLASS_LABELS[f.class]}${f.connection ? ` (connection ${fmt(f.connection)})` : ""}`,
    class: f.class,
  }));
  return [...knee, ...firsts];
}
