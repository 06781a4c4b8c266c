/**
 * Before shards merge: are these the N shards of one run? A missing or doubled shard, shards
 * of different splits, a different load (configuration hash) or mixed modes would make a merged
 * figure that no run produced; each is refused with one line naming the problem and the files.
 */
import type { Mode } from "./result.js";
import type { ShardHeader } from "./shard-header.js";

export type { ShardHeader } from "./shard-header.js";

/** One result to merge: the file it came from, its mode and its shard header, if any. */
export interface ShardInput {
  file: string;
  mode: Mode;
  shard?: ShardHeader | null;
}

export interface ShardLateness {
  index: number;
  file: string;
  host: string;
  startLatenessMs: number | null;
}

export interface ShardSummary {
  /** N; 0 when none of the results is a shard (a split made by hand, merged unchecked). */
  count: number;
  /** Shards in index order. */
  shards: ShardLateness[];
  /** The latest starter against --start-at, or null without --start-at. */
  latest: ShardLateness | null;
  /** Latest clockStart − earliest clockStart, ms. */
  startSpreadMs: number;
  /** A shard that started after another had ended: the shards did not offer load together. */
  disjoint: { early: ShardLateness; late: ShardLateness } | null;
}

export class ShardCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShardCheckError";
  }
}

/** "a.json, b.json ran reuse; c.json ran per-message": files grouped by a value they disagree on. */
function grouped<T extends ShardInput>(inputs: readonly T[], value: (input: T) => string): string {
  const groups = new Map<string, string[]>();
  for (const input of inputs) {
    const key = value(input);
    groups.set(key, [...(groups.get(key) ?? []), input.file]);
  }
  return [...groups].map(([key, files]) => `${files.join(", ")} ${key}`).join("; ");
}

/** The hash as people compare it by eye. */
function shortHash(hash: string): string {
  return hash.replace(/^sha256:/, "").slice(0, 12);
}

/**
 * Checks that `inputs` are exactly the shards 0 … N−1 of one run and summarises how they
 * started; throws ShardCheckError otherwise. Results without any shard header pass unchecked.
 */
export function checkShards(inputs: readonly ShardInput[]): ShardSummary {
  if (new Set(inputs.map((i) => i.mode)).size > 1) {
    throw new ShardCheckError(`mixed modes: ${grouped(inputs, (i) => `ran ${i.mode}`)}`);
  }
  const unsharded = inputs.filter((i) => !i.shard);
  if (unsharded.length === inputs.length) {
    return { count: 0, shards: [], latest: null, startSpreadMs: 0, disjoint: null };
  }
  if (unsharded.length > 0) {
    const files = unsharded.map((i) => i.file).join(", ");
    throw new ShardCheckError(
      `not a shard (ran without --shard): ${files}; merge shards of one run`,
    );
  }
  const shards = inputs as readonly (ShardInput & { shard: ShardHeader })[];
  if (new Set(shards.map((i) => i.shard.count)).size > 1) {
    const split = grouped(shards, (i) => `split ${i.shard.count} ways`);
    throw new ShardCheckError(`shards of different splits: ${split}`);
  }
  const count = shards[0].shard.count;
  const byIndex = new Map<number, string[]>();
  for (const { file, shard } of shards)
    byIndex.set(shard.index, [...(byIndex.get(shard.index) ?? []), file]);
  for (const [index, files] of [...byIndex].sort((a, b) => a[0] - b[0])) {
    if (files.length > 1)
      throw new ShardCheckError(`shard ${index}/${count} twice: ${files.join(", ")}`);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    const given = shards.map((i) => `${i.file} ${i.shard.index}/${count}`).join(", ");
    const names = missing.map((i) => `${i}/${count}`).join(", ");
    throw new ShardCheckError(
      `shard${missing.length > 1 ? "s" : ""} ${names} missing (given: ${given})`,
    );
  }
  if (new Set(shards.map((i) => i.shard.configHash)).size > 1) {
    const runs = grouped(shards, (i) => `ran ${shortHash(i.shard.configHash)}`);
    throw new ShardCheckError(
      `configuration differs: ${runs}; the options that define the load must match`,
    );
  }
  return summarise(shards);
}

function summarise(inputs: readonly (ShardInput & { shard: ShardHeader })[]): ShardSummary {
  const ordered = [...inputs].sort((a, b) => a.shard.index - b.shard.index);
  const shards = ordered.map(({ file, shard }) => ({
    index: shard.index,
    file,
    host: shard.host,
    startLatenessMs: shard.startLatenessMs,
  }));
  const timed = shards.filter((s) => s.startLatenessMs !== null);
  const latest = timed.reduce<ShardLateness | null>(
    (a, s) => (a === null || (s.startLatenessMs ?? 0) > (a.startLatenessMs ?? 0) ? s : a),
    null,
  );
  const starts = ordered.map((i) => Date.parse(i.shard.clockStart));
  const ends = ordered.map((i) => Date.parse(i.shard.clockEnd));
  const first = starts.indexOf(Math.min(...starts));
  const last = starts.indexOf(Math.max(...starts));
  const firstEnd = ends.indexOf(Math.min(...ends));
  return {
    count: shards.length,
    shards,
    latest,
    startSpreadMs: starts[last] - starts[first],
    disjoint:
      starts[last] > ends[firstEnd] ? { early: shards[firstEnd], late: shards[last] } : null,
  };
}

/**
 * One line for the merged report: "4 shards started 3–41 ms after --start-at (latest: shard 2
 * on node-b)", and a warning when a shard began after another had finished.
 */
export function describeShardStarts(summary: ShardSummary): string {
  if (summary.count === 0) return "";
  const parts: string[] = [];
  if (summary.latest) {
    const late = summary.shards.map((s) => s.startLatenessMs ?? 0);
    const { index, host } = summary.latest;
    parts.push(
      `${summary.count} shards started ${Math.round(Math.min(...late))}–${Math.round(Math.max(...late))} ms ` +
        `after --start-at (latest: shard ${index} on ${host})`,
    );
  } else {
    parts.push(`${summary.count} shards started within ${Math.round(summary.startSpreadMs)} ms`);
  }
  if (summary.disjoint) {
    const { early, late } = summary.disjoint;
    parts.push(
      `shard ${late.index} (${late.file}) started after shard ${early.index} (${early.file}) ` +
        "had ended: the merged rate is not a rate they offered together",
    );
  }
  return parts.join("; ");
}
