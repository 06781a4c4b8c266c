/**
 * The Result's TLS handshake figures, and the way between them and the threads' counts
 * (stats/tls-tally.ts): the figures of a merged snapshot, and a saved Result's figures back as a
 * snapshot, so that shards merge from their saved results.
 */
import type { Static } from "@sinclair/typebox";
import { summariseHistogram } from "../stats/histogram.js";
import type { TlsSnapshot } from "../stats/tls-tally.js";
import type { TlsSection } from "./schema/tls.js";

/** The Result's `tls`: present when the run made at least one TLS handshake. */
export type TlsResult = Static<typeof TlsSection>;

/** The Result's figures from the merged snapshot. */
export function tlsResult(snap: TlsSnapshot): TlsResult {
  const seen = Object.entries(snap.seen)
    .map(([key, count]) => {
      const space = key.indexOf(" ");
      return { version: key.slice(0, space), cipher: key.slice(space + 1), count };
    })
    .sort((a, b) => b.count - a.count || a.version.localeCompare(b.version));
  return {
    full: snap.full,
    resumed: snap.resumed,
    fullMs: summariseHistogram(snap.fullHistogram),
    resumedMs: summariseHistogram(snap.resumedHistogram),
    seen,
  };
}

/** Keys under Result.histograms that keep the two kinds' histograms, for merging saved results. */
export const TLS_HISTOGRAM_KEYS = { full: "tls:full", resumed: "tls:resumed" } as const;

/** A saved Result's TLS figures back as a snapshot (shards merge from their saved results). */
export function tlsSnapshotOfResult(
  tls: TlsResult | undefined,
  histograms: Record<string, string>,
  empty: string,
): TlsSnapshot | undefined {
  if (!tls) return undefined;
  const seen: Record<string, number> = {};
  for (const s of tls.seen) seen[`${s.version} ${s.cipher}`] = s.count;
  return {
    full: tls.full,
    resumed: tls.resumed,
    fullHistogram: histograms[TLS_HISTOGRAM_KEYS.full] ?? empty,
    resumedHistogram: histograms[TLS_HISTOGRAM_KEYS.resumed] ?? empty,
    seen,
  };
}
