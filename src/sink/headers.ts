/**
 * Reads the few header fields the sink cares about from the start of a message: the class
 * (`X-Mailvolley-Class`, or the Subject through --class-by-subject) and the client's send time
 * (`X-Mailvolley-Sent: <epoch ms>.<3 decimals>`). Only the header block is looked at (RFC 5322
 * §2.1: it ends at the first empty line). Field names are matched as mailvolley writes them and
 * in lower case, the two spellings seen in practice; a general case-insensitive search would cost
 * a byte loop per message.
 */

const CR = 13;
const LF = 10;
const SPACE = 32;
const TAB = 9;
const DOT = 46;

/** How much of a message start is kept for header inspection. */
export const HEADER_WINDOW = 16 * 1024;

const BLANK_LINE = Buffer.from("\r\n\r\n", "latin1");
const CLASS_NAMES = [Buffer.from("X-Mailvolley-Class:"), Buffer.from("x-mailvolley-class:")];
const SENT_NAMES = [Buffer.from("X-Mailvolley-Sent:"), Buffer.from("x-mailvolley-sent:")];
const SUBJECT_NAMES = [Buffer.from("Subject:"), Buffer.from("subject:"), Buffer.from("SUBJECT:")];

export const DEFAULT_CLASS = "default";

export interface MessageHeaders {
  className: string;
  /** Epoch milliseconds from X-Mailvolley-Sent, or -1. */
  sentMs: number;
}

/** The header fields of `head` (the first bytes of the content, dot-stuffed as received). */
export function readHeaders(head: Buffer, classBySubject: RegExp | undefined): MessageHeaders {
  const blank = head.indexOf(BLANK_LINE);
  const end = blank === -1 ? head.length : blank + 2;
  let className = DEFAULT_CLASS;
  const classAt = findField(head, end, CLASS_NAMES);
  if (classAt !== -1) {
    const value = fieldValue(head, classAt, end);
    if (value !== "") className = value;
  } else if (classBySubject !== undefined) {
    const subjectAt = findField(head, end, SUBJECT_NAMES);
    if (subjectAt !== -1) {
      const m = classBySubject.exec(fieldValue(head, subjectAt, end));
      if (m) className = m[1] ?? m[0];
    }
  }
  const sentAt = findField(head, end, SENT_NAMES);
  return { className, sentMs: sentAt === -1 ? -1 : parseEpochMs(head, sentAt, end) };
}

/** Index just after `name` where it starts a line of `buf[0, end)`, or -1. */
function findField(buf: Buffer, end: number, names: readonly Buffer[]): number {
  for (const name of names) {
    if (buf.length >= name.length && buf.compare(name, 0, name.length, 0, name.length) === 0) {
      return name.length;
    }
    let from = 0;
    for (;;) {
      const at = buf.indexOf(name, from);
      if (at === -1 || at >= end) break;
      if (at > 0 && buf[at - 1] === LF) return at + name.length;
      from = at + 1;
    }
  }
  return -1;
}

/** The unfolded, trimmed value of the field whose value starts at `pos` (RFC 5322 §2.2.3). */
function fieldValue(buf: Buffer, pos: number, end: number): string {
  let stop = pos;
  for (;;) {
    const lf = buf.indexOf(LF, stop);
    if (lf === -1 || lf >= end) {
      stop = end;
      break;
    }
    stop = lf + 1;
    const next = buf[stop];
    if (next !== SPACE && next !== TAB) break;
  }
  return buf
    .toString("utf8", pos, stop)
    .replace(/\r?\n(?=[ \t])/g, "")
    .trim();
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
