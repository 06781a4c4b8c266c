/**
 * The run's latency histograms: HDR (hdr-histogram-js) in microseconds, and the recorder the hot
 * path writes into.
 */
import hdr from "hdr-histogram-js";

export type Histogram = ReturnType<typeof hdr.build>;

/** One hour in microseconds: the longest latency a histogram tracks before it resizes. */
const HIGHEST_TRACKABLE_US = 3_600_000_000;

export function newHistogram(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
  });
}

/**
 * Values below this many µs (65.5 ms) are tallied; larger ones go to the histogram directly. A
 * tally costs 256 KiB, taken on a recorder's first small value.
 */
export const TALLY_LIMIT_US = 1 << 16;

/** A latency in milliseconds (fractional) as the whole microseconds histograms hold, at least 1. */
export function toMicros(ms: number): number {
  return Math.max(Math.round(ms * 1000), 1);
}

/** A tally's counts are Uint32: it is moved into the histogram before any can overflow. */
const MAX_TALLIED = 0xffff_ffff;

/**
 * An HDR histogram with an exact tally in front of it. hdr-histogram-js spends about 120 ns on
 * a recordValue (it takes `log2` and `pow` of every value), and a message records eight latencies;
 * counting a value below TALLY_LIMIT_US is one typed-array increment. The tally moves into the
 * histogram (recordValueWithCount, once per distinct value) whenever the histogram is read, so
 * what is read is exactly the histogram that recording each value would have built.
 */
export class LatencyRecorder {
  private readonly histogram: Histogram = newHistogram();
  private tally: Uint32Array | null = null;
  /** The range of tally indexes that may be non-zero; empty when low > high. */
  private low = TALLY_LIMIT_US;
  private high = -1;
  private tallied = 0;

  /** Records one latency, whole microseconds (at least 1). */
  record(us: number): void {
    if (us >= TALLY_LIMIT_US) {
      this.histogram.recordValue(us);
      return;
    }
    if (this.tally === null) this.tally = new Uint32Array(TALLY_LIMIT_US);
    this.tally[us]++;
    if (us < this.low) this.low = us;
    if (us > this.high) this.high = us;
    if (++this.tallied === MAX_TALLIED) this.flush();
  }

  /** The histogram holding every value recorded so far. */
  read(): Histogram {
    this.flush();
    return this.histogram;
  }

  /** The histogram, encoded to cross threads or land in a result. */
  encoded(): string {
    return hdr.encodeIntoCompressedBase64(this.read());
  }

  /** Forgets every value recorded. */
  reset(): void {
    this.flush();
    this.histogram.reset();
  }

  private flush(): void {
    const tally = this.tally;
    if (tally === null || this.high < 0) return;
    for (let us = this.low; us <= this.high; us++) {
      const count = tally[us];
      if (count === 0) continue;
      this.histogram.recordValueWithCount(us, count);
      tally[us] = 0;
    }
    this.low = TALLY_LIMIT_US;
    this.high = -1;
    this.tallied = 0;
  }
}

/** Encoded histograms added into one. A lone one is returned as it is: decoding and encoding
 * it again would cost about 1 ms and change nothing. */
export function addEncoded(encoded: readonly string[]): string {
  if (encoded.length === 1) return encoded[0];
  const sum = newHistogram();
  for (const e of encoded) sum.add(hdr.decodeFromCompressedBase64(e));
  return hdr.encodeIntoCompressedBase64(sum);
}
