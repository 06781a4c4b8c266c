/**
 * TLS handshakes counted by kind: full (a new session negotiated) or resumed (a session ticket
 * or session ID the server accepted), each kind's handshake latency, and the protocol version and
 * cipher seen. A resumed handshake skips the certificate and the key exchange's signature, so a
 * run that resumes measures a cheaper connection than one that does not: the report says which.
 */

import type { TlsResult, TlsSnapshot } from "../result/tls-result.js";
import { addEncoded, LatencyRecorder, summariseHistogram } from "./histogram.js";

export type { TlsResult, TlsSnapshot } from "../result/tls-result.js";

/** One thread's TLS handshakes (RunStats.tlsHandshake fills it). */
export class TlsTally {
  full = 0;
  resumed = 0;
  private readonly fullMs = new LatencyRecorder();
  private readonly resumedMs = new LatencyRecorder();
  private readonly seen = new Map<string, number>();
  /** The last version and cipher seen and their key: a run sees one pair, so the key is reused. */
  private lastVersion = "";
  private lastCipher = "";
  private lastKey = "";

  record(resumed: boolean, micros: number, version: string, cipher: string): void {
    if (resumed) {
      this.resumed++;
      this.resumedMs.record(micros);
    } else {
      this.full++;
      this.fullMs.record(micros);
    }
    if (version !== this.lastVersion || cipher !== this.lastCipher) {
      this.lastVersion = version;
      this.lastCipher = cipher;
      this.lastKey = `${version} ${cipher}`;
    }
    const key = this.lastKey;
    this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
  }

  snapshot(): TlsSnapshot | undefined {
    if (this.full + this.resumed === 0) return undefined;
    return {
      full: this.full,
      resumed: this.resumed,
      fullHistogram: this.fullMs.encodedAndSummarised(),
      resumedHistogram: this.resumedMs.encodedAndSummarised(),
      seen: Object.fromEntries(this.seen),
    };
  }
}

/** Several threads' or shards' handshakes as one: counts and histograms add. */
export function mergeTls(parts: readonly (TlsSnapshot | undefined)[]): TlsSnapshot | undefined {
  const present = parts.filter((p): p is TlsSnapshot => p !== undefined);
  if (present.length === 0) return undefined;
  const seen: Record<string, number> = {};
  for (const part of present) {
    for (const [key, count] of Object.entries(part.seen)) seen[key] = (seen[key] ?? 0) + count;
  }
  return {
    full: present.reduce((sum, p) => sum + p.full, 0),
    resumed: present.reduce((sum, p) => sum + p.resumed, 0),
    fullHistogram: addEncoded(present.map((p) => p.fullHistogram)),
    resumedHistogram: addEncoded(present.map((p) => p.resumedHistogram)),
    seen,
  };
}

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
