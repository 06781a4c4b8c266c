/**
 * Runs sharded across machines, merged: each shard's saved Result carries its counters, error
 * rows and encoded histograms, so the shards merge as if one generator had counted everything.
 */

import {
  HISTOGRAM_NAMES,
  type HistogramName,
  newHistogramEncoded,
  type StatsSnapshot,
} from "../stats/collector.js";
import { outcomesOf } from "../stats/counts.js";
import { accountingCounters } from "./accounting.js";
import { assembleResult } from "./assemble.js";
import { mergeGenerator } from "./generator-merge.js";
import { mergeSnapshots } from "./merge-snapshots.js";
import type { Result } from "./result.js";
import { checkShards, ShardCheckError, type ShardSummary } from "./shard-check.js";
import { seriesSnapshot } from "./summarise.js";
import { tlsSnapshotOfResult } from "./tls-result.js";

/** A saved Result turned back into the snapshot it was summarised from. */
export function snapshotOfResult(r: Result): StatsSnapshot {
  const empty = newHistogramEncoded();
  const histograms = {} as Record<HistogramName, string>;
  for (const name of HISTOGRAM_NAMES) histograms[name] = r.histograms[name] ?? empty;
  const first = Date.parse(r.startedAt);
  return {
    counters: {
      attempted: r.messages.attempted,
      ...outcomesOf(r.messages),
      dropped: r.messages.dropped ?? 0,
      rcptAttempted: r.recipients.attempted,
      rcptAccepted: r.recipients.accepted,
      rcptRejected: r.recipients.rejected,
      connectionsOpened: r.connections.opened,
      connectionsEstablished: r.connections.established,
      connectionsRefused: r.connections.refused,
      reconnects: r.connections.reconnects ?? 0,
      ...accountingCounters(r.accounting),
    },
    errors: r.errors.map(({ reply, enhanced, phase, text, count }) => ({
      reply,
      enhanced,
      phase,
      text,
      count,
    })),
    histograms,
    firstEventMs: first,
    lastEventMs: first + r.elapsedSeconds * 1000,
    classes: (r.classes ?? []).map((c) => ({
      name: c.name,
      ...outcomesOf(c),
      histogram: r.histograms[`class:${c.name}`] ?? empty,
    })),
    series: seriesSnapshot(r.series ?? { intervalMs: 1000, points: [] }),
    tls: tlsSnapshotOfResult(r.tls, r.histograms, empty),
    warnings: r.warnings,
  };
}

/**
 * One Result from several shards of the same run: counts add, histograms and error rows merge,
 * the time series aligns on epoch time, elapsed time spans the earliest start to the latest end.
 * The shards must share mode and series interval.
 */
export function mergeResults(shards: readonly Result[]): Result {
  const modes = new Set(shards.map((r) => r.mode));
  if (modes.size > 1) throw new Error(`shards of different modes: ${[...modes].join(", ")}`);
  const intervals = new Set(shards.map((r) => r.series?.intervalMs ?? 1000));
  if (intervals.size > 1) {
    throw new Error(`shards with different series intervals: ${[...intervals].join(", ")} ms`);
  }
  const merged = mergeSnapshots(shards.map(snapshotOfResult));
  const unique = (values: string[]) => [...new Set(values)].join(",");
  const ledgers = shards.flatMap((r) => r.acceptLedger ?? []);
  return assembleResult(
    {
      stats: merged,
      generator: mergeGenerator(shards, shards.map(partLabel)),
      sink: mergedSink(shards),
      acceptLedger: ledgers.length > 0 ? ledgers : undefined,
    },
    {
      mode: shards[0].mode,
      target: unique(shards.map((r) => r.target)),
      runId: unique(shards.map((r) => r.runId)),
      sessions: shards.reduce((n, r) => n + r.sessions, 0),
      apdexMs: shards[0].apdex?.satisfiedMs,
    },
  );
}

/** The sinks' counts added, when every shard has one. */
function mergedSink(shards: readonly Result[]): Result["sink"] {
  if (!shards.every((r) => r.sink)) return undefined;
  const total = (figure: (sink: NonNullable<Result["sink"]>) => number | undefined) =>
    shards.reduce((n, r) => n + (r.sink ? (figure(r.sink) ?? 0) : 0), 0);
  return {
    messagesAccepted: total((s) => s.messagesAccepted),
    sessions: total((s) => s.sessions),
    // Older saved results lack the emulated gateway's refusals; a total of some shards is none.
    ...(shards.every((r) => r.sink?.connectionsRefused !== undefined)
      ? { connectionsRefused: total((s) => s.connectionsRefused) }
      : {}),
  };
}

/** How a merged part names its generator threads: "shard 2/4" (--shard I/N), else "result 3". */
function partLabel(part: Result, position: number): string {
  return part.shard && part.shard.count > 1
    ? `shard ${part.shard.index}/${part.shard.count}`
    : `result ${position + 1}`;
}

/** One saved result to merge, with the file it came from (named in any refusal). */
export interface MergeInput {
  file: string;
  result: Result;
}

/**
 * Each part of a run merges once: two results of one run id and one shard (or both without
 * --shard) are the same run given twice, whose counts would double. ShardCheckError naming both.
 */
export function checkOnce(inputs: readonly MergeInput[]): void {
  const seen = new Map<string, string>();
  for (const { file, result } of inputs) {
    const shard = result.shard ? `, shard ${result.shard.index}/${result.shard.count}` : "";
    const key = `run ${result.runId}${shard}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new ShardCheckError(
        `${file} and ${first} are the same result (${key}) given twice; give each run or shard once`,
      );
    }
    seen.set(key, file);
  }
}

/**
 * The checked merge of a sharded run: checkShards first (a missing or doubled shard, shards of
 * different splits or loads, mixed modes: ShardCheckError), then mergeResults; the merged
 * result keeps each shard's header in `shards`.
 */
export function mergeShards(inputs: readonly MergeInput[]): {
  merged: Result;
  starts: ShardSummary;
} {
  checkOnce(inputs);
  const starts = checkShards(
    inputs.map(({ file, result }) => ({ file, mode: result.mode, shard: result.shard })),
  );
  const merged = mergeResults(inputs.map((i) => i.result));
  const headers = inputs.flatMap((i) => (i.result.shard ? [i.result.shard] : []));
  if (headers.length === 0) return { merged, starts };
  return { merged: { ...merged, shards: headers.sort((a, b) => a.index - b.index) }, starts };
}
