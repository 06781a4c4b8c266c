/**
 * The end of a mail transaction: the verdict on the received content (size, text checks,
 * faults), the counts, per-class figures and the reply, one per recipient for LMTP.
 */
import { applyFault, F_BDAT, F_DOT, isPositive } from "./faults.js";
import { DEFAULT_CLASS, type MessageHeaders, readHeaders } from "./headers.js";
import type { Session } from "./session-state.js";

/**
 * The content of a transaction has arrived: `bytes` octets (dot-stuffed as received when
 * `stuffed`, i.e. DATA; exact BDAT octets otherwise).
 */
export function finishMessage(s: Session, bytes: number, stuffed: boolean): void {
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
    rejected(s, headers, error);
  } else if (o.lmtp) {
    lmtpVerdicts(s, headers, stuffed);
  } else {
    const fault = endOfMessageFault(s, stuffed);
    if (fault === null) {
      s.reply(r.queued);
      accepted(s, headers, stuffed);
    } else if (isPositive(fault)) accepted(s, headers, stuffed);
    else if (fault.reply !== null) rejected(s, headers, fault.reply);
  }
  s.state.resetTransaction();
}

/**
 * The fault for the end of the content. A `dot` rule stands for the end of a message however it
 * arrived: DATA's final dot, or `BDAT n LAST` (RFC 3030), which clients such as Exim pipeline
 * instead of DATA. A `bdat` rule still answers every BDAT, the last one too.
 */
function endOfMessageFault(s: Session, stuffed: boolean) {
  const fault = applyFault(s, F_DOT);
  return fault !== null || stuffed ? fault : applyFault(s, F_BDAT);
}

/** LMTP (RFC 2033 §4.2): one reply per accepted recipient, in RCPT order. */
function lmtpVerdicts(s: Session, headers: MessageHeaders | null, stuffed: boolean): void {
  let delivered = 0;
  let refused = 0;
  let refusal: Buffer | null = null;
  for (let i = 0; i < s.state.rcpts; i++) {
    const fault = applyFault(s, F_DOT);
    if (fault === null) {
      s.reply(s.ctx.replies.queued);
      delivered++;
    } else if (isPositive(fault)) delivered++;
    else if (fault.reply !== null) {
      refused++;
      refusal = fault.reply;
    }
    if (fault?.close) break;
  }
  if (delivered > 0) accepted(s, headers, stuffed);
  else if (refused > 0) rejected(s, headers, refusal);
}

const NO_HEADERS: MessageHeaders = Object.freeze({ className: DEFAULT_CLASS, sentMs: -1 });
/** The message's headers, read anew for each message: finishMessage uses them before it returns. */
const headers: MessageHeaders = { className: DEFAULT_CLASS, sentMs: -1 };

function inspect(s: Session): MessageHeaders {
  const st = s.state;
  const head = st.head;
  if (head === null) return NO_HEADERS;
  const bySubject = s.ctx.options.classBySubject;
  if (!st.headSplit) return readHeaders(head, bySubject, st.headStart, st.headEnd, headers);
  const joined = Buffer.concat(st.pieces!);
  return readHeaders(joined, bySubject, 0, joined.length, headers);
}

function accepted(s: Session, headers: MessageHeaders | null, stuffed: boolean): void {
  const ctx = s.ctx;
  ctx.counters.messagesAccepted++;
  ctx.counters.lastMessageMs = ctx.clock.wallMs();
  ctx.envelopes?.write(s.state.envelope, true);
  if (ctx.classes !== null) {
    const sent = headers?.sentMs ?? -1;
    ctx.classes.accepted(
      headers?.className ?? DEFAULT_CLASS,
      sent < 0 ? -1 : Math.max(0, ctx.clock.epochMs() - sent),
    );
  }
  if (ctx.receiver !== null) {
    ctx.receiver.arrived(keptContent(s), s.state.envelope, ctx.clock.epochMs());
  }
  if (ctx.options.dump !== undefined) {
    const pieces = s.state.pieces;
    if (pieces !== null) ctx.dump(pieces, stuffed);
  }
  ctx.progress();
}

/** The transaction was refused after its content, with `reply`. */
function rejected(s: Session, headers: MessageHeaders | null, reply: Buffer | null): void {
  s.ctx.counters.messagesRejected++;
  s.ctx.receiver?.refused(keptContent(s), s.state.envelope, reply, s.ctx.clock.epochMs());
  s.ctx.envelopes?.write(s.state.envelope, false);
  s.ctx.classes?.rejected(headers?.className ?? DEFAULT_CLASS);
}

/** The kept start of the message as one Buffer (a view when it came in one read chunk). */
function keptContent(s: Session): Buffer {
  const st = s.state;
  if (st.head === null) return Buffer.alloc(0);
  if (!st.headSplit) return st.head.subarray(st.headStart, st.headEnd);
  return Buffer.concat(st.pieces!);
}
