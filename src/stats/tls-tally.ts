/**
 * TLS handshakes counted by kind: full (a new session negotiated) or resumed (a session ticket
 * or session ID the server accepted), each kind's handshake latency, and the protocol version and
 * cipher seen. A resumed handshake skips the certificate and the key exchange's signature, so a
 * run that resumes measures a cheaper connection than one that does not: the report says which.
 */

import { addEncoded, LatencyRecorder } from "./histogram.js";

/** What a thread hands back: counts, encoded histograms (µs), and "version cipher" → count. */
export interface TlsSnapshot {
  full: number;
  resumed: number;
  fullHistogram: string;
  resumedHistogram: string;
  seen: Record<string, number>;
}

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
