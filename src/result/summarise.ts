/** Turns counted snapshots into the Result every report reads. */

import { latencyRecord } from "../smtp/phases.js";
import {
  type ClassSnapshot,
  fractionAtOrBelow,
  type StatsSnapshot,
  summariseHistogram,
} from "../stats/collector.js";
import { outcomesOf, settledCount, unacceptedCount } from "../stats/counts.js";
import {
  classifyError,
  ERROR_CLASSES,
  type ErrorClass,
  zeroErrorClasses,
} from "../stats/errors.js";
import type { FirstError } from "../stats/first-errors.js";
import type { SeriesPoint, SeriesSnapshot } from "../stats/series.js";
import { warningRows } from "../stats/warnings.js";
import { accountingOf } from "./accounting.js";
import { knee } from "./knee.js";
import type {
  ClassResult,
  FirstSeen,
  Mode,
  Result,
  ResultErrorRow,
  RunRecord,
  SeriesPointResult,
} from "./result.js";
import { RESULT_LATENCIES, RESULT_SCHEMA } from "./result.js";
import { TLS_HISTOGRAM_KEYS, tlsResult } from "./tls-result.js";

/** Apdex T when none is given: JMeter's dashboard default (satisfied ≤ 500 ms). */
export const DEFAULT_APDEX_MS = 500;

export interface RunMeta {
  mode: Mode;
  target: string;
  runId: string;
  sessions: number;
  sink?: Result["sink"];
  /** Apdex T in ms (satisfied ≤ T, tolerating ≤ 4T); default DEFAULT_APDEX_MS. */
  apdexMs?: number;
  /** What was run (Result.run). */
  run?: RunRecord;
}

export function buildResult(snapshot: StatsSnapshot, meta: RunMeta): Result {
  const { counters: c } = snapshot;
  const elapsedMs = Math.max(0, snapshot.lastEventMs - snapshot.firstEventMs);
  const elapsedSeconds = elapsedMs / 1000;
  const { errors, errorClasses } = classifiedErrors(snapshot.errors);
  const satisfiedMs = meta.apdexMs ?? DEFAULT_APDEX_MS;
  const apdex = { satisfiedMs, toleratingMs: 4 * satisfiedMs };
  const all: ClassSnapshot = {
    name: "all",
    ...outcomesOf(c),
    histogram: snapshot.histograms.transaction,
  };
  const classRow = (cls: ClassSnapshot) => summariseClass(cls, elapsedSeconds, apdex);
  const series = seriesResult(snapshot.series);
  const first = snapshot.firstErrors
    ? firstSeenExact(snapshot.firstErrors, series.intervalMs, snapshot.firstEventMs)
    : firstSeen(series, snapshot.firstEventMs, elapsedSeconds);
  const result: Result = {
    schema: RESULT_SCHEMA,
    mode: meta.mode,
    ...(meta.run ? { run: meta.run } : {}),
    target: meta.target,
    runId: meta.runId,
    startedAt: new Date(snapshot.firstEventMs || Date.now()).toISOString(),
    elapsedSeconds: round(elapsedSeconds, 3),
    sessions: meta.sessions,
    messages: {
      attempted: c.attempted,
      ...outcomesOf(c),
      dropped: c.dropped,
      scheduled: c.attempted + c.dropped,
    },
    latencyUncorrected: {
      transactionMs: summariseHistogram(snapshot.histograms.transactionUncorrected),
    },
    recipients: { attempted: c.rcptAttempted, accepted: c.rcptAccepted, rejected: c.rcptRejected },
    connections: connectionsOf(c),
    throughput: {
      messagesPerSecond: elapsedSeconds > 0 ? round(c.accepted / elapsedSeconds, 1) : 0,
      plateau: plateau(series),
    },
    latency: latencyRecord(
      (latency) => summariseHistogram(snapshot.histograms[latency]),
      RESULT_LATENCIES,
    ),
    errors,
    errorClasses,
    firstSeen: first,
    knee: knee(series, snapshot.firstEventMs, first, snapshot.lastEventMs),
    apdex,
    allClasses: classRow(all),
    classes: snapshot.classes.map(classRow),
    series,
    histograms: histogramsOf(snapshot),
  };
  return withOptionalSections(result, snapshot, meta);
}

/** The sections only some runs have: the accounting, TLS handshakes, the sink's own count. */
function withOptionalSections(result: Result, snapshot: StatsSnapshot, meta: RunMeta): Result {
  const accounting = accountingOf(snapshot.counters);
  if (accounting) result.accounting = accounting;
  if (snapshot.tls) result.tls = tlsResult(snapshot.tls);
  if (snapshot.warnings) result.warnings = warningRows(snapshot.warnings);
  if (meta.sink) result.sink = meta.sink;
  return result;
}

/** Error rows, most frequent first, each with its class; and the occurrences by class. */
function classifiedErrors(rows: StatsSnapshot["errors"]): {
  errors: ResultErrorRow[];
  errorClasses: Result["errorClasses"];
} {
  const errors: ResultErrorRow[] = [...rows]
    .sort((a, b) => b.count - a.count || a.reply.localeCompare(b.reply))
    .map((row) => ({ ...row, class: classifyError(row.reply, row.enhanced, row.phase) }));
  const errorClasses = zeroErrorClasses();
  for (const row of errors) errorClasses[row.class] += row.count;
  return { errors, errorClasses };
}

/** Result.histograms: the run's, each class's and each kind of TLS handshake's. */
function histogramsOf(snapshot: StatsSnapshot): Record<string, string> {
  const histograms: Record<string, string> = { ...snapshot.histograms };
  for (const cls of snapshot.classes) histograms[`class:${cls.name}`] = cls.histogram;
  if (snapshot.tls) {
    histograms[TLS_HISTOGRAM_KEYS.full] = snapshot.tls.fullHistogram;
    histograms[TLS_HISTOGRAM_KEYS.resumed] = snapshot.tls.resumedHistogram;
  }
  return histograms;
}

function connectionsOf(c: StatsSnapshot["counters"]): Result["connections"] {
  return {
    opened: c.connectionsOpened,
    established: c.connectionsEstablished,
    refused: c.connectionsRefused,
    reconnects: c.reconnects,
    perMessage: c.attempted > 0 ? round(c.connectionsOpened / c.attempted, 4) : 0,
  };
}

function summariseClass(
  cls: ClassSnapshot,
  elapsedSeconds: number,
  apdex: Result["apdex"],
): ClassResult {
  const attempted = settledCount(cls);
  let score: number | null = null;
  if (attempted > 0) {
    const satisfied = fractionAtOrBelow(cls.histogram, apdex.satisfiedMs) * cls.accepted;
    const tolerable = fractionAtOrBelow(cls.histogram, apdex.toleratingMs) * cls.accepted;
    score = round((satisfied + (tolerable - satisfied) / 2) / attempted, 3);
  }
  const phases: Partial<ClassResult> = {};
  if (cls.phases?.envelope) phases.envelopeMs = summariseHistogram(cls.phases.envelope);
  if (cls.phases?.data) phases.dataMs = summariseHistogram(cls.phases.data);
  return {
    name: cls.name,
    attempted,
    ...outcomesOf(cls),
    errorPercent: attempted > 0 ? round((unacceptedCount(cls) / attempted) * 100, 3) : 0,
    transactionMs: summariseHistogram(cls.histogram),
    messagesPerSecond: elapsedSeconds > 0 ? round(cls.accepted / elapsedSeconds, 1) : 0,
    apdex: score,
    ...phases,
  };
}

/** The snapshot's series as the Result shows it: error classes by name, p50/p99 per point. */
export function seriesResult(series: SeriesSnapshot): Result["series"] {
  return {
    intervalMs: series.intervalMs,
    points: series.points.map((p) => {
      const latency = summariseHistogram(p.histogram);
      const errors = zeroErrorClasses();
      ERROR_CLASSES.forEach((name, i) => {
        errors[name] = p.errors[i] ?? 0;
      });
      return {
        ...pointCounts(p),
        errors,
        // No accepted message, no latency: a gap in the charts, not 0 ms.
        p50Ms: latency.count > 0 ? latency.p50 : null,
        p99Ms: latency.count > 0 ? latency.p99 : null,
        ...pointHistograms(p),
      };
    }),
  };
}

/**
 * What a point says alike as the thread's snapshot and as the saved Result: its counts, then
 * (after its errors and latency, written differently in each) its histograms. Two parts, so
 * that both keep the saved Result's field order.
 */
function pointCounts(p: SeriesPoint | SeriesPointResult) {
  return {
    t: p.t,
    sent: p.sent,
    dropped: p.dropped ?? 0,
    ...outcomesOf(p),
    connectionsOpened: p.connectionsOpened,
    openSessions: p.openSessions,
    ...(p.openSessionsMean === undefined ? {} : { openSessionsMean: p.openSessionsMean }),
  };
}

function pointHistograms(p: SeriesPoint | SeriesPointResult) {
  return {
    histogram: p.histogram,
    ...(p.connectHistogram === undefined ? {} : { connectHistogram: p.connectHistogram }),
  };
}

/** The inverse of seriesResult, for re-grouping a saved result's series. */
export function seriesSnapshot(series: Result["series"]): SeriesSnapshot {
  return {
    intervalMs: series.intervalMs,
    points: series.points.map(
      (p: SeriesPointResult): SeriesPoint => ({
        ...pointCounts(p),
        errors: ERROR_CLASSES.map((name: ErrorClass) => p.errors[name] ?? 0),
        ...pointHistograms(p),
      }),
    ),
  };
}

/** See Result.firstSeen and FirstSeen: from the moments recorded. */
export function firstSeenExact(
  firsts: readonly FirstError[],
  intervalMs: number,
  firstEventMs: number,
): FirstSeen[] {
  const seconds = (epochMs: number) => round(Math.max(0, (epochMs - firstEventMs) / 1000), 3);
  const inOrder = [...firsts].sort((a, b) => a.atMs - b.atMs);
  return inOrder.map((f) => {
    const from = Math.floor(f.atMs / intervalMs) * intervalMs;
    return {
      class: f.class,
      atSeconds: seconds(f.atMs),
      connection: f.connection,
      message: f.message > 0 ? f.message : null,
      fromSeconds: seconds(from),
      toSeconds: seconds(from + intervalMs),
      openSessions: f.openSessions,
      connectionsOpened: f.connectionsOpened,
      sent: f.messagesStarted,
    };
  });
}

/** See Result.firstSeen and FirstSeen: read off the time series, for results saved before. */
export function firstSeen(
  series: Result["series"],
  firstEventMs: number,
  elapsedSeconds: number,
): FirstSeen[] {
  const out: FirstSeen[] = [];
  let connectionsOpened = 0;
  let sent = 0;
  const seconds = (epochMs: number) =>
    round(Math.min(Math.max(0, (epochMs - firstEventMs) / 1000), elapsedSeconds), 3);
  for (const p of series.points) {
    connectionsOpened += p.connectionsOpened;
    sent += p.sent;
    for (const cls of ERROR_CLASSES) {
      if ((p.errors[cls] ?? 0) === 0 || out.some((f) => f.class === cls)) continue;
      out.push({
        class: cls,
        fromSeconds: seconds(p.t),
        toSeconds: seconds(p.t + series.intervalMs),
        openSessions: p.openSessions,
        connectionsOpened,
        sent,
      });
    }
  }
  return out;
}

/** Share of the median a ramp interval stays below. */
const PLATEAU_FRACTION = 0.9;

/** See Result.throughput.plateau for the definition. */
export function plateau(series: Result["series"]): Result["throughput"]["plateau"] {
  let points = series.points.slice(1, -1);
  if (points.length < 3) return null;
  // The median of the intervals that accepted something: idle intervals (a lull, a drain, a
  // run mostly waiting) would pull it to 0, and a floor of 0 trims nothing.
  const sorted = points
    .map((p) => p.accepted)
    .filter((n) => n > 0)
    .sort((a, b) => a - b);
  if (sorted.length < 3) return null;
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  const floor = median * PLATEAU_FRACTION;
  let first = 0;
  let last = points.length - 1;
  while (first < last && points[first].accepted < floor) first++;
  while (last > first && points[last].accepted < floor) last--;
  points = points.slice(first, last + 1);
  if (points.length < 3) return null;
  const accepted = points.reduce((sum, p) => sum + p.accepted, 0);
  const seconds = (points.length * series.intervalMs) / 1000;
  return {
    messagesPerSecond: round(accepted / seconds, 1),
    intervals: points.length,
    fromMs: points[0].t,
    toMs: points[points.length - 1].t + series.intervalMs,
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
