/**
 * The one HDR histogram class mailvolley builds, and HdrHistogram's compressed V2 encoding as
 * hdr-histogram-js writes and reads it (encodeIntoCompressedBase64, decodeFromCompressedBase64),
 * byte for byte (test/hdr-codec.test.ts).
 *
 * Why not the package's index: it loads 47 files (its WebAssembly build, pako, log readers and
 * writers), a tenth of a run's start, where a run needs Int32Histogram (9 files)
 * and this codec. The codec also writes into one buffer sized up front, where hdr-histogram-js
 * grows its buffer by doubling a byte at a time: a run encodes every histogram at its end.
 *
 * Format (HdrHistogram's V2, as the Java original documents it): cookie, the deflated length, the
 * deflated payload; the payload is a 40-octet header (cookie, counts length, normalizing offset 1,
 * significant digits, lowest and highest trackable value, conversion ratio 1) and the counts up
 * to the maximum's index as ZigZag LEB128 numbers, a run of zeros as one negative number.
 */
import { createRequire } from "node:module";
import { deflateSync, inflateSync } from "node:zlib";
import type { JsHistogram } from "hdr-histogram-js";

type Int32HistogramClass = new (
  lowestDiscernibleValue: number,
  highestTrackableValue: number,
  numberOfSignificantValueDigits: number,
) => JsHistogram;

// The package has no exports map; its own index loads this file for bitBucketSize 32.
const Int32Histogram = (
  createRequire(import.meta.url)("hdr-histogram-js/dist/Int32Histogram.js") as {
    default: Int32HistogramClass;
  }
).default;

/** hdr-histogram-js' build() with its defaults: 32-bit counts that resize past the highest value. */
export function buildHistogram(lowest: number, highest: number, digits: number): JsHistogram {
  const histogram = new Int32Histogram(lowest, highest, digits);
  histogram.autoResize = true;
  return histogram;
}

/**
 * The histogram's counts, read in place: Int32Histogram keeps them in `_counts`. A run's end
 * walks a dozen histograms' counts in code that runs once, cold, where a getCountAtIndex call a
 * slot cost several times the read. Throws should the library keep them otherwise.
 */
export function countsOf(histogram: JsHistogram): Uint32Array {
  const counts = (histogram as unknown as { _counts?: unknown })._counts;
  if (!(counts instanceof Uint32Array)) {
    throw new Error("hdr-histogram-js's Int32Histogram no longer keeps its counts in _counts");
  }
  return counts;
}

const V2_COOKIE = 0x1c849303 | 0x10;
const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;
const HEADER_OCTETS = 40;
/** LEB128 of a 64-bit ZigZag value: at most 9 octets. */
const MAX_OCTETS_A_NUMBER = 9;

const TWO_POW_32 = 2 ** 32;

/** hdr-histogram-js' ZigZag LEB128, the same arithmetic (its ninth octet included). */
function putZigZag(out: Buffer, at: number, signed: number): number {
  let value = signed >= 0 ? signed * 2 : -signed * 2 - 1;
  let pos = at;
  for (let group = 0; group < 8; group++) {
    if (value < 0x80) {
      out[pos++] = value;
      return pos;
    }
    // 7 bits and the continuation bit; Uint8 storage keeps the low octet.
    out[pos++] = group < 7 ? (value % 256) | 0x80 : (value % 256) + 0x80;
    value = Math.floor(value / 0x80);
  }
  out[pos++] = value % 256;
  return pos;
}

let scratch = Buffer.alloc(0);

/** The histogram as hdr-histogram-js' encodeIntoCompressedBase64 writes it. */
export function encodeCompressed(histogram: JsHistogram): string {
  const countsLimit = histogram.countsArrayIndex(histogram.maxValue) + 1;
  const size = HEADER_OCTETS + MAX_OCTETS_A_NUMBER * countsLimit;
  if (scratch.length < size) scratch = Buffer.alloc(size);
  const out = scratch;
  const counts = countsOf(histogram);
  let pos = HEADER_OCTETS;
  let index = 0;
  while (index < countsLimit) {
    const count = counts[index++];
    let zeros = 0;
    if (count === 0) {
      zeros = 1;
      while (index < countsLimit && counts[index] === 0) {
        zeros++;
        index++;
      }
    }
    pos = putZigZag(out, pos, zeros > 1 ? -zeros : count);
  }
  out.writeUInt32BE(V2_COOKIE, 0);
  out.writeUInt32BE(pos - HEADER_OCTETS, 4);
  out.writeUInt32BE(1, 8);
  out.writeUInt32BE(histogram.numberOfSignificantValueDigits, 12);
  putUint64(out, 16, histogram.lowestDiscernibleValue);
  putUint64(out, 24, histogram.highestTrackableValue);
  putUint64(out, 32, 1);
  const deflated = deflateSync(out.subarray(0, pos));
  const whole = Buffer.allocUnsafe(8 + deflated.length);
  whole.writeUInt32BE(V2_COMPRESSED_COOKIE, 0);
  whole.writeUInt32BE(deflated.length, 4);
  deflated.copy(whole, 8);
  return whole.toString("base64");
}

function putUint64(out: Buffer, at: number, value: number): void {
  out.writeUInt32BE(Math.floor(value / TWO_POW_32) >>> 0, at);
  out.writeUInt32BE(value >>> 0, at + 4);
}

const getUint64 = (data: Buffer, at: number) =>
  data.readUInt32BE(at) * TWO_POW_32 + data.readUInt32BE(at + 4);

/** A histogram as hdr-histogram-js' decodeFromCompressedBase64 reads it, errors included. */
export function decodeCompressed(encoded: string): JsHistogram {
  const text = encoded.trim();
  if (text.length % 4 > 0) throw new Error("Invalid string. Length must be a multiple of 4");
  const data = Buffer.from(text, "base64");
  if ((data.readUInt32BE(0) & ~0xf0) !== (V2_COMPRESSED_COOKIE & ~0xf0)) {
    throw new Error("Encoding not supported, only V2 is supported");
  }
  const payload = inflateSync(data.subarray(8, 8 + data.readUInt32BE(4)));
  if ((payload.readUInt32BE(0) & ~0xf0) !== (V2_COOKIE & ~0xf0)) {
    throw new Error("The buffer does not contain a Histogram (no valid V2 encoding cookie found)");
  }
  const end = HEADER_OCTETS + payload.readUInt32BE(4);
  const histogram = new Int32Histogram(
    getUint64(payload, 16),
    Math.max(getUint64(payload, 24), 0),
    payload.readUInt32BE(12),
  );
  let pos = HEADER_OCTETS;
  let index = 0;
  while (pos < end) {
    // ZigZag LEB128, as putZigZag writes it.
    let value = 0;
    let scale = 1;
    for (let group = 0; group < 9; group++) {
      const octet = payload[pos++];
      value += (octet & 0x7f) * scale;
      if (group === 8 || (octet & 0x80) === 0) break;
      scale *= 0x80;
    }
    const count = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    if (count < 0) index += -count;
    else histogram.setCountAtIndex(index++, count);
  }
  histogram.establishInternalTackingValues(index);
  return histogram;
}

/** countsArrayLength by header, so that checking a file's histograms builds each shape once. */
const countsLengths = new Map<string, number>();

/**
 * Why `encoded` is not a histogram as this codec writes them, or null when it is one: the
 * decode of decodeCompressed with every length, header field and count checked. A result file
 * may have been edited by hand or cut short, and decodeCompressed (as hdr-histogram-js) reads a
 * truncated payload past its end and keeps the garbage, or throws a raw RangeError later.
 */
export function encodingProblem(encoded: string): string | null {
  if (encoded.length % 4 > 0) return "its base64 length is not a multiple of 4";
  const data = Buffer.from(encoded, "base64");
  // The low nibble's upper bits name the word size; decodeCompressed ignores them, as here.
  if (data.length < 8 || (data.readUInt32BE(0) & ~0xf0) !== (V2_COMPRESSED_COOKIE & ~0xf0)) {
    return "it does not start as a compressed HDR histogram (V2)";
  }
  const deflatedEnd = 8 + data.readUInt32BE(4);
  if (deflatedEnd !== data.length) return "its compressed length does not match its size";
  let payload: Buffer;
  try {
    payload = inflateSync(data.subarray(8, deflatedEnd));
  } catch {
    return "its compressed payload does not inflate";
  }
  if (payload.length < HEADER_OCTETS || (payload.readUInt32BE(0) & ~0xf0) !== (V2_COOKIE & ~0xf0)) {
    return "its payload is not an HDR histogram (V2)";
  }
  if (HEADER_OCTETS + payload.readUInt32BE(4) !== payload.length) {
    return "its counts length does not match its payload";
  }
  const digits = payload.readUInt32BE(12);
  const lowest = getUint64(payload, 16);
  const highest = getUint64(payload, 24);
  if (digits > 5 || lowest < 1 || highest < 2 * lowest || highest > Number.MAX_SAFE_INTEGER) {
    return "its header (significant digits, lowest or highest value) is out of range";
  }
  const key = `${lowest} ${highest} ${digits}`;
  let length = countsLengths.get(key);
  if (length === undefined) {
    length = new Int32Histogram(lowest, highest, digits).countsArrayLength;
    countsLengths.set(key, length);
  }
  return countsProblem(payload, length);
}

/** The ZigZag LEB128 counts of a payload checked: whole numbers, in range, inside the array. */
function countsProblem(payload: Buffer, countsLength: number): string | null {
  let pos = HEADER_OCTETS;
  let index = 0;
  while (pos < payload.length) {
    let value = 0;
    let scale = 1;
    for (let group = 0; ; group++) {
      if (pos >= payload.length) return "its last count is cut short";
      const octet = payload[pos++];
      value += (octet & 0x7f) * scale;
      if (group === 8 || (octet & 0x80) === 0) break;
      scale *= 0x80;
    }
    const count = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    if (count > 0xffff_ffff) return "a count is larger than a histogram holds";
    index += count < 0 ? -count : 1;
    if (index > countsLength) return "its counts run past the histogram's range";
  }
  return null;
}
