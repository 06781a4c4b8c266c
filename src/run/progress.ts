/**
 * The running totals a run reports once a second: what each share counts and sends to the main
 * thread, and what the progress line and --abort-on-fail read.
 */
import type { LatencySummary } from "../result/result.js";
import type { SeriesPoint } from "../stats/series.js";

/** Running totals: what a share counts and what the run reports, once a second. */
export interface ProgressCounts {
  attempted: number;
  accepted: number;
  rejected: number;
  failed: number;
  /** Sent whole, no final reply (Result.messages.unconfirmed). */
  unconfirmed: number;
  dropped: number;
  connectionsOpened: number;
  /** Connections that never reached a banner: refused, timed out, reset (Result.connections.refused). */
  connectionsRefused: number;
  openSessions: number;
}

/** Every running total at zero: where a sum of shares, or of intervals, starts. */
export function zeroProgressCounts(): ProgressCounts {
  return {
    attempted: 0,
    accepted: 0,
    rejected: 0,
    failed: 0,
    unconfirmed: 0,
    dropped: 0,
    connectionsOpened: 0,
    connectionsRefused: 0,
    openSessions: 0,
  };
}

/**
 * What one share reports: its totals and its latencies as encoded histograms, which merge
 * across workers (percentiles do not add up). The run turns them into a Progress.
 */
export interface ThreadProgress extends ProgressCounts {
  /** The last whole interval's transaction latencies, or null before the first. */
  recentHistogram: string | null;
  /** Transaction latencies of the share so far. */
  transactionHistogram: string;
  /** Time-series intervals this share closed since its previous report, in order. */
  points: SeriesPoint[];
}

/** What the run reports once a second (progress line, --abort-on-fail). */
export interface Progress extends ProgressCounts {
  /** p99 of the last whole interval's transaction latencies, ms (0 when none). */
  recentP99Ms: number;
  /** Transaction latency of the run so far: what --abort-on-fail judges latency against. */
  transactionMs: LatencySummary;
  /**
   * Time-series intervals complete across every share since the previous report, in order,
   * as the final Result's series will hold them (--out streams them).
   */
  points: SeriesPoint[];
  /** Through a gateway (--receive): accepted messages that have not yet come out of it. */
  insideGateway?: number;
}
