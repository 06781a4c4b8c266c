/**
 * What the HTML report's charts are drawn from, made in Node from a Result and embedded in the
 * page as JSON (browser/charts.ts draws it in the browser). The x axis is time since the run's
 * first connect: the clock of Result.knee and Result.firstSeen.
 */

import type { Result } from "../result/result.js";
import { ERROR_CLASS_LABELS } from "../stats/errors.js";
import type { ChartMarker, ChartRun } from "./browser/chart-data.js";
import { fmt } from "./figures.js";

/**
 * One run as the charts draw it, named by its label (runLabel in a compare): x in seconds since
 * the first connect (the clock of Result.knee and Result.firstSeen), each interval from its
 * start (the first one from the first connect) with its real length.
 */
export function chartRun(r: Result, label: string = r.mode): ChartRun {
  const start = Date.parse(r.startedAt);
  const intervalMs = r.series?.intervalMs ?? 1000;
  const starts = (r.series?.points ?? []).map((p) => Math.max(0, (p.t - start) / 1000));
  const endX = Math.max(r.elapsedSeconds, ...starts);
  const points = (r.series?.points ?? []).map(({ histogram: _h, t: _t, ...p }, i) => {
    const end = i + 1 < starts.length ? starts[i + 1] : endX;
    // A partial interval's count is over its own length, not the whole interval's.
    const seconds = end > starts[i] ? end - starts[i] : intervalMs / 1000;
    return { x: starts[i], seconds: Math.round(seconds * 1e6) / 1e6, ...p };
  });
  const delivery = r.delivery?.perSecond;
  return {
    label,
    intervalMs,
    endX,
    scheduled: Boolean(r.generator?.lateness),
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
