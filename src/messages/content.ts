/**
 * Turning octets read from disk into content that is safe to send after DATA (RFC 5321 §4.5):
 * CRLF line ends, dot-stuffed, ending with CRLF, no NUL. Shared by every file source.
 */
import { dotStuff } from "../smtp/message.js";
import { readInputFile } from "../usage/input-file.js";
import { UsageError } from "../usage/usage-error.js";
import { type MessageContent, SourceError } from "./source.js";

const CR = 13;
const LF = 10;
const DOT = 46;
const NUL = 0;
/** RFC 5321 §4.5.3.1.6: 1000 octets per text line including the CRLF. */
const MAX_LINE = 998;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const BLANK_LINE = Buffer.from("\r\n\r\n", "latin1");
const SUBJECT = Buffer.from("subject:", "latin1");

export interface PreparedContent extends MessageContent {
  readonly longLines: number;
}

/**
 * The whole file, without a UTF-8 byte order mark; a failure or a file that is not a regular
 * one (a FIFO: each thread may read a source, and a pipe reads once) becomes a SourceError.
 */
export async function readSourceFile(file: string, what: string): Promise<Buffer> {
  let data: Buffer;
  try {
    data = await readInputFile(file, { what });
  } catch (error) {
    if (error instanceof UsageError) throw new SourceError(file, error.problem);
    throw error;
  }
  return data.subarray(0, 3).equals(BOM) ? data.subarray(3) : data;
}

/**
 * `raw` as content to send: line ends normalised, dot-stuffed (shared with the generated
 * messages: smtp/message.ts), long lines counted, the Subject read. `firstLine` is the line of
 * `raw` in `file`, for errors.
 */
export function prepareContent(raw: Buffer, file: string, firstLine = 1): PreparedContent {
  const nul = raw.indexOf(NUL);
  if (nul !== -1) {
    // RFC 5322 §4.1 keeps NUL only as obsolete syntax; many servers reject or truncate at it.
    throw new SourceError(
      file,
      "contains a NUL octet, which mail text may not carry; remove it or attach the data encoded",
      firstLine + linesBefore(raw, nul),
    );
  }
  const bytes = dotStuff(raw);
  const subject = readSubject(bytes);
  const longLines = countLongLines(bytes);
  return subject === undefined ? { bytes, longLines } : { bytes, subject, longLines };
}

/** Line ends (CRLF, bare LF, bare CR, as dotStuff counts them) in `buf[0, end)`. */
export function linesBefore(buf: Buffer, end: number): number {
  let lines = 0;
  for (let i = 0; i < end; i++) {
    const c = buf[i];
    if (c === LF) lines++;
    else if (c === CR) {
      lines++;
      if (buf[i + 1] === LF && i + 1 < end) i++;
    }
  }
  return lines;
}

/** Lines of CRLF-terminated, dot-stuffed `bytes` over 998 octets, the stuffed dot not counted. */
export function countLongLines(bytes: Buffer): number {
  let count = 0;
  let start = 0;
  for (;;) {
    const lf = bytes.indexOf(LF, start);
    if (lf === -1) return count;
    let length = lf - 1 - start;
    if (bytes[start] === DOT) length--;
    if (length > MAX_LINE) count++;
    start = lf + 1;
  }
}

/**
 * The unfolded, trimmed value of the first Subject field in the header block (RFC 5322 §2.2.3,
 * §3.6.5), read as the sink reads it: UTF-8, names in any case.
 */
export function readSubject(bytes: Buffer): string | undefined {
  const blank = bytes.indexOf(BLANK_LINE);
  // Content starting with an empty line has no header block at all.
  const end = bytes[0] === CR ? 0 : blank === -1 ? bytes.length : blank + 2;
  let start = 0;
  while (start < end) {
    const lf = bytes.indexOf(LF, start);
    const next = lf === -1 || lf >= end ? end : lf + 1;
    if (isSubjectName(bytes, start, end)) return fieldValue(bytes, start + SUBJECT.length, end);
    start = next;
  }
  return undefined;
}

function isSubjectName(bytes: Buffer, at: number, end: number): boolean {
  if (at + SUBJECT.length > end) return false;
  for (let i = 0; i < SUBJECT.length; i++) {
    const c = bytes[at + i];
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== SUBJECT[i]) return false;
  }
  return true;
}

function fieldValue(bytes: Buffer, pos: number, end: number): string {
  let stop = pos;
  for (;;) {
    const lf = bytes.indexOf(LF, stop);
    if (lf === -1 || lf >= end) {
      stop = end;
      break;
    }
    stop = lf + 1;
    if (bytes[stop] !== 32 && bytes[stop] !== 9) break;
  }
  return bytes
    .toString("utf8", pos, stop)
    .replace(/\r\n(?=[ \t])/g, "")
    .trim();
}
