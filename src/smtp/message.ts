/**
 * Wire encoders for message content (RFC 5321 §4.5): CRLF line ends, dot-stuffing, generated
 * bodies, and a header template whose few varying fields are patched in place per message.
 * Everything constant is built once, before the run.
 */

import { HeaderSlots, markPlaceholders } from "./header-slots.js";

const CR = 13;
const LF = 10;
const DOT = 46;

/** The end-of-data indication that follows a dot-stuffed body ending in CRLF. */
export const END_OF_DATA = Buffer.from(".\r\n", "latin1");

/**
 * Normalises line ends to CRLF (bare LF and bare CR alike, as files from disk carry), doubles a
 * leading dot on every line (RFC 5321 §4.5.2) and makes sure the content ends with CRLF.
 */
export function dotStuff(raw: Buffer): Buffer {
  const out = Buffer.allocUnsafe(raw.length * 2 + 2);
  let o = 0;
  let lineStart = true;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === CR || c === LF) {
      out[o++] = CR;
      out[o++] = LF;
      if (c === CR && raw[i + 1] === LF) i++;
      lineStart = true;
      continue;
    }
    if (lineStart && c === DOT) out[o++] = DOT;
    out[o++] = c;
    lineStart = false;
  }
  if (!lineStart || o === 0) {
    out[o++] = CR;
    out[o++] = LF;
  }
  return Buffer.from(out.subarray(0, o));
}

/**
 * Undoes dot-stuffing (RFC 5321 §4.5.2) of whole content that starts at a line start: a line
 * that starts with "." loses that dot. The client sends BDAT (RFC 3030) content unstuffed; the
 * sink's --dump writes DATA content unstuffed. A line starts after any LF, bare or not (the
 * sink may accept bare LF). Content without a dot at a line start is returned as it is.
 */
export function unstuff(stuffed: Buffer): Buffer {
  if (stuffed.indexOf("\n.") === -1 && stuffed[0] !== DOT) return stuffed;
  const out = Buffer.allocUnsafe(stuffed.length);
  let o = 0;
  let lineStart = true;
  for (let i = 0; i < stuffed.length; i++) {
    const c = stuffed[i];
    if (lineStart && c === DOT) {
      lineStart = false;
      continue; // the stuffed dot
    }
    out[o++] = c;
    lineStart = c === LF;
  }
  return out.subarray(0, o);
}

const BODY_COLUMNS = 76;
// No "." anywhere: the filler drifts across line starts, and a line starting with a dot would
// need stuffing (RFC 5321 §4.5.2) that the shared body is built without.
const FILLER = "The quick brown fox jumps over the lazy dog - mailvolley load test body text - ";

/**
 * A body of exactly `size` octets in lines of 76 characters plus CRLF (78 octets). No line
 * starts with a dot, so it needs no stuffing. A remainder of one octet lengthens the last full
 * line, since a line needs at least its CRLF; a body of one octet cannot end in CRLF at all.
 */
export function generateBody(size: number): Buffer {
  if (size === 1) throw new RangeError("a body of 1 octet cannot end with CRLF");
  const body = Buffer.allocUnsafe(size);
  let o = 0;
  let f = 0;
  while (o < size) {
    const left = size - o;
    let chars = Math.min(BODY_COLUMNS, left - 2);
    if (left - (chars + 2) === 1) chars++;
    for (let c = 0; c < chars; c++) {
      body[o++] = FILLER.charCodeAt(f);
      f = f + 1 === FILLER.length ? 0 : f + 1;
    }
    body[o++] = CR;
    body[o++] = LF;
  }
  return body;
}

/** Writes `value` as `width` zero-padded decimal digits at `offset`. */
export function writeDecimal(buf: Buffer, offset: number, width: number, value: number): void {
  let v = Math.floor(value);
  let i = offset + width - 1;
  // Digits of a value past int32 (epoch milliseconds) come from double division until the rest
  // fits, then from int32 arithmetic, several times cheaper: this runs three times a message.
  for (; v > 0x7fff_ffff && i >= offset; i--) {
    const q = Math.floor(v / 10);
    buf[i] = 48 + (v - q * 10);
    v = q;
  }
  let n = v | 0;
  for (; i >= offset; i--) {
    const q = (n / 10) | 0;
    buf[i] = 48 + (n - q * 10);
    n = q;
  }
}

export interface HeaderFields {
  from: string;
  to: string;
  /** May hold placeholders (smtp/header-slots.ts), as may `extra`. */
  subject: string;
  /** The message class, for `{{class}}`; "default" when not given. */
  className?: string;
  runId: string;
  /** Extra header lines, without CRLF (for example `X-Mailvolley-Class: sec`). */
  extra?: readonly string[];
  /**
   * Only the X-Mailvolley trace fields and `extra`, no blank line after them: a prefix for
   * content read from files, which brings its own header block.
   */
  traceOnly?: boolean;
  /** Add `X-Mailvolley-Id: RUNID.SEQ`, the key the delivery join reads (--receive). */
  traceId?: boolean;
}

const SEQ_WIDTH = 12;
const DATE_WIDTH = 31; // "Wed, 02 Dec 2026 13:55:07 +0000"

/**
 * The header block of generated messages. `render` copies the template and patches the
 * Message-ID sequence number, the Date, the X-Mailvolley-Sent time and the placeholders of the
 * user's fields: all fixed width, so the header length, and with it the SIZE of every message,
 * is known before the run. Throws HeaderPlaceholderError for an unknown placeholder.
 */
export class HeaderTemplate {
  readonly length: number;
  private readonly template: Buffer;
  private readonly dateOffset: number;
  private readonly seqOffset: number;
  private readonly sentOffset: number;
  /** Where X-Mailvolley-Id's sequence number goes; -1 without one. */
  private readonly idOffset: number;
  private dateSecond = -1;
  private readonly dateBytes = Buffer.alloc(DATE_WIDTH);
  private readonly slots: HeaderSlots;

  constructor(fields: HeaderFields) {
    const date = "D".repeat(DATE_WIDTH);
    const seq = "S".repeat(SEQ_WIDTH);
    const trace = [`X-Mailvolley-Run: ${fields.runId}`, "X-Mailvolley-Sent: TTTTTTTTTTTTT.UUU"];
    if (fields.traceId) trace.push(`X-Mailvolley-Id: ${fields.runId}.${"I".repeat(SEQ_WIDTH)}`);
    // Slots are listed in the order they appear: the Subject line comes before the extra lines.
    const slotNames: ReturnType<typeof markPlaceholders>["slots"] = [];
    const mark = (text: string) => {
      const marked = markPlaceholders(text, fields.className ?? "default");
      slotNames.push(...marked.slots);
      return marked.text;
    };
    const subject = fields.traceOnly ? "" : mark(fields.subject);
    const extra = (fields.extra ?? []).map(mark);
    const lines = fields.traceOnly
      ? [...trace, ...extra, ""]
      : [
          `From: <${fields.from}>`,
          `To: <${fields.to}>`,
          `Date: ${date}`,
          `Message-ID: <${seq}.${fields.runId}@mailvolley.invalid>`,
          `Subject: ${subject}`,
          ...trace,
          ...extra,
          "",
          "",
        ];
    const text = lines.join("\r\n");
    this.template = Buffer.from(text, "utf8");
    this.length = this.template.length;
    this.dateOffset = this.template.indexOf(date);
    this.seqOffset = this.template.indexOf(seq);
    this.sentOffset = this.template.indexOf("TTTTTTTTTTTTT.UUU");
    this.idOffset = fields.traceId ? this.template.indexOf("I".repeat(SEQ_WIDTH)) : -1;
    this.slots = new HeaderSlots(this.template, slotNames);
  }

  /** The header for message `seq`, sent at `epochMs` (milliseconds with a fraction). */
  render(seq: number, epochMs: number): Buffer {
    return this.renderInto(Buffer.allocUnsafe(this.length), seq, epochMs);
  }

  /**
   * Renders the header into the first `length` octets of `out` and returns `out`.
   * `templateInPlace`: `out` already holds a header this template rendered; only the fields
   * that vary are patched.
   */
  renderInto(out: Buffer, seq: number, epochMs: number, templateInPlace = false): Buffer {
    if (!templateInPlace) this.template.copy(out);
    if (this.seqOffset >= 0) {
      writeDecimal(out, this.seqOffset, SEQ_WIDTH, seq);
      this.dateOf(epochMs).copy(out, this.dateOffset);
    }
    writeDecimal(out, this.sentOffset, 13, epochMs);
    writeDecimal(out, this.sentOffset + 14, 3, (epochMs % 1) * 1000);
    if (this.idOffset >= 0) writeDecimal(out, this.idOffset, SEQ_WIDTH, seq);
    if (!this.slots.empty) this.slots.fill(out, seq, epochMs, this.dateOf(epochMs), writeDecimal);
    return out;
  }

  /** The RFC 5322 date of `epochMs`'s second, rebuilt once a second. */
  private dateOf(epochMs: number): Buffer {
    const second = Math.floor(epochMs / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      const utc = new Date(second * 1000).toUTCString().replace("GMT", "+0000");
      this.dateBytes.write(utc, "latin1");
    }
    return this.dateBytes;
  }
}
