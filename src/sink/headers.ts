/**
 * Reads the few header fields the sink cares about from the start of a message: the class
 * (`X-Mailvolley-Class`, or the Subject through --class-by-subject) and the client's send time
 * (`X-Mailvolley-Sent: <epoch ms>.<3 decimals>`). One pass over the header block's lines in
 * plain JavaScript (RFC 5322 §2.1: the block ends at the first empty line); field names are
 * case-insensitive (RFC 5322 §1.2.2). A native indexOf per field name costs more than this loop
 * over a few hundred octets.
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

/** The header fields of `content` (the first octets of a message, dot-stuffed as received). */
export function readHeaders(content: Buffer, classBySubject: RegExp | undefined): MessageHeaders {
  const end = Math.min(content.length, HEADER_WINDOW);
  let className = "";
  let sentMs = -1;
  let subjectAt = -1;
  let pos = 0;
  while (pos < end) {
    const first = content[pos];
    if (first === CR || first === LF) break; // the empty line ends the header block
    const c = first | LOWER;
    if (c === LOWER_X && matchesIgnoreCase(content, pos, end, PREFIX)) {
      const name = pos + PREFIX.length;
      if (matchesIgnoreCase(content, name, end, "class:")) {
        className = fieldValue(content, name + 6, end);
      } else if (matchesIgnoreCase(content, name, end, "sent:")) {
        sentMs = parseEpochMs(content, name + 5, end);
      }
    } else if (c === LOWER_S && classBySubject !== undefined) {
      if (matchesIgnoreCase(content, pos, end, "subject:")) subjectAt = pos + 8;
    }
    while (pos < end && content[pos] !== LF) pos++;
    pos++;
  }
  if (className === "" && subjectAt !== -1) {
    const m = classBySubject!.exec(fieldValue(content, subjectAt, end));
    if (m) className = m[1] ?? m[0];
  }
  return { className: className || DEFAULT_CLASS, sentMs };
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
