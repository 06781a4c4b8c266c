/**
 * Byte-level parser for SMTP replies (RFC 5321 §4.2).
 *
 * A reply is one or more lines `ddd-text` ending with a line `ddd text` (or `ddd` alone, or
 * `ddd ` with empty text, as Postfix smtp-sink sends). The parser scans each chunk with
 * `indexOf(LF)` and index cursors; it copies bytes only when a line spans two chunks, and it
 * builds strings only for replies whose text somebody wants: error replies (code >= 400),
 * replies read while keepText(true) is in force (the EHLO capabilities), and those its handler
 * asks for (wantsText). A 250 on the hot path costs no allocation.
 */

import { isUtf8 } from "node:buffer";

const LF = 10;
const CR = 13;
const SPACE = 32;
const HYPHEN = 45;
const DIGIT_0 = 48;
const DOT = 46;

/**
 * RFC 5321 §4.5.3.1.5 caps a reply line at 512 octets; real servers exceed it in EHLO and error
 * text, so the parser allows more before it calls the peer broken.
 */
export const MAX_REPLY_LINE = 4096;
/** A reply longer than this many lines is a protocol error (a peer streaming `250-` forever). */
export const MAX_REPLY_LINES = 256;

export interface ReplyHandler {
  /**
   * One complete reply. `lines` holds the text of every line (after `ddd` and the separator)
   * when the text was captured, else null.
   */
  onReply(code: number, lines: string[] | null): void;
  /** The peer sent something that is not an SMTP reply; the parser stops. */
  onProtocolError(reason: string): void;
  /**
   * Asked as a positive reply begins while only error text is kept: keep this one's text too
   * (a client wants a message's final reply for the queue id it names, and no other).
   */
  wantsText?(): boolean;
}

export class ReplyParser {
  /** Capture the text of every reply, not only of error replies (set while reading EHLO). */
  private captureText = false;
  /**
   * The subject of the current reply's enhanced status code (RFC 3463 `class.subject.detail`,
   * e.g. 1 for 2.1.0: addressing), read from its first line's bytes; -1 when it has none.
   * Valid while onReply runs.
   */
  enhancedSubject = -1;
  /**
   * Chunks pushed so far: replies read in one chunk were all sent before anything the client
   * wrote in answer to the first of them (a client's early-reply check).
   */
  chunks = 0;
  private carry: Buffer | null = null;
  private code = 0;
  private lineCount = 0;
  private lines: string[] | null = null;
  /** The buffer and range of the reply's last line while onReply runs (for replyLine). */
  private lastLine: Buffer | null = null;
  private lastStart = 0;
  private lastEnd = 0;
  private failed = false;
  /** Set by reset() so that push() drops the rest of the chunk it is reading. */
  private resetInPush = false;

  constructor(private readonly handler: ReplyHandler) {}

  /** Keep the text of every reply from the next one on (`on`), or of error replies only. */
  keepText(on: boolean): void {
    this.captureText = on;
  }

  /**
   * Forget any partial reply and whatever else the current chunk holds (after the 220 to
   * STARTTLS, RFC 3207 §5: bytes that came before the handshake must not be acted on).
   */
  reset(): void {
    this.resetInPush = true;
    this.carry = null;
    this.code = 0;
    this.lineCount = 0;
    this.lines = null;
  }

  /** Back to a new connection's start: nothing read, nothing failed. */
  clear(): void {
    this.reset();
    this.failed = false;
    this.enhancedSubject = -1;
  }

  /**
   * The last line of the reply being handed to onReply, code included ("250 2.1.0 Ok"), also
   * when its text was not captured: for the rare reply worth quoting, decoded only when asked.
   * "" outside onReply.
   */
  replyLine(): string {
    return this.lastLine === null ? "" : replyText(this.lastLine, this.lastStart, this.lastEnd);
  }

  /** True while a reply has begun but its last line has not arrived. */
  get midReply(): boolean {
    return this.carry !== null || this.lineCount > 0;
  }

  /**
   * The bytes `chunk[0, length)`: a read into a shared buffer hands the whole buffer and the
   * count read, so that no Buffer is made per read; what lies beyond `length` is not looked at.
   */
  push(chunk: Buffer, length = chunk.length): void {
    this.chunks++;
    if (this.failed) return;
    this.resetInPush = false;
    let pos = 0;
    if (this.carry !== null) {
      const lf = lfBefore(chunk, 0, length);
      if (lf === -1) {
        this.carry = Buffer.concat([this.carry, chunk.subarray(0, length)]);
        // +1: the CR of a maximal line may arrive before its LF.
        if (this.carry.length > MAX_REPLY_LINE + 1) this.fail("reply line too long");
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, lf + 1)]);
      this.carry = null;
      if (!this.line(line, 0, line.length - 1) || this.resetInPush) return;
      pos = lf + 1;
    }
    while (pos < length) {
      const lf = lfBefore(chunk, pos, length);
      if (lf === -1) {
        if (length - pos > MAX_REPLY_LINE + 1) {
          this.fail("reply line too long");
          return;
        }
        this.carry = Buffer.from(chunk.subarray(pos, length));
        return;
      }
      if (!this.line(chunk, pos, lf) || this.resetInPush) return;
      pos = lf + 1;
    }
  }

  /** One line in `buf[start, lf)`; returns false when the parser failed. */
  private line(buf: Buffer, start: number, lf: number): boolean {
    let end = lf;
    if (end > start && buf[end - 1] === CR) end--;
    if (end - start > MAX_REPLY_LINE) return this.fail("reply line too long");
    if (end - start < 3) return this.fail("reply line shorter than a code");
    const d0 = buf[start] - DIGIT_0;
    const d1 = buf[start + 1] - DIGIT_0;
    const d2 = buf[start + 2] - DIGIT_0;
    // RFC 5321 §4.2: first digit 2..5, second 0..5, third 0..9.
    if (d0 < 2 || d0 > 5 || d1 < 0 || d1 > 5 || d2 < 0 || d2 > 9) {
      return this.fail("reply line does not start with a reply code");
    }
    const code = d0 * 100 + d1 * 10 + d2;
    let last = true;
    if (end - start > 3) {
      const sep = buf[start + 3];
      if (sep === HYPHEN) last = false;
      else if (sep !== SPACE) return this.fail("reply code not followed by space or hyphen");
    }
    if (this.lineCount === 0) {
      this.code = code;
      this.enhancedSubject = subjectAt(buf, start + 4, end, d0);
      if (this.captureText || code >= 400 || this.handler.wantsText?.()) this.lines = [];
    } else if (code !== this.code) {
      return this.fail("multi-line reply changes its code");
    }
    this.lineCount++;
    if (this.lineCount > MAX_REPLY_LINES) return this.fail("reply has too many lines");
    if (this.lines !== null) {
      this.lines.push(end - start > 4 ? replyText(buf, start + 4, end) : "");
    }
    if (last) {
      const lines = this.lines;
      this.lines = null;
      this.lineCount = 0;
      this.lastLine = buf;
      this.lastStart = start;
      this.lastEnd = end;
      this.handler.onReply(code, lines);
      this.lastLine = null;
    }
    return !this.failed;
  }

  private fail(reason: string): false {
    this.failed = true;
    this.carry = null;
    this.handler.onProtocolError(reason);
    return false;
  }
}

/** The first LF in buf[from, end), or -1. */
function lfBefore(buf: Buffer, from: number, end: number): number {
  const lf = buf.indexOf(LF, from);
  return lf < end ? lf : -1;
}

/**
 * The subject of an enhanced status code `class.subject.detail` at buf[at, end) whose class is
 * the reply code's first digit, or -1. Bytes only: no string on the hot path.
 */
function subjectAt(buf: Buffer, at: number, end: number, cls: number): number {
  if (end - at < 5 || buf[at] - DIGIT_0 !== cls || buf[at + 1] !== DOT) return -1;
  let subject = 0;
  let i = at + 2;
  for (; i < end && i - at - 2 < 3; i++) {
    const d = buf[i] - DIGIT_0;
    if (d < 0 || d > 9) break;
    subject = subject * 10 + d;
  }
  if (i === at + 2 || i >= end || buf[i] !== DOT) return -1;
  const detail = buf[i + 1] - DIGIT_0;
  return i + 1 < end && detail >= 0 && detail <= 9 ? subject : -1;
}

/**
 * The enhanced status code (RFC 3463, `class.subject.detail`) at the start of a reply's text,
 * or "" when there is none.
 */
export function enhancedCode(text: string): string {
  let i = 0;
  const c = text.charCodeAt(0);
  if (c !== 50 && c !== 52 && c !== 53) return ""; // 2, 4, 5
  i = 1;
  for (let part = 0; part < 2; part++) {
    if (text.charCodeAt(i) !== 46) return ""; // "."
    i++;
    const start = i;
    while (i < text.length && i - start < 3 && isDigit(text.charCodeAt(i))) i++;
    if (i === start) return "";
  }
  if (i < text.length && text.charCodeAt(i) !== SPACE) return "";
  return text.slice(0, i);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * A MAIL reply that names a limit of the session rather than of the message or the sender:
 * RFC 3463 X.5.3 ("too many recipients" at RCPT, "too many messages" at MAIL in OpenSMTPD).
 */
export function namesSessionLimit(lines: string[] | null): boolean {
  const first = lines?.[0] ?? "";
  if (enhancedCode(first) === "4.5.3") return true;
  return /too many messages/i.test((lines ?? []).join(" "));
}

/**
 * A reply's text as the server wrote it: UTF-8 where its octets are valid UTF-8 (an SMTPUTF8
 * server, RFC 6531, may answer in it), else latin-1, which gives every octet one character and
 * never fails. Only captured text is decoded: error replies and EHLO, not the hot path's 250s.
 */
function replyText(buf: Buffer, start: number, end: number): string {
  return isUtf8(buf.subarray(start, end))
    ? buf.toString("utf8", start, end)
    : buf.toString("latin1", start, end);
}
