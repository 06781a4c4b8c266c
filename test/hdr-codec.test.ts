/**
 * stats/hdr-codec.ts against hdr-histogram-js itself: the same histogram class and settings as
 * its build(), and the compressed V2 encoding written and read byte for byte, errors included.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deflateSync, inflateSync } from "node:zlib";
import hdr from "hdr-histogram-js";
import {
  buildHistogram,
  decodeCompressed,
  encodeCompressed,
  encodingProblem,
} from "../src/stats/hdr-codec.js";

const HOUR_US = 3_600_000_000;

function random(seed: number) {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    return s / 2 ** 32;
  };
}

/** Pairs of histograms, one of ours and one hdr.build() made, fed the same values. */
function pairs(): [string, ReturnType<typeof buildHistogram>, ReturnType<typeof hdr.build>][] {
  const out: [string, ReturnType<typeof buildHistogram>, ReturnType<typeof hdr.build>][] = [];
  const make = (name: string, fill: (record: (value: number, count?: number) => void) => void) => {
    const ours = buildHistogram(1, HOUR_US, 3);
    const theirs = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: HOUR_US,
      numberOfSignificantValueDigits: 3,
    });
    fill((value, count = 1) => {
      ours.recordValueWithCount(value, count);
      theirs.recordValueWithCount(value, count);
    });
    out.push([name, ours, theirs]);
  };
  make("empty", () => {});
  make("one value", (r) => r(1));
  make("sub-millisecond latencies", (r) => {
    const next = random(1);
    for (let i = 0; i < 10_000; i++) r(50 + Math.round(next() * 900));
  });
  make("spread over an hour", (r) => {
    const next = random(2);
    for (let i = 0; i < 5_000; i++) r(1 + Math.round(next() ** 4 * HOUR_US));
  });
  make("large counts (5-octet numbers)", (r) => {
    r(100, 2 ** 32 - 1);
    r(200, 2 ** 28 + 3);
    r(300, 2 ** 21 + 1);
    r(400_000, 2 ** 14);
  });
  make("past the highest value: resized", (r) => {
    r(7);
    r(HOUR_US * 50);
  });
  return out;
}

describe("hdr-codec", () => {
  test("buildHistogram is hdr-histogram-js' build(): class, size, autoResize", () => {
    const [, ours, theirs] = pairs()[0];
    assert.equal(ours.constructor.name, theirs.constructor.name);
    assert.equal(ours.autoResize, theirs.autoResize);
    assert.equal(ours.countsArrayLength, (theirs as typeof ours).countsArrayLength);
    assert.equal(ours.highestTrackableValue, theirs.highestTrackableValue);
  });

  test("encodeCompressed writes what encodeIntoCompressedBase64 writes, octet for octet", () => {
    for (const [name, ours, theirs] of pairs()) {
      assert.equal(encodeCompressed(ours), hdr.encodeIntoCompressedBase64(theirs), name);
    }
  });

  test("decodeCompressed reads what decodeFromCompressedBase64 reads", () => {
    for (const [name, , theirs] of pairs()) {
      const encoded = hdr.encodeIntoCompressedBase64(theirs);
      const ours = decodeCompressed(encoded);
      const reference = hdr.decodeFromCompressedBase64(encoded) as unknown as typeof ours;
      assert.equal(ours.constructor.name, reference.constructor.name, name);
      for (const key of [
        "totalCount",
        "minNonZeroValue",
        "maxValue",
        "highestTrackableValue",
        "lowestDiscernibleValue",
        "numberOfSignificantValueDigits",
        "countsArrayLength",
        "autoResize",
      ] as const) {
        assert.equal(ours[key], reference[key], `${name}: ${key}`);
      }
      for (let i = 0; i < ours.countsArrayLength; i++) {
        if (ours.getCountAtIndex(i) !== reference.getCountAtIndex(i)) {
          assert.fail(`${name}: count at index ${i}`);
        }
      }
      assert.equal(encodeCompressed(ours), encoded, `${name}: round trip`);
    }
  });

  test("bad input fails as decodeFromCompressedBase64 fails", () => {
    const message = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    };
    const notV2 = Buffer.alloc(16, 7).toString("base64");
    for (const bad of ["abc", notV2]) {
      assert.equal(
        message(() => decodeCompressed(bad)),
        message(() => hdr.decodeFromCompressedBase64(bad)),
        bad,
      );
    }
  });
});

/** A compressed V2 histogram around `payload` (the 40-octet header and the counts). */
function wrap(payload: Buffer): string {
  const deflated = deflateSync(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(0x1c849314, 0);
  head.writeUInt32BE(deflated.length, 4);
  return Buffer.concat([head, deflated]).toString("base64");
}

/** A compressed V2 wrapper whose 8 octets are no deflate stream. */
function notDeflate(): string {
  const data = Buffer.alloc(16, 0xff);
  data.writeUInt32BE(0x1c849314, 0);
  data.writeUInt32BE(8, 4);
  return data.toString("base64");
}

/** The payload of an encoding, to be changed and wrapped again. */
function payloadOf(encoded: string): Buffer {
  const data = Buffer.from(encoded, "base64");
  return inflateSync(data.subarray(8, 8 + data.readUInt32BE(4)));
}

/** The payload with `counts` (already ZigZag LEB128) in place of its own, its length fixed. */
function withCounts(payload: Buffer, counts: number[]): Buffer {
  const out = Buffer.concat([payload.subarray(0, 40), Buffer.from(counts)]);
  out.writeUInt32BE(counts.length, 4);
  return out;
}

describe("encodingProblem: a saved result's histogram checked before use", () => {
  test("every encoding this codec writes passes", () => {
    for (const [name, ours] of pairs())
      assert.equal(encodingProblem(encodeCompressed(ours)), null, name);
  });

  test("each way a histogram can be broken is named, where decoding would keep garbage", () => {
    const one = buildHistogram(1, HOUR_US, 3);
    one.recordValue(1234);
    const good = encodeCompressed(one);
    const payload = payloadOf(good);
    const digits9 = Buffer.from(payload);
    digits9.writeUInt32BE(9, 12);
    const rows: [string, string, RegExp][] = [
      ["not base64 blocks", "abc", /multiple of 4/],
      ["not V2", Buffer.alloc(16, 7).toString("base64"), /does not start as a compressed HDR/],
      ["cut short", Buffer.from(good, "base64").subarray(0, -3).toString("base64"), /length/],
      ["no deflate stream", notDeflate(), /does not inflate/],
      ["payload not V2", wrap(Buffer.alloc(48)), /payload is not an HDR histogram/],
      ["counts length wrong", wrap(payload.subarray(0, -1)), /counts length/],
      ["header out of range", wrap(digits9), /header/],
      ["last count cut short", wrap(withCounts(payload, [0x81])), /cut short/],
      [
        "counts past the range",
        wrap(withCounts(payload, [0x80 | 0x7f, 0x80 | 0x7f, 0x7f, 2])),
        /past/,
      ],
    ];
    for (const [name, encoded, reason] of rows) {
      assert.match(encodingProblem(encoded) ?? "no problem", reason, name);
    }
    // What the check guards against: the decoder takes the cut-short count without a word.
    assert.doesNotThrow(() => decodeCompressed(wrap(withCounts(payload, [0x81]))));
  });
});
