/**
 * Byte-level helpers for reading SMTP command lines (RFC 5321 §4.1) without building strings:
 * the verb as one 32-bit number, case-insensitive matches, decimal numbers and ESMTP parameters.
 * Command verbs and parameter keywords are case-insensitive (RFC 5321 §2.4).
 */

const LOWER = 0x20;
const SPACE = 32;
const DIGIT_0 = 48;

/** The first four bytes of a verb, lower-cased, as one number: `verbCode("MAIL")`. */
export function verbCode(verb: string): number {
  return (
    (((verb.charCodeAt(0) | LOWER) << 24) |
      ((verb.charCodeAt(1) | LOWER) << 16) |
      ((verb.charCodeAt(2) | LOWER) << 8) |
      (verb.charCodeAt(3) | LOWER)) >>>
    0
  );
}

/**
 * The verb code of the command at `start` (callers make sure 4 bytes are there). OR-ing 0x20
 * lower-cases letters; non-letters could collide only with other non-letters, which no verb has.
 */
export function verbAt(buf: Buffer, start: number): number {
  return (
    (((buf[start] | LOWER) << 24) |
      ((buf[start + 1] | LOWER) << 16) |
      ((buf[start + 2] | LOWER) << 8) |
      (buf[start + 3] | LOWER)) >>>
    0
  );
}

/** True when `buf[pos…]` equals `lower` (lower-case ASCII) ignoring case, within `end`. */
export function matchesIgnoreCase(buf: Buffer, pos: number, end: number, lower: string): boolean {
  if (end - pos < lower.length) return false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    const b = buf[pos + i];
    if (b !== c && (b | LOWER) !== c) return false;
  }
  return true;
}

/** A non-negative decimal in `buf[start, end)`, or -1 when it is empty or not all digits. */
export function parseDecimal(buf: Buffer, start: number, end: number): number {
  if (end <= start || end - start > 15) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const d = buf[i] - DIGIT_0;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** Index of the first space at or after `pos` before `end`, or `end`. */
export function wordEnd(buf: Buffer, pos: number, end: number): number {
  const space = buf.indexOf(SPACE, pos);
  return space === -1 || space > end ? end : space;
}

/**
 * The value of ESMTP parameter `keyword=` (lower case, with the `=`) after the path's closing
 * `>` (RFC 5321 §4.1.2 Mail-parameters), parsed as a decimal; -1 when absent or not a number.
 */
export function numericParameter(buf: Buffer, start: number, end: number, keyword: string) {
  let pos = buf.indexOf(62, start); // ">"
  if (pos === -1 || pos >= end) return -1;
  pos++;
  while (pos < end) {
    while (pos < end && buf[pos] === SPACE) pos++;
    const stop = wordEnd(buf, pos, end);
    if (matchesIgnoreCase(buf, pos, stop, keyword)) {
      return parseDecimal(buf, pos + keyword.length, stop);
    }
    pos = stop;
  }
  return -1;
}
