/**
 * SMTP/LMTP command handling (RFC 5321 §4.1, RFC 2033, RFC 3030). The verb is read as one
 * number (verbAt) and dispatched by a switch; arguments are looked at only where a rule needs
 * them. Each handler queues exactly one reply (or closes) and updates the transaction state.
 */
import {
  matchesIgnoreCase,
  numericParameter,
  parseDecimal,
  verbAt,
  verbCode,
  wordEnd,
} from "../smtp/command-parser.js";
import { authCommand, authLine } from "./auth.js";
import { pathArgument } from "./envelope-log.js";
import {
  applyFault,
  F_DATA,
  F_EHLO,
  F_MAIL,
  F_NOOP,
  F_QUIT,
  F_RCPT,
  F_RSET,
  F_STARTTLS,
  isPositive,
} from "./faults.js";
import { AUTH_NONE, type Session } from "./session-state.js";

const SPACE = 32;

const V_MAIL = verbCode("mail");
const V_RCPT = verbCode("rcpt");
const V_DATA = verbCode("data");
const V_BDAT = verbCode("bdat");
const V_RSET = verbCode("rset");
const V_NOOP = verbCode("noop");
const V_QUIT = verbCode("quit");
const V_EHLO = verbCode("ehlo");
const V_HELO = verbCode("helo");
const V_LHLO = verbCode("lhlo");
const V_VRFY = verbCode("vrfy");
const V_EXPN = verbCode("expn");
const V_AUTH = verbCode("auth");
const V_STAR = verbCode("star");

/** One command line `buf[start, end)` (CRLF excluded); `length` counts the line with its end. */
export function command(s: Session, buf: Buffer, start: number, end: number, length: number): void {
  if (s.state.authStep !== AUTH_NONE) {
    authLine(s, buf, start, end);
    return;
  }
  const r = s.ctx.replies;
  if (end - start < 4) {
    s.reply(r.unknown);
    return;
  }
  const verb = verbAt(buf, start);
  // RFC 5321 §4.5.3.1.4: 512 octets; AUTH lines may be longer (RFC 4954 §4).
  if (length > s.ctx.options.maxCommandLine && verb !== V_AUTH) {
    s.reply(r.lineTooLong);
    return;
  }
  if (end - start > 4 && buf[start + 4] !== SPACE) {
    if (verb === V_STAR && end - start === 8 && matchesIgnoreCase(buf, start, end, "starttls")) {
      starttls(s);
    } else s.reply(r.unknown);
    return;
  }
  dispatch(s, verb, buf, start, end);
}

function dispatch(s: Session, verb: number, buf: Buffer, start: number, end: number): void {
  const r = s.ctx.replies;
  switch (verb) {
    case V_MAIL:
      mail(s, buf, start, end);
      return;
    case V_RCPT:
      rcpt(s, buf, start, end);
      return;
    case V_DATA:
      data(s, start, end);
      return;
    case V_BDAT:
      bdat(s, buf, start, end);
      return;
    case V_RSET:
      if (applyFault(s, F_RSET) !== null) return;
      s.state.resetTransaction();
      s.reply(r.ok);
      return;
    case V_NOOP:
      if (applyFault(s, F_NOOP) === null) s.reply(r.ok);
      return;
    case V_QUIT:
      if (applyFault(s, F_QUIT) !== null) return;
      s.reply(r.bye);
      s.closeAfterReplies();
      return;
    case V_EHLO:
    case V_HELO:
    case V_LHLO:
      hello(s, verb, start, end);
      return;
    case V_VRFY:
    case V_EXPN:
      s.reply(r.vrfy);
      return;
    case V_AUTH:
      authCommand(s, buf, start, end);
      return;
    default:
      s.reply(r.unknown);
      return;
  }
}

/** EHLO/HELO (RFC 5321 §4.1.1.1) or LHLO (RFC 2033 §4.1); it also resets the transaction. */
function hello(s: Session, verb: number, start: number, end: number): void {
  const r = s.ctx.replies;
  const lmtp = s.ctx.options.lmtp;
  if (lmtp !== (verb === V_LHLO)) {
    s.reply(r.unknown);
    return;
  }
  if (end - start < 6) {
    s.reply(r.helloSyntax);
    return;
  }
  if (applyFault(s, F_EHLO) !== null) return;
  s.state.greet();
  if (verb === V_HELO) s.reply(r.helo);
  else s.reply(s.state.tls ? r.ehloTls : r.ehlo);
}

function mail(s: Session, buf: Buffer, start: number, end: number): void {
  const ctx = s.ctx;
  const r = ctx.replies;
  const o = ctx.options;
  if (!matchesIgnoreCase(buf, start + 4, end, " from:")) {
    s.reply(r.mailSyntax);
    return;
  }
  if (o.lmtp && !s.state.greeted) {
    s.reply(r.needHelo);
    return;
  }
  if (s.state.inMail) {
    s.reply(r.nestedMail);
    return;
  }
  const refusal = mailRefusal(s, buf, start, end);
  if (refusal !== null) {
    ctx.counters.mailRejected++;
    s.reply(refusal);
    if (refusal === r.tooManyMessages) s.closeAfterReplies();
    return;
  }
  const fault = applyFault(s, F_MAIL);
  if (fault !== null && !isPositive(fault)) {
    if (fault.reply !== null) ctx.counters.mailRejected++;
    return;
  }
  s.state.startMail();
  // "MAIL FROM:" is 10 octets; the path follows.
  if (ctx.envelopes !== null || ctx.receiver !== null) {
    s.state.envelope = { from: pathArgument(buf, start + 10, end), rcpts: [] };
    if (ctx.receiver !== null) s.state.envelope.envid = envidOf(buf, start + 10, end);
  }
  if (fault === null) s.reply(r.mailOk);
}

/** The emulated gateway's answer to a MAIL it refuses, or null. */
function mailRefusal(s: Session, buf: Buffer, start: number, end: number): Buffer | null {
  const ctx = s.ctx;
  const o = ctx.options;
  if (o.auth !== undefined && !s.state.authenticated) return ctx.replies.authRequired;
  if (o.maxMessagesPerSession > 0 && s.state.messages >= o.maxMessagesPerSession) {
    return ctx.replies.tooManyMessages;
  }
  if (ctx.limits.messageRateLimited) {
    const refusal = ctx.limits.mail(s.client, Date.now());
    if (refusal !== null) return refusal;
  }
  // RFC 1870 §6: a declared SIZE over the limit is refused at MAIL.
  if (o.size > 0 && numericParameter(buf, start + 10, end, "size=") > o.size) {
    return ctx.replies.sizeTooBig;
  }
  return null;
}

function rcpt(s: Session, buf: Buffer, start: number, end: number): void {
  const ctx = s.ctx;
  const r = ctx.replies;
  const c = ctx.counters;
  if (!matchesIgnoreCase(buf, start + 4, end, " to:")) {
    s.reply(r.rcptSyntax);
    return;
  }
  if (!s.state.inMail) {
    s.reply(r.needMail);
    return;
  }
  if (ctx.options.maxRecipients > 0 && s.state.rcpts >= ctx.options.maxRecipients) {
    c.recipientsRejected++;
    s.reply(r.tooManyRecipients);
    return;
  }
  const fault = applyFault(s, F_RCPT);
  if (fault !== null && !isPositive(fault)) {
    if (fault.reply !== null) c.recipientsRejected++;
    const rcpt = pathArgument(buf, start + 8, end); // after "RCPT TO:"
    ctx.receiver?.refusedRcpt(s.state.envelope, rcpt, fault.reply, ctx.clock.epochMs());
    return;
  }
  s.state.addRecipient();
  s.state.envelope?.rcpts.push(pathArgument(buf, start + 8, end)); // after "RCPT TO:"
  c.recipients++;
  if (fault === null) s.reply(r.rcptOk);
}

function data(s: Session, start: number, end: number): void {
  const r = s.ctx.replies;
  if (end - start !== 4) {
    s.reply(r.dataSyntax);
    return;
  }
  const st = s.state;
  if (!st.inMail) {
    s.reply(r.needMail);
    return;
  }
  if (st.usedBdat) {
    s.reply(r.dataAfterBdat);
    return;
  }
  if (st.rcpts === 0) {
    s.reply(r.noValidRcpt);
    return;
  }
  if (applyFault(s, F_DATA) !== null) return;
  s.reply(r.dataGo);
  s.beginData();
}

/**
 * BDAT (RFC 3030 §2): exactly `size` octets follow the line. When the transaction is not
 * acceptable the octets are still consumed and each BDAT is answered with the error until
 * LAST, as Postfix smtpd does, so the session stays in step.
 */
function bdat(s: Session, buf: Buffer, start: number, end: number): void {
  const r = s.ctx.replies;
  if (!s.ctx.options.chunking) {
    s.reply(r.notImplemented);
    return;
  }
  const sizeEnd = wordEnd(buf, start + 5, end);
  const size = parseDecimal(buf, start + 5, sizeEnd);
  const last = sizeEnd + 5 === end && matchesIgnoreCase(buf, sizeEnd, end, " last");
  if (size < 0 || (sizeEnd !== end && !last)) {
    s.reply(r.bdatSyntax);
    return;
  }
  const st = s.state;
  if (st.bdatError === null && !st.usedBdat) {
    if (!st.inMail) st.refuseBdat(r.needMail);
    else if (st.rcpts === 0) st.refuseBdat(r.noValidRcpt);
  }
  s.beginBdat(size, last);
}

/** STARTTLS (RFC 3207 §4): the reply, then the handshake; nothing after it is read as plaintext. */
function starttls(s: Session): void {
  const r = s.ctx.replies;
  if (!s.ctx.options.starttls || s.ctx.secureContext === null) {
    s.reply(r.notImplemented);
    return;
  }
  if (s.state.tls) {
    s.reply(r.tlsActive);
    return;
  }
  if (applyFault(s, F_STARTTLS) !== null) return;
  s.reply(r.tlsGo);
  s.startTls();
}

/** MAIL's ENVID= value (RFC 3461 §4.4, xtext as sent), or undefined. */
function envidOf(buf: Buffer, start: number, end: number): string | undefined {
  const m = /\sENVID=(\S+)/i.exec(buf.toString("latin1", start, end));
  return m?.[1];
}
