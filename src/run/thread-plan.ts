/**
 * A machine shard's load and its worker threads', composed: shard i of N sends the messages
 * i, i+N, i+2N, …; its W workers split that stripe again as splitOverThreads splits a whole run, so
 * worker w of shard i sends the sequence numbers i + N·(w + W·j) for j = 0, 1, 2, …. Over all
 * shards and workers these are 0 … messages−1, each once.
 */
import { hostname } from "node:os";
import { type Shard, shardCount, stripeCount } from "../config/shard.js";
import type { ShardHeader } from "../result/result.js";
import type { ThreadShare } from "./thread-run.js";
import type { SeqSpace } from "./work.js";

export { StripedArrivals } from "./work.js";

/**
 * Shares as even as whole numbers allow: worker i gets floor or ceil of sessions/N and of
 * messages/N, an equal part of the arrival rate, and the sequence numbers i, i+N, i+2N, …, so
 * that together the workers send exactly 0 … messages−1 (class shares stay exact).
 */
export function splitOverThreads(
  sessions: number,
  messages: number,
  workers: number,
): ThreadShare[] {
  const n = Math.max(1, Math.min(workers, sessions, messages));
  const shares: ThreadShare[] = [];
  for (let i = 0; i < n; i++) {
    const s = Math.floor(sessions / n) + (i < sessions % n ? 1 : 0);
    const m = Number.isFinite(messages)
      ? Math.floor(messages / n) + (i < messages % n ? 1 : 0)
      : messages;
    shares.push({ sessions: s, messages: m, seqBase: i, stride: n, rateShare: 1 / n });
  }
  return shares;
}

/** The whole run as one shard: what a run without --shard is. */
export const WHOLE_RUN: Shard = Object.freeze({ index: 0, count: 1 });

/** Shard i's part of the run, as one share: its sessions, its stripe and 1/N of the rate. */
export function shardShare(sessions: number, messages: number, shard: Shard): ThreadShare {
  const { index, count } = shard;
  return {
    sessions: shardCount(sessions, index, count),
    messages: stripeCount(messages, index, count),
    seqBase: index,
    stride: count,
    rateShare: 1 / count,
  };
}

/**
 * Numbers inside numbers: `inner` numbers an outer space's own 0, 1, 2, …, so its j-th number
 * is outer.seqBase + outer.stride · (inner.seqBase + inner.stride · j).
 */
export function composeSeqSpace(outer: SeqSpace, inner: SeqSpace): SeqSpace {
  return {
    seqBase: outer.seqBase + outer.stride * inner.seqBase,
    stride: outer.stride * inner.stride,
  };
}

/** The shares of this machine's worker threads, numbered within the whole sharded run. */
export function threadShares(
  sessions: number,
  messages: number,
  shard: Shard,
  workers: number,
): ThreadShare[] {
  const machine = shardShare(sessions, messages, shard);
  return splitOverThreads(machine.sessions, machine.messages, workers).map((worker) => ({
    ...worker,
    ...composeSeqSpace(machine, worker),
    rateShare: machine.rateShare * worker.rateShare,
  }));
}

/** What a run's config says about its place in a sharded run. */
export interface ShardSettings {
  readonly shard: Shard | null;
  readonly startAt: number | null;
  readonly configHash: string;
}

/**
 * The header a run with --shard or --start-at records (Result.shard), from its first and last
 * event (epoch ms, as the Result's startedAt and elapsedSeconds); null without either option.
 */
export function shardHeader(
  settings: ShardSettings,
  firstEventMs: number,
  lastEventMs: number,
): ShardHeader | null {
  const { shard, startAt } = settings;
  if (!shard && startAt === null) return null;
  // A run that sent nothing has no first event; Result.startedAt then reads the clock too.
  const start = firstEventMs || Date.now();
  return {
    index: (shard ?? WHOLE_RUN).index,
    count: (shard ?? WHOLE_RUN).count,
    configHash: settings.configHash,
    host: hostname(),
    clockStart: new Date(start).toISOString(),
    clockEnd: new Date(Math.max(start, lastEventMs)).toISOString(),
    startAt: startAt === null ? null : new Date(startAt).toISOString(),
    startLatenessMs: startAt === null ? null : Math.round((start - startAt) * 10) / 10,
  };
}
