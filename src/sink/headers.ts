/**
 * Reads the few header fields the sink cares about from the start of a message: the class
 * (`X-Mailvolley-Class`, or the Subject through --class-by-subject) and the client's send time
 * (`X-Mailvolley-Sent: <epoch ms>.<3 decimals>`). One pass over the header block's lines (RFC
 * 5322 §2.1: the block ends at the first empty line): each line's start is looked at in
 * JavaScript, field names case-insensitive (RFC 5322 §1.2.2), and its end found with one
 * indexOf. A native indexOf per field name would cost more.
 */
import { matchesIgnoreCase } from "../smtp/command-parser.js";

const CR = 13;
const LF = 10;
const SPACE = 32;
const TAB = 9;
const DOT = 46;
const LOWER = 0x20;
const LOWER_X = 0x78;
const LOWER_S = 0x73;
const PREFIX = "x-mailvolley-";

/** How much of a message start is kept for header inspection. */
export const HEADER_WINDOW = 16 * 1024;

export const DEFAULT_CLASS = "default";

export interface MessageHeaders {
  className: string;
  /** Epoch milliseconds from X-Mailvolley-Sent, or -1. */
  sentMs: number;
}

/**
 * The header fields of `content[start, end)` (the first octets of a message, dot-stuffed as
 * received), written into `out` (the caller's, reused per message) and returned.
 */
export function readHeaders(
  content: Buffer,
  classBySubject: RegExp | undefined,
  start = 0,
  end = content.length,
  out: MessageHeaders = { className: DEFAULT_CLASS, sentMs: -1 },
): MessageHeaders {
  const stop = Math.min(end, start + HEADER_WINDOW);
  let className = "";
  let sentMs = -1;
  let subjectAt = -1;
  let pos = start;
  while (pos < stop) {
    const first = content[pos];
    if (first === CR || first === LF) break; // the empty line ends the header block
    const c = first | LOWER;
    if (c === LOWER_X && matchesIgnoreCase(content, pos, stop, PREFIX)) {
      const name = pos + PREFIX.length;
      if (matchesIgnoreCase(content, name, stop, "class:")) {
        className = fieldValue(content, name + 6, stop);
      } else if (matchesIgnoreCase(content, name, stop, "sent:")) {
        sentMs = parseEpochMs(content, name + 5, stop);
      }
    } else if (c === LOWER_S && classBySubject !== undefined) {
      if (matchesIgnoreCase(content, pos, stop, "subject:")) subjectAt = pos + 8;
    }
    // One native search a line: about twice as fast as a JavaScript loop over its octets.
    const lf = content.indexOf(LF, pos);
    if (lf === -1) break;
    pos = lf + 1;
  }
  if (className === "" && subjectAt !== -1) {
    const m = classBySubject!.exec(fieldValue(content, subjectAt, stop));
    if (m) className = m[1] ?? m[0];
  }
  out.className = className || DEFAULT_CLASS;
  out.sentMs = sentMs;
  return out;
}

/** The unfolded, trimmed value of the field whose value starts at `pos` (RFC 5322 §2.2.3). */
function fieldValue(buf: Buffer, pos: number, end: number): string {
  let stop = pos;
  let folded = false;
  for (;;) {
    while (stop < end && buf[stop] !== LF) stop++;
    if (stop >= end) break;
    const next = buf[stop + 1];
    if (next !== SPACE && next !== TAB) break;
    folded = true;
    stop++;
  }
  while (pos < stop && (buf[pos] === SPACE || buf[pos] === TAB)) pos++;
  while (stop > pos && buf[stop - 1] <= SPACE) stop--;
  const text = buf.toString("utf8", pos, stop);
  return folded ? text.replace(/\r?\n(?=[ \t])/g, "") : text;
}

/** Digits, an optional fraction: "1764683707123.456" → 1764683707123.456; -1 when malformed. */
function parseEpochMs(buf: Buffer, pos: number, end: number): number {
  while (pos < end && (buf[pos] === SPACE || buf[pos] === TAB)) pos++;
  let whole = 0;
  let digits = 0;
  while (pos < end && buf[pos] >= 48 && buf[pos] <= 57) {
    whole = whole * 10 + (buf[pos++] - 48);
    digits++;
  }
  if (digits === 0) return -1;
  if (buf[pos] !== DOT) return buf[pos] === CR || buf[pos] === LF || pos === end ? whole : -1;
  pos++;
  let scale = 0.1;
  let fraction = 0;
  while (pos < end && buf[pos] >= 48 && buf[pos] <= 57) {
    fraction += (buf[pos++] - 48) * scale;
    scale /= 10;
  }
  return whole + fraction;
}
