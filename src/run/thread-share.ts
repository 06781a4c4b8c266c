/**
 * A share of a run, as one thread drives it (thread-run.ts): what it is given, the handle on it while
 * it runs, and what it hands back to be merged with the other threads' shares.
 */
import type { StatsSnapshot } from "../stats/collector.js";
import type { ThreadLoad } from "../stats/generator-load.js";
import type { StartLatenessSnapshot } from "../stats/start-lateness.js";
import type { SeqSpace } from "./work.js";

export interface ThreadShare extends SeqSpace {
  /** Session slots this share keeps busy. */
  readonly sessions: number;
  /** Messages this share delivers (Infinity: until the duration ends). */
  readonly messages: number;
  /** This share's fraction of the run's arrival rate (open model). */
  readonly rateShare: number;
}

/** What one share hands back: its counts, its thread's own load, and its start lateness. */
export interface ThreadOutcome {
  stats: StatsSnapshot;
  /** One row per generator thread that ran the share (this thread; the run adds its main). */
  threads: ThreadLoad[];
  /** Open model: how late arrivals started against the schedule; null in the closed model. */
  lateness: StartLatenessSnapshot | null;
}

export interface RunningLoad {
  result: Promise<ThreadOutcome>;
  /** Ends every session now. */
  stop: () => void;
  /** Starts no more messages; in-flight ones get the grace period. */
  drain: () => void;
}
