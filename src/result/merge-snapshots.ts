/**
 * Snapshots of several threads (or shards) as one: counters add, error rows merge by key,
 * histograms add, classes merge by name, the series align on epoch time.
 */
import { mergeAcceptRecords } from "../stats/accept-records.js";
import {
  CLASS_PHASES,
  type ClassPhase,
  type ClassSnapshot,
  HISTOGRAM_NAMES,
  type HistogramName,
  type StatsSnapshot,
} from "../stats/collector.js";
import { addCounters, addOutcomes, zeroCounters, zeroOutcomes } from "../stats/counts.js";
import { errorKey } from "../stats/errors.js";
import { mergeFirstErrors } from "../stats/first-errors.js";
import { addEncoded } from "../stats/histogram.js";
import { mergeSeries } from "../stats/series.js";
import { mergeTls } from "../stats/tls-tally.js";
import { mergeWarnings } from "../stats/warnings.js";
import type { ErrorRow } from "./result.js";

/** Merges snapshots from several workers (or sessions) into one, as if one had counted all. */
export function mergeSnapshots(parts: readonly StatsSnapshot[]): StatsSnapshot {
  const counters = zeroCounters();
  const rows = new Map<string, ErrorRow>();
  let first = 0;
  let last = 0;
  for (const part of parts) {
    addCounters(counters, part.counters);
    for (const row of part.errors) {
      const key = errorKey(row.reply, row.enhanced, row.phase, row.text);
      const have = rows.get(key);
      if (have) have.count += row.count;
      else rows.set(key, { ...row });
    }
    if (part.firstEventMs > 0 && (first === 0 || part.firstEventMs < first)) {
      first = part.firstEventMs;
    }
    if (part.lastEventMs > last) last = part.lastEventMs;
  }
  const histograms = {} as Record<HistogramName, string>;
  for (const name of HISTOGRAM_NAMES) {
    histograms[name] = addEncoded(parts.map((part) => part.histograms[name]));
  }
  return {
    counters,
    errors: [...rows.values()],
    histograms,
    firstEventMs: first,
    lastEventMs: last,
    classes: mergeClasses(parts),
    series: mergeSeries(parts.map((p) => p.series ?? { intervalMs: 0, points: [] })),
    firstErrors: parts.every((p) => p.firstErrors)
      ? mergeFirstErrors(parts.map((p) => p.firstErrors ?? []))
      : undefined,
    tls: mergeTls(parts.map((p) => p.tls)),
    warnings: mergeWarnings(parts.map((p) => p.warnings)),
    ...(parts.some((p) => p.accepts)
      ? { accepts: mergeAcceptRecords(parts.map((p) => p.accepts)) }
      : {}),
  };
}

/** Classes merge by name, in order of first appearance. */
function mergeClasses(parts: readonly StatsSnapshot[]): ClassSnapshot[] {
  type Entry = { snap: ClassSnapshot; histograms: string[]; phases: Record<ClassPhase, string[]> };
  const byName = new Map<string, Entry>();
  for (const part of parts) {
    for (const c of part.classes ?? []) {
      let entry = byName.get(c.name);
      if (!entry) {
        entry = {
          snap: { name: c.name, ...zeroOutcomes(), histogram: "" },
          histograms: [],
          phases: { envelope: [], data: [] },
        };
        byName.set(c.name, entry);
      }
      addOutcomes(entry.snap, c);
      entry.histograms.push(c.histogram);
      for (const phase of CLASS_PHASES) {
        const encoded = c.phases?.[phase];
        if (encoded) entry.phases[phase].push(encoded);
      }
    }
  }
  return [...byName.values()].map(({ snap, histograms, phases }) => ({
    ...snap,
    histogram: addEncoded(histograms),
    phases: { envelope: addEncoded(phases.envelope), data: addEncoded(phases.data) },
  }));
}
