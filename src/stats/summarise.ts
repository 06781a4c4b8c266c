/** Turns counted snapshots into the Result every report reads. */

import { type StatsSnapshot, summariseHistogram } from "./collector.js";
import type { Mode, Result } from "./result.js";
import { RESULT_SCHEMA } from "./result.js";

export interface RunMeta {
  mode: Mode;
  target: string;
  runId: string;
  sessions: number;
  sink?: Result["sink"];
}

export function buildResult(snapshot: StatsSnapshot, meta: RunMeta): Result {
  const { counters: c } = snapshot;
  const elapsedMs = Math.max(0, snapshot.lastEventMs - snapshot.firstEventMs);
  const elapsedSeconds = elapsedMs / 1000;
  const errors = [...snapshot.errors].sort(
    (a, b) => b.count - a.count || a.reply.localeCompare(b.reply),
  );
  const result: Result = {
    schema: RESULT_SCHEMA,
    mode: meta.mode,
    target: meta.target,
    runId: meta.runId,
    startedAt: new Date(snapshot.firstEventMs || Date.now()).toISOString(),
    elapsedSeconds: round(elapsedSeconds, 3),
    sessions: meta.sessions,
    messages: {
      attempted: c.attempted,
      accepted: c.accepted,
      rejected: c.rejected,
      failed: c.failed,
    },
    recipients: { attempted: c.rcptAttempted, accepted: c.rcptAccepted, rejected: c.rcptRejected },
    connections: {
      opened: c.connectionsOpened,
      established: c.connectionsEstablished,
      refused: c.connectionsRefused,
      perMessage: c.attempted > 0 ? round(c.connectionsOpened / c.attempted, 4) : 0,
    },
    throughput: {
      messagesPerSecond: elapsedSeconds > 0 ? round(c.accepted / elapsedSeconds, 1) : 0,
    },
    latency: {
      transactionMs: summariseHistogram(snapshot.histograms.transaction),
      connectMs: summariseHistogram(snapshot.histograms.connect),
      bannerMs: summariseHistogram(snapshot.histograms.banner),
      ehloMs: summariseHistogram(snapshot.histograms.ehlo),
      envelopeMs: summariseHistogram(snapshot.histograms.envelope),
      dataMs: summariseHistogram(snapshot.histograms.data),
      quitMs: summariseHistogram(snapshot.histograms.quit),
      sessionMs: summariseHistogram(snapshot.histograms.session),
    },
    errors,
    histograms: { ...snapshot.histograms },
  };
  if (meta.sink) result.sink = meta.sink;
  return result;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
