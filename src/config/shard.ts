/**
 * One run spread over machines: `--shard I/N` (or `auto/N` in a Kubernetes Indexed Job) and
 * `--start-at TIME`. Shards count from 0, as JOB_COMPLETION_INDEX does.
 *
 * How a run's load is split, so that the shards together offer exactly the unsharded run:
 * - sessions (and any other whole count without an order) as k6's execution segments split
 *   them: shard i of N takes round(v·(i+1)/N) − round(v·i/N), see shardCount;
 * - messages are striped: message k belongs to shard k mod N, so shard i sends the messages
 *   i, i+N, i+2N, … (stripeCount of them) and, in the open model, each at its intended time in
 *   the unsharded schedule. The two rules differ only in which shards get a remainder; the
 *   stripe is what keeps sequence numbers unique and the schedule whole;
 * - the arrival rate: shard i offers 1/N of it, by taking every N-th arrival.
 */
import { UsageError } from "../usage/usage-error.js";

export interface Shard {
  /** This shard, 0 … count−1. */
  readonly index: number;
  /** Shards the run is split into. */
  readonly count: number;
}

/** Set by Kubernetes in every pod of an Indexed Job: the pod's completion index. */
export const SHARD_INDEX_ENV = "JOB_COMPLETION_INDEX";

/** More shards than this is a typo, not a fleet. */
const MAX_SHARDS = 10_000;

/** `I/N` or `auto/N` (I from JOB_COMPLETION_INDEX in `env`). */
export function parseShard(raw: unknown, env: NodeJS.ProcessEnv = process.env): Shard {
  const text = String(raw).trim();
  const match = /^(auto|\d+)\/(\d+)$/.exec(text);
  if (!match) {
    throw new UsageError(
      "--shard",
      `"${text}" is not I/N or auto/N; give e.g. --shard 0/4 (shards count from 0)`,
    );
  }
  const count = Number(match[2]);
  if (count < 1 || count > MAX_SHARDS) {
    throw new UsageError("--shard", `${count} shards is out of range; give 1 to ${MAX_SHARDS}`);
  }
  if (match[1] !== "auto") return Object.freeze({ index: checkIndex(match[1], count), count });
  const fromEnv = env[SHARD_INDEX_ENV];
  if (fromEnv === undefined || fromEnv === "") {
    throw new UsageError(
      "--shard",
      `auto/${count} takes the shard from ${SHARD_INDEX_ENV}, which is not set; ` +
        `run in a Kubernetes Indexed Job or give the shard, e.g. --shard 0/${count}`,
    );
  }
  if (!/^\d+$/.test(fromEnv)) {
    throw new UsageError(
      "--shard",
      `${SHARD_INDEX_ENV}="${fromEnv}" is not a shard index; give the shard, e.g. --shard 0/${count}`,
    );
  }
  return Object.freeze({ index: checkIndex(fromEnv, count, SHARD_INDEX_ENV), count });
}

function checkIndex(text: string, count: number, source = "shard"): number {
  const index = Number(text);
  if (index >= count) {
    throw new UsageError(
      "--shard",
      `${source} ${index} is out of range for ${count} shards; give 0 to ${count - 1} (shards count from 0)`,
    );
  }
  return index;
}

/**
 * Shard i's part of a whole count v, as k6's execution segments cut it: round(v·(i+1)/N) −
 * round(v·i/N). The parts add up to v exactly (the sum telescopes); an infinite v stays infinite.
 */
export function shardCount(v: number, i: number, n: number): number {
  if (!Number.isFinite(v)) return v;
  return Math.round((v * (i + 1)) / n) - Math.round((v * i) / n);
}

/** How many of the messages 0 … v−1 are ≡ i (mod n): shard i's stripe. Infinite stays infinite. */
export function stripeCount(v: number, i: number, n: number): number {
  if (!Number.isFinite(v)) return v;
  return Math.floor(v / n) + (i < v % n ? 1 : 0);
}

/**
 * Refuses a split that leaves a shard idle: every shard needs a session, and with -m a message.
 * (The lead calls this where the run's config is built, with the checked -s and -m.)
 */
export function checkShardable(shard: Shard, sessions: number, messages: number): void {
  const n = shard.count;
  if (sessions < n) {
    throw new UsageError(
      "--shard",
      `${n} shards need at least ${n} sessions (-s ${sessions}); give -s ${n} or more, or fewer shards`,
    );
  }
  if (messages < n) {
    throw new UsageError(
      "--shard",
      `${n} shards need at least ${n} messages (-m ${messages}); give -m ${n} or more, or fewer shards`,
    );
  }
}

/** --shard and --start-at; every shard needs a session and, with -m, a message. */
export function parseSharding(
  raw: { shard?: unknown; startAt?: unknown },
  sessions: number,
  messages: number,
): { shard: Shard | null; startAt: number | null } {
  const shard = raw.shard === undefined ? null : parseShard(raw.shard);
  if (shard) checkShardable(shard, sessions, messages);
  return { shard, startAt: raw.startAt === undefined ? null : parseStartAt(raw.startAt) };
}

/** Epoch seconds given in milliseconds (13 digits) would be after the year 5000: a slip. */
const MAX_EPOCH_SECONDS = 1e11;

const ISO_WITH_ZONE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * `--start-at TIME`: epoch seconds (`1767225600`, fractions allowed) or ISO 8601 with a zone
 * (`2026-01-01T00:00:00Z`, `…+01:00`); a time without a zone would mean something else on each
 * machine. Returns epoch milliseconds. A time already past is not an error here: the shard
 * starts at once and its result records how late.
 */
export function parseStartAt(raw: unknown): number {
  const text = String(raw).trim();
  const fix = "give epoch seconds or ISO 8601 with a zone, e.g. 2026-01-01T12:00:00Z";
  if (/^\d+(\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    if (seconds >= MAX_EPOCH_SECONDS) {
      throw new UsageError("--start-at", `${text} looks like milliseconds; ${fix}`);
    }
    return Math.round(seconds * 1000);
  }
  const match = ISO_WITH_ZONE.exec(text);
  if (!match) {
    const zoneless = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/i.test(text);
    throw new UsageError(
      "--start-at",
      `"${text}" ${zoneless ? "has no zone" : "is not a time"}; ${fix}`,
    );
  }
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((f) => Number(f ?? 0));
  // Date.parse rolls 2026-02-30 over into March; a calendar slip is an error, not a time.
  const fields = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const ms = Date.parse(text);
  if (
    Number.isNaN(ms) ||
    fields.getUTCMonth() !== month - 1 ||
    fields.getUTCDate() !== day ||
    fields.getUTCHours() !== hour
  ) {
    throw new UsageError("--start-at", `"${text}" is not a calendar time; ${fix}`);
  }
  return ms;
}
