/**
 * The shapes of TLS handshake counts: as a thread hands them back and as the Result gives them.
 * Types only, so that result.ts can name them without importing the recorders (stats/tls-tally.ts).
 */
import type { LatencySummary } from "./latency-summary.js";

/** What a thread hands back: counts, encoded histograms (µs), and "version cipher" → count. */
export interface TlsSnapshot {
  full: number;
  resumed: number;
  fullHistogram: string;
  resumedHistogram: string;
  seen: Record<string, number>;
}

/** The Result's `tls`: present when the run made at least one TLS handshake. */
export interface TlsResult {
  /** Handshakes that negotiated a new session (certificate and key exchange). */
  full: number;
  /** Handshakes the server accepted a session ticket or session ID for (TLS 1.2 or 1.3 PSK). */
  resumed: number;
  /** The `tls` phase latency of full handshakes only. */
  fullMs: LatencySummary;
  /** The `tls` phase latency of resumed handshakes only. */
  resumedMs: LatencySummary;
  /** Protocol version and cipher as negotiated, with how many handshakes each, most first. */
  seen: { version: string; cipher: string; count: number }[];
}
