/**
 * The Result's `shard` (and, merged, `shards[]`): a part of the Result type, defined here, as
 * docs/result.md's result fields repeat it.
 */

/**
 * What one shard of a run spread over machines records about itself (the Result's `shard`), so
 * that `merge` can check the shards belong together (stats/shard-check.ts).
 */
export interface ShardHeader {
  /** This shard, 0 … count−1 (--shard I/N); 0 of 1 for a run with --start-at alone. */
  index: number;
  /** Shards the run was split into (N). */
  count: number;
  /**
   * `sha256:` and 64 hex digits over the options that define the load (config/config-hash.ts:
   * every run option but the shard, start time, outputs, verbosity, --workers, --source and the
   * AUTH password): equal on every shard of one run.
   */
  configHash: string;
  /** The machine's host name. */
  host: string;
  /**
   * This machine's clock at the shard's first connect attempt (= startedAt) and at its last
   * reply or failure (= startedAt + elapsedSeconds), ISO 8601 with milliseconds.
   */
  clockStart: string;
  clockEnd: string;
  /** --start-at as asked, ISO 8601; null without --start-at. */
  startAt: string | null;
  /**
   * Milliseconds the load started after startAt (clockStart − startAt); null without it.
   * Negative only when the run was stopped (Ctrl-C) before it started, having sent nothing.
   */
  startLatenessMs: number | null;
}
