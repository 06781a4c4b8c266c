/**
 * The end of a mail transaction: the verdict on the received content (size, text checks,
 * faults), the counts, per-class figures and the reply, one per recipient for LMTP.
 */
import type { CompiledFault } from "./faults.js";
import { F_BDAT, F_DOT } from "./faults.js";
import { DEFAULT_CLASS, type MessageHeaders, readHeaders } from "./headers.js";
import type { SinkSession } from "./session.js";

const DIGIT_2 = 50;

/**
 * Applies the fault rule for command `index` if one fires. Returns the fault when it replaced
 * the normal reply (its reply is queued, or the connection is closing); null when the command
 * goes on normally (perhaps with a delay or a DATA abort armed).
 */
export function applyFault(s: SinkSession, index: number): CompiledFault | null {
  const faults = s.ctx.faults;
  if (faults.byCommand[index] === null) return null;
  const fault = faults.pick(index);
  if (fault === null) return null;
  const delay = faults.delay(fault);
  if (delay > 0) s.hold(delay);
  const action = fault.rule.action;
  if (action === "ok") return null;
  if (action === "abort") {
    s.abortAfter = fault.rule.afterBytes ?? 0;
    return null;
  }
  if (fault.reply !== null) s.reply(fault.reply);
  if (fault.close) s.closeAfterReplies();
  return fault;
}

/** True when the fault's reply is 2xx (a fault may answer "250 …" with custom text). */
export function isPositive(fault: CompiledFault): boolean {
  return fault.reply !== null && fault.reply[0] === DIGIT_2;
}

/**
 * The content of a transaction has arrived: `bytes` octets (dot-stuffed as received when
 * `stuffed`, i.e. DATA; exact BDAT octets otherwise).
 */
export function finishMessage(s: SinkSession, bytes: number, stuffed: boolean): void {
  const ctx = s.ctx;
  const o = ctx.options;
  const r = ctx.replies;
  ctx.counters.bytes += bytes;
  let error: Buffer | null = null;
  if (o.size > 0 && bytes > o.size) error = r.sizeExceeded;
  else if (s.lines !== null) {
    if (s.lines.bareLf && o.bareLf === "reject") error = r.bareLf;
    else if (s.lines.tooLong) error = r.textLineTooLong;
  }
  const headers = ctx.classes === null ? null : inspect(s);
  if (error !== null) {
    s.reply(error);
    rejected(s, headers);
  } else if (o.lmtp) {
    lmtpVerdicts(s, headers, stuffed);
  } else {
    const fault = applyFault(s, stuffed ? F_DOT : F_BDAT);
    if (fault === null) {
      s.reply(r.queued);
      accepted(s, headers, stuffed);
    } else if (isPositive(fault)) accepted(s, headers, stuffed);
    else if (fault.reply !== null) rejected(s, headers);
  }
  s.resetTransaction();
}

/** LMTP (RFC 2033 §4.2): one reply per accepted recipient, in RCPT order. */
function lmtpVerdicts(s: SinkSession, headers: MessageHeaders | null, stuffed: boolean): void {
  let delivered = 0;
  let refused = 0;
  for (let i = 0; i < s.rcpts; i++) {
    const fault = applyFault(s, F_DOT);
    if (fault === null) {
      s.reply(s.ctx.replies.queued);
      delivered++;
    } else if (isPositive(fault)) delivered++;
    else if (fault.reply !== null) refused++;
    if (fault?.close) break;
  }
  if (delivered > 0) accepted(s, headers, stuffed);
  else if (refused > 0) rejected(s, headers);
}

const NO_HEADERS: MessageHeaders = Object.freeze({ className: DEFAULT_CLASS, sentMs: -1 });

function inspect(s: SinkSession): MessageHeaders {
  const pieces = s.pieces;
  if (pieces === null || pieces.length === 0) return NO_HEADERS;
  const head = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
  return readHeaders(head, s.ctx.options.classBySubject);
}

function accepted(s: SinkSession, headers: MessageHeaders | null, stuffed: boolean): void {
  const ctx = s.ctx;
  ctx.counters.messagesAccepted++;
  if (ctx.classes !== null) {
    const sent = headers?.sentMs ?? -1;
    ctx.classes.accepted(
      headers?.className ?? DEFAULT_CLASS,
      sent < 0 ? -1 : Math.max(0, epochNowMs() - sent),
    );
  }
  if (ctx.options.dump !== undefined && s.pieces !== null) ctx.dump(s.pieces, stuffed);
  ctx.progress();
}

function rejected(s: SinkSession, headers: MessageHeaders | null): void {
  s.ctx.counters.messagesRejected++;
  s.ctx.classes?.rejected(headers?.className ?? DEFAULT_CLASS);
}

/** Epoch milliseconds with a sub-millisecond fraction, as the client stamps X-Mailvolley-Sent. */
export function epochNowMs(): number {
  return performance.timeOrigin + performance.now();
}
