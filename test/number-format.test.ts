import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { grouped } from "../src/stats/number-format.js";

/** What grouped() stands in for: ICU's en-US formatting. */
const icu = (value: number, min: number, max: number) =>
  value.toLocaleString("en-US", { minimumFractionDigits: min, maximumFractionDigits: max });

/** A small deterministic generator, so a failure names a value that can be run again. */
function* values(): Generator<number> {
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  yield* [0, -0, 1, -1, 0.5, 1.5, 2.5, -0.5, -0.04, 0.05, 0.15, 1.005, 1.015, 999.5, 999.95];
  yield* [9.995, 99_999.95, 1e6, 1234567.891, 0.000001, 1e-7, 1e20, 1e21, 12345678901234567e3];
  yield* [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MAX_SAFE_INTEGER];
  for (let i = 0; i < 3000; i++) {
    const magnitude = 10 ** Math.floor(next() * 12 - 3);
    const v = next() * magnitude;
    yield i % 3 === 0 ? -v : v;
    // Ties at each number of decimals: x.5, x.05, x.005 …
    yield Math.round(v * 1000) / 1000 + 0.0005;
    yield Math.floor(v) + 0.5;
  }
}

describe("grouped: en-US numbers without ICU", () => {
  for (const [min, max] of [
    [0, 0],
    [0, 1],
    [1, 1],
    [2, 2],
    [3, 3],
    [0, 3],
  ]) {
    test(`the same text as toLocaleString("en-US") with ${min}–${max} decimals`, () => {
      for (const v of values()) {
        assert.equal(grouped(v, min, max), icu(v, min, max), `value ${v}`);
      }
    });
  }

  test("thousands and rounding as a report shows them", () => {
    assert.equal(grouped(50_000, 0, 0), "50,000");
    assert.equal(grouped(1234.56, 1, 1), "1,234.6");
    assert.equal(grouped(999.95, 1, 1), "1,000.0");
    assert.equal(grouped(1.005, 2, 2), "1.01");
    assert.equal(grouped(-1_000_000, 0, 0), "-1,000,000");
    assert.equal(grouped(2, 0, 1), "2");
  });
});
