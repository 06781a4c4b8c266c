/**
 * The shapes of TLS handshake counts: as a thread hands them back and as the Result gives them.
 * Types only, so that result.ts can name them without importing the recorders (stats/tls-tally.ts).
 */
import type { Static } from "@sinclair/typebox";
import type { TlsSection } from "./schema/tls.js";

/** What a thread hands back: counts, encoded histograms (µs), and "version cipher" → count. */
export interface TlsSnapshot {
  full: number;
  resumed: number;
  fullHistogram: string;
  resumedHistogram: string;
  seen: Record<string, number>;
}

/** The Result's `tls`: present when the run made at least one TLS handshake. */
export type TlsResult = Static<typeof TlsSection>;
