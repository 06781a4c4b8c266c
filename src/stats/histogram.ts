/**
 * The run's latency histograms: HDR (hdr-histogram-js, through stats/hdr-codec.ts) in
 * microseconds, and the recorder the hot path writes into.
 */
import type { JsHistogram } from "hdr-histogram-js";
import { buildHistogram, countsOf, decodeCompressed, encodeCompressed } from "./hdr-codec.js";

export type Histogram = JsHistogram;

/**
 * A latency distribution in milliseconds (µs resolution): what a histogram is summarised into.
 * The Result's latency summary is defined with its descriptions in result/schema/kinds.ts and
 * checked against this shape there (result/latency-summary.ts).
 */
export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

/** One hour in microseconds: the longest latency a histogram tracks before it resizes. */
const HIGHEST_TRACKABLE_US = 3_600_000_000;

export function newHistogram(): Histogram {
  return buildHistogram(1, HIGHEST_TRACKABLE_US, 3);
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
    return encodeCompressed(this.read());
  }

  /**
   * encoded(), and the summary summariseHistogram() will give of it taken from the histogram at
   * hand rather than from a decode of the encoding: a run's end summarises every histogram it
   * encodes, and decoding a dozen, cold, was a third of the time from its last reply to its exit.
   * The figures are the decode's (test/histogram.test.ts).
   */
  encodedAndSummarised(): string {
    const encoded = this.encoded();
    if (!recentSummaries.has(encoded)) {
      remember(recentSummaries, encoded, summariseAsDecoded(this.histogram), SUMMARIES);
    }
    return encoded;
  }

  /** Forgets every value recorded. */
  reset(): void {
    this.flush();
    this.histogram.reset();
  }

  /**
   * Adds the tally into the histogram's counts: recordValueWithCount for each distinct value,
   * in integer steps (the library takes log2 and pow of each, and checks and updates its
   * totals, minimum and maximum value by value; here once).
   */
  private flush(): void {
    const tally = this.tally;
    if (tally === null || this.high < 0) return;
    const h = this.histogram;
    const counts = countsOf(h);
    const { subBucketHalfCount: half, subBucketHalfCountMagnitude: halfBits, unitMagnitude } = h;
    let total = 0;
    for (let us = this.low; us <= this.high; us++) {
      const count = tally[us];
      if (count === 0) continue;
      // countsArrayIndex(us): the bucket is the power of two above the sub-buckets' range.
      const bucket = Math.max(31 - Math.clz32(us) - halfBits - unitMagnitude, 0);
      counts[((bucket + 1) << halfBits) + (us >>> (bucket + unitMagnitude)) - half] += count;
      total += count;
      tally[us] = 0;
    }
    h.addToTotalCount(total);
    h.updateMinAndMax(this.low);
    h.updateMinAndMax(this.high);
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
  for (const e of encoded) sum.add(decoded(e));
  return encodeCompressed(sum);
}

/** An empty histogram, encoded (a figure a saved result lacks). */
export function newHistogramEncoded(): string {
  return encodeCompressed(newHistogram());
}

/**
 * The last histograms decoded and summarised, by their encoding: a result reads the same one up
 * to four times (a single class's histograms are the run's, Apdex reads each twice), and each
 * decode allocates and walks the counts in code that runs once, cold, at a run's end.
 * Decoded histograms are only read, summaries are handed out as copies.
 */
const recentlyDecoded = new Map<string, Histogram>();
const recentSummaries = new Map<string, LatencySummary>();
/** Decoded histograms hold ≈ 94 KiB each; summaries a few numbers. */
const DECODED = 16;
const SUMMARIES = 64;

function remember<T>(cache: Map<string, T>, key: string, value: T, limit: number): T {
  if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

function decoded(encoded: string): Histogram {
  return (
    recentlyDecoded.get(encoded) ??
    remember(recentlyDecoded, encoded, decodeCompressed(encoded), DECODED)
  );
}

/** Whole microseconds as the milliseconds a LatencySummary holds. */
const ms = (us: number) => Math.round(us) / 1000;

/** Percentiles of an encoded histogram, in milliseconds. */
export function summariseHistogram(encoded: string): LatencySummary {
  const known =
    recentSummaries.get(encoded) ??
    remember(recentSummaries, encoded, summarise(decoded(encoded)), SUMMARIES);
  return { ...known };
}

/**
 * summarise() of this histogram's encoding decoded: the same counts, so the same count, mean and
 * percentiles, and a decode's minimum and maximum, the lowest and highest values of their buckets.
 */
function summariseAsDecoded(h: Histogram): LatencySummary {
  if (h.totalCount === 0) return summarise(h);
  return {
    ...summarise(h, h.highestEquivalentValue(h.maxValue)),
    min: ms(h.lowestEquivalentValue(h.minNonZeroValue)),
  };
}

/** Percentiles of several encoded histograms merged (running totals across workers). */
export function summariseMerged(encoded: readonly (string | null)[]): LatencySummary {
  const merged = newHistogram();
  for (const e of encoded) if (e) merged.add(decoded(e));
  return summarise(merged);
}

/** The percentiles a LatencySummary holds, in the order one walk of the counts reaches them. */
const PERCENTILES = [50, 90, 95, 99] as const;

/**
 * Percentiles of a live histogram, in milliseconds: hdr-histogram-js' figures to the last bit
 * (its mean and getValueAtPercentile, test/histogram.test.ts) from one walk of the counts,
 * where asking it walks them once for the mean and once for each percentile. A run's end
 * summarises a dozen histograms in code that runs once, cold.
 *
 * A percentile is its bucket's highest equivalent value, which can lie above the largest value
 * recorded: each is clamped to `maxUs` (the recorded max, or a decode's), as HdrHistogram's
 * users do, so that no summary shows a p99 above its max.
 */
export function summarise(h: Histogram, maxUs = h.maxValue): LatencySummary {
  if (h.totalCount === 0) {
    return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  }
  const wanted = PERCENTILES.map((p) => countAtPercentile(p, h.totalCount));
  const at = PERCENTILES.map(() => 0);
  let reached = 0;
  // The mean as the library sums it: each slot's median equivalent value times its count. A
  // slot's values are [value, value + size): valueFromIndex and the sizeOfEquivalentValueRange
  // the library computes with pow and log2 a call each, here in integer steps.
  const { subBucketHalfCount: half, subBucketHalfCountMagnitude: halfBits, unitMagnitude } = h;
  let total = 0;
  let seen = 0;
  const counts = countsOf(h);
  for (let i = 0; seen < h.totalCount && i < counts.length; i++) {
    const count = counts[i];
    if (count === 0) continue;
    let bucket = (i >> halfBits) - 1;
    let sub = (i & (half - 1)) + half;
    if (bucket < 0) {
      sub -= half;
      bucket = 0;
    }
    const size = 2 ** (bucket + unitMagnitude);
    const value = sub * size;
    total += (value + Math.floor(size / 2)) * count;
    seen += count;
    while (reached < wanted.length && seen >= wanted[reached]) at[reached++] = value + size - 1;
  }
  return {
    count: h.totalCount,
    min: ms(h.minNonZeroValue),
    mean: ms(total / h.totalCount),
    p50: ms(Math.min(at[0], maxUs)),
    p90: ms(Math.min(at[1], maxUs)),
    p95: ms(Math.min(at[2], maxUs)),
    p99: ms(Math.min(at[3], maxUs)),
    max: ms(maxUs),
  };
}

/**
 * How many of `totalCount` values lie at or below `percentile`, rounded up as
 * getValueAtPercentile rounds it: less one unit in the last place, so that floating point's
 * error cannot skip a count, and at least 1.
 */
function countAtPercentile(percentile: number, totalCount: number): number {
  const fp = (Math.min(percentile, 100) / 100) * totalCount;
  const ulp = 2 ** (Math.floor(Math.log2(fp)) - 52);
  return Math.max(Math.ceil(fp - ulp), 1);
}

/**
 * The fraction of an encoded histogram's samples at or below `ms`, to 1e-6: the largest
 * percentile whose value does not exceed it (HDR resolution, 3 significant digits).
 */
export function fractionAtOrBelow(encoded: string, ms: number): number {
  // The summary (remembered for the encodings a run's end makes) answers the usual case, every
  // sample within `ms`, without a decode: its max is the decode's maxValue, whole µs.
  const summary = summariseHistogram(encoded);
  if (summary.count === 0) return 0;
  const us = ms * 1000;
  if (Math.round(summary.max * 1000) <= us) return 1;
  const h = decoded(encoded);
  if (h.getValueAtPercentile(0) > us) return 0;
  let lo = 0;
  let hi = 100;
  while (hi - lo > 1e-4) {
    const mid = (lo + hi) / 2;
    if (h.getValueAtPercentile(mid) <= us) lo = mid;
    else hi = mid;
  }
  return lo / 100;
}
