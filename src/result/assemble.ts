/**
 * The one assembly of a run's Result: the load's plain parts (the threads' counts and their
 * own load, the sink's count, the delivery join, the ledger, the message files) in, the whole
 * document out, verdicts and series annotation included. Nothing sets a Result field after it.
 */

import type { StatsSnapshot } from "../stats/collector.js";
import type { ThreadLoad } from "../stats/generator-load.js";
import type { StartLatenessSnapshot } from "../stats/start-lateness.js";
import { annotatedSeries, generatorResult } from "./generator-verdict.js";
import { outcomeVerdict } from "./outcome-verdict.js";
import type { Result, ShardHeader } from "./result.js";
import { buildResult, type RunMeta } from "./summarise.js";

/** What a load leaves, as plain data. */
export interface ResultParts {
  /** The threads' counts, merged. */
  stats: StatsSnapshot;
  /**
   * The generator's own load, and in the open model its start lateness with the tightest
   * arrival interval of the run (at its highest rate).
   */
  generator?: {
    threads: readonly ThreadLoad[];
    open: { arrivalIntervalMs: number; lateness: StartLatenessSnapshot } | null;
  };
  /** A run with --shard or --start-at: its header. */
  shard?: ShardHeader | null;
  /** The message files the run sent from. */
  sources?: NonNullable<Result["sources"]>;
  /** The embedded sink's own count (a self-test). */
  sink?: Result["sink"];
  /** --receive: the join of what the gateway relayed. */
  delivery?: Result["delivery"];
  /** --receive elsewhere: the accepted messages, for `report --arrivals`. */
  acceptLedger?: Result["acceptLedger"];
}

/**
 * The Result of a run. Its keys keep the order every saved result has: the summary, then
 * generator, shard, sources, sink, delivery, acceptLedger.
 */
export function assembleResult(parts: ResultParts, meta: RunMeta): Result {
  const summary = buildResult(parts.stats, meta);
  const generator = parts.generator;
  const dropped = summary.messages.dropped;
  const result: Result = {
    ...summary,
    ...(generator
      ? {
          generator: generatorResult(
            generator.threads,
            generator.open && { ...generator.open, dropped },
          ),
        }
      : {}),
    ...(parts.shard ? { shard: parts.shard } : {}),
    ...(parts.sources && parts.sources.length > 0 ? { sources: parts.sources } : {}),
    ...(parts.sink ? { sink: parts.sink } : {}),
    ...(parts.delivery ? { delivery: parts.delivery } : {}),
    ...(parts.acceptLedger ? { acceptLedger: parts.acceptLedger } : {}),
  };
  if (!result.generator) return result;
  // The outcome's verdict reads the whole summary; each refinement is a new section, in place.
  const judged: Result = { ...result, generator: outcomeVerdict(result) };
  return { ...judged, series: annotatedSeries(judged) };
}

/** What the command concludes of a finished run, after the assembly. */
export interface Conclusion {
  /** The signal that stopped the run (Ctrl-C, TERM). */
  stoppedBy?: Result["stoppedBy"] | null;
  /** --repeat: the spread over the runs. */
  repeat?: Result["repeat"];
  /** The thresholds evaluated against the run. */
  thresholds?: Result["thresholds"];
}

/**
 * The Result with the command's conclusions, a new document: they close it, in this order
 * (stoppedBy, repeat, thresholds), whichever the command reaches first.
 */
export function concluded(result: Result, conclusion: Conclusion): Result {
  const { stoppedBy, repeat, thresholds, ...rest } = result;
  const by = conclusion.stoppedBy ?? stoppedBy;
  const spread = conclusion.repeat ?? repeat;
  const judged = conclusion.thresholds ?? thresholds;
  return {
    ...rest,
    ...(by ? { stoppedBy: by } : {}),
    ...(spread ? { repeat: spread } : {}),
    ...(judged ? { thresholds: judged } : {}),
  };
}
