import {
  CLASS_PHASES,
  type ClassPhase,
  type HistogramName,
  type RunStats,
} from "../../src/stats/collector.js";

/**
 * One latency into any of the run's histograms, through the verb the client uses for it: a
 * transaction comes with an accepted message (of class 0), envelope and data with recordPhase.
 */
export function recordLatency(stats: RunStats, name: HistogramName, ms: number): void {
  if (name === "transaction") {
    stats.messageStarted(1);
    stats.messageSettled(0, "accepted", ms);
  } else if ((CLASS_PHASES as readonly string[]).includes(name)) {
    stats.recordPhase(0, name as ClassPhase, ms);
  } else stats.record(name as Exclude<HistogramName, "transaction" | ClassPhase>, ms);
}
