/** A latency distribution as the Result gives it (the Result type, stats/result.ts). */
export interface LatencySummary {
  /** Number of samples. */
  count: number;
  /** Milliseconds, microsecond resolution. */
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}
