/**
 * The latency recorder's tally must be invisible: whatever is read from it is the histogram
 * that recording every value into hdr-histogram-js one by one builds, byte for byte.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import hdr from "hdr-histogram-js";
import { decodeCompressed } from "../src/stats/hdr-codec.js";
import {
  fractionAtOrBelow,
  type Histogram,
  LatencyRecorder,
  newHistogram,
  summarise,
  summariseHistogram,
  TALLY_LIMIT_US,
} from "../src/stats/histogram.js";

/** Values around every edge: 1, the tally's last slot and first value past it, hours. */
function values(count: number): number[] {
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  const out = [1, 2, TALLY_LIMIT_US - 1, TALLY_LIMIT_US, TALLY_LIMIT_US + 1, 3_600_000_000];
  for (let i = 0; i < count; i++) {
    const scale = [10, 1000, 70_000, 10_000_000][i % 4];
    out.push(Math.max(1, Math.round(next() * scale)));
  }
  return out;
}

function direct(recorded: readonly number[]) {
  const h = newHistogram();
  for (const us of recorded) h.recordValue(us);
  return h;
}

describe("LatencyRecorder", () => {
  test("what is read equals recording each value, encoded byte for byte", () => {
    const recorded = values(20_000);
    const recorder = new LatencyRecorder();
    for (const us of recorded) recorder.record(us);
    const expected = direct(recorded);
    const got = recorder.read();
    assert.equal(got.totalCount, recorded.length);
    assert.equal(got.minNonZeroValue, expected.minNonZeroValue);
    assert.equal(got.maxValue, expected.maxValue);
    assert.equal(got.mean, expected.mean);
    assert.equal(got.getValueAtPercentile(99), expected.getValueAtPercentile(99));
    assert.equal(recorder.encoded(), hdr.encodeIntoCompressedBase64(expected));
  });

  test("values recorded after a read join the earlier ones", () => {
    const recorded = values(5000);
    const recorder = new LatencyRecorder();
    const half = recorded.length / 2;
    for (const us of recorded.slice(0, half)) recorder.record(us);
    assert.equal(recorder.read().totalCount, half);
    for (const us of recorded.slice(half)) recorder.record(us);
    assert.equal(recorder.encoded(), hdr.encodeIntoCompressedBase64(direct(recorded)));
  });

  test("reset forgets tallied and direct values alike", () => {
    const recorder = new LatencyRecorder();
    for (const us of values(1000)) recorder.record(us);
    recorder.reset();
    assert.equal(recorder.read().totalCount, 0);
    recorder.record(5);
    recorder.record(TALLY_LIMIT_US * 2);
    const after = recorder.read();
    assert.equal(after.totalCount, 2);
    assert.equal(after.minNonZeroValue, 5);
  });

  test("an empty recorder reads as an empty histogram", () => {
    const recorder = new LatencyRecorder();
    assert.equal(recorder.encoded(), hdr.encodeIntoCompressedBase64(newHistogram()));
  });
});

interface Ordered {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

function assertOrdered(s: Ordered, at: string): void {
  const order = [s.p50, s.p90, s.p95, s.p99, s.max];
  for (let i = 1; i < order.length; i++) {
    assert.ok(order[i - 1] <= order[i], `${at}: ${JSON.stringify(s)} out of order`);
  }
}

/**
 * The summary hdr-histogram-js' own getters give, each walking the counts, each percentile
 * clamped to the recorded max (a percentile is its bucket's highest equivalent value).
 */
function librarySummary(h: Histogram) {
  if (h.totalCount === 0)
    return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  const ms = (us: number) => Math.round(us) / 1000;
  const at = (p: number) => ms(Math.min(h.getValueAtPercentile(p), h.maxValue));
  return {
    count: h.totalCount,
    min: ms(h.minNonZeroValue),
    mean: ms(h.mean),
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    max: ms(h.maxValue),
  };
}

describe("summarise", () => {
  test("equals hdr-histogram-js' mean and percentiles to the last bit", () => {
    const all = values(20_000);
    for (const n of [1, 2, 3, 7, 10, 99, 100, 101, 5_000, all.length]) {
      const h = direct(all.slice(0, n));
      assert.deepEqual(summarise(h), librarySummary(h), `${n} values`);
      // The unrounded mean too: the same sum in the same order.
      assert.equal(summarise(h).mean, Math.round(h.mean) / 1000);
    }
    const counted = newHistogram();
    counted.recordValueWithCount(123_456, 3);
    counted.recordValueWithCount(1, 1_000_000);
    counted.recordValueWithCount(3_600_000_000, 7);
    assert.deepEqual(summarise(counted), librarySummary(counted));
    const encoded = hdr.encodeIntoCompressedBase64(counted);
    const decoded = hdr.decodeFromCompressedBase64(encoded) as unknown as Histogram;
    assert.deepEqual(summarise(decoded), librarySummary(decoded));
  });

  test("percentiles at the edges of a count: every split of two values", () => {
    for (let low = 1; low <= 120; low++) {
      const h = newHistogram();
      h.recordValueWithCount(1_000, low);
      h.recordValueWithCount(2_000_000, 121 - low);
      assert.deepEqual(summarise(h), librarySummary(h), `${low} low of 121`);
    }
  });

  test("no percentile above the max, live or decoded", () => {
    // The duplicated messages' end-to-end latency the delivery join once printed as
    // p99 309.247 above max 309.135: the p99's bucket reaches past the largest value recorded.
    const h = newHistogram();
    for (let i = 0; i < 98; i++) h.recordValue(100_000 + i);
    h.recordValue(309_100);
    h.recordValue(309_135);
    const live = summarise(h);
    assert.equal(live.max, 309.135);
    assert.ok(live.p99 <= live.max, `p99 ${live.p99} above max ${live.max}`);
    assert.ok(h.getValueAtPercentile(99) > h.maxValue, "the library's own p99 lies above its max");
    const decoded = summariseHistogram(hdr.encodeIntoCompressedBase64(h));
    assert.ok(decoded.p99 <= decoded.max, `decoded p99 ${decoded.p99} above max ${decoded.max}`);
  });

  test("every histogram of a real result: p50 ≤ p90 ≤ p95 ≤ p99 ≤ max", () => {
    const result = JSON.parse(
      readFileSync(new URL("../../test/golden/result-reuse.json", import.meta.url), "utf8"),
    );
    let summaries = 0;
    let histograms = 0;
    const walk = (v: unknown, at: string): void => {
      if (typeof v === "string" && at.endsWith(".histogram")) {
        const s = summariseHistogram(v);
        histograms++;
        assertOrdered(s, at);
        return;
      }
      if (typeof v !== "object" || v === null) return;
      const o = v as Record<string, unknown>;
      if (typeof o.p99 === "number" && typeof o.max === "number") {
        summaries++;
        assertOrdered(o as unknown as Ordered, at);
      }
      for (const [k, x] of Object.entries(o)) walk(x, `${at}.${k}`);
    };
    walk(result, "result");
    assert.ok(
      summaries >= 10 && histograms >= 5,
      `${summaries} summaries, ${histograms} histograms`,
    );
  });

  test("an empty histogram summarises as zeros", () => {
    assert.deepEqual(summarise(newHistogram()), librarySummary(newHistogram()));
  });
});

describe("summariseHistogram", () => {
  test("the same encoding summarises the same each time, each summary a copy of its own", () => {
    const recorder = new LatencyRecorder();
    for (const us of values(2_000)) recorder.record(us);
    const encoded = recorder.encoded();
    const first = summariseHistogram(encoded);
    const expected = { ...first };
    assert.equal(first.count, recorder.read().totalCount);
    assert.equal(first.p99, summarise(recorder.read()).p99);
    first.p99 = -1;
    assert.deepEqual(summariseHistogram(encoded), expected);
    // More encodings than are remembered, then the first again.
    for (let i = 0; i < 40; i++) {
      const other = new LatencyRecorder();
      other.record(i + 1);
      assert.equal(summariseHistogram(other.encoded()).max, (i + 1) / 1000);
    }
    assert.deepEqual(summariseHistogram(encoded), expected);
  });
});

describe("encodedAndSummarised", () => {
  test("remembers the summary a decode of its encoding gives", () => {
    const next = (() => {
      let s = 11;
      return () => {
        s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
        return s / 2 ** 32;
      };
    })();
    const shapes: ((i: number) => number)[] = [
      () => 1 + Math.round(next() * 900),
      () => 1 + Math.round(next() ** 3 * 3_600_000_000),
      (i) => (i % 2 === 0 ? 70_001 : 3),
      () => 123_457,
    ];
    for (const [k, shape] of shapes.entries()) {
      for (const count of [1, 7, 3_000]) {
        const recorder = new LatencyRecorder();
        for (let i = 0; i < count; i++) recorder.record(shape(i) + k);
        const encoded = recorder.encodedAndSummarised();
        const fromDecode = summarise(decodeCompressed(encoded));
        assert.deepEqual(summariseHistogram(encoded), fromDecode, `shape ${k}, ${count} values`);
      }
    }
    const empty = new LatencyRecorder().encodedAndSummarised();
    assert.deepEqual(summariseHistogram(empty), summarise(decodeCompressed(empty)));
  });
});

describe("fractionAtOrBelow", () => {
  /**
   * The fraction of the samples counted in slots wholly at or below `us`, from a decode by the
   * library: what the percentile search approximates (to 1e-4 of a percent).
   */
  function countedAtOrBelow(encoded: string, us: number): number {
    const h = hdr.decodeFromCompressedBase64(encoded) as unknown as Histogram;
    if (h.totalCount === 0) return 0;
    let within = 0;
    for (let i = 0; i < h.countsArrayLength; i++) {
      const count = h.getCountAtIndex(i);
      if (count > 0 && h.highestEquivalentValue(h.valueFromIndex(i)) <= us) within += count;
    }
    return within / h.totalCount;
  }

  test("every sample within the threshold is 1, and the rest is what was counted below it", () => {
    for (const shape of [values(3_000), [123_457], [1, 499_999, 500_000, 500_001], []]) {
      const recorder = new LatencyRecorder();
      for (const us of shape) recorder.record(us);
      const h = recorder.read();
      const max = h.totalCount > 0 ? h.highestEquivalentValue(h.maxValue) : 0;
      // Remembered with its summary as at a run's end, and an encoding seen for the first time.
      const fresh = new LatencyRecorder();
      for (const us of shape) fresh.record(us + (us > 1 ? 0 : 1));
      for (const encoded of [recorder.encodedAndSummarised(), fresh.encoded()]) {
        for (const us of [max - 1, max, max + 1, 500_000, 2_000_000, 1, 60_000]) {
          const got = fractionAtOrBelow(encoded, us / 1000);
          const want = countedAtOrBelow(encoded, us);
          const where = `${shape.length} values, ${us} µs`;
          if (want === 1 || want === 0) assert.equal(got, want, where);
          else assert.ok(Math.abs(got - want) < 1e-5, `${where}: ${got} vs ${want}`);
        }
      }
    }
  });
});
