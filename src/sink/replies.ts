/**
 * Every reply the sink sends, built once as Buffers when the sink starts. Texts follow Postfix
 * smtpd so that clients (and humans) see familiar wording; enhanced status codes (RFC 3463) are
 * included only when ENHANCEDSTATUSCODES is advertised (RFC 2034 §3).
 */
import { formatReply } from "../smtp/reply-format.js";
import type { FilledSinkOptions } from "./filled-options.js";

export interface Replies {
  readonly banner: Buffer;
  /** EHLO/LHLO reply before and after TLS (STARTTLS is not offered twice, RFC 3207 §4.2). */
  readonly ehlo: Buffer;
  readonly ehloTls: Buffer;
  readonly helo: Buffer;
  readonly mailOk: Buffer;
  readonly rcptOk: Buffer;
  readonly dataGo: Buffer;
  readonly queued: Buffer;
  readonly bdatOk: Buffer;
  readonly ok: Buffer;
  readonly bye: Buffer;
  readonly vrfy: Buffer;
  readonly unknown: Buffer;
  readonly notImplemented: Buffer;
  readonly lineTooLong: Buffer;
  readonly textLineTooLong: Buffer;
  readonly bareLf: Buffer;
  readonly needMail: Buffer;
  readonly needRcpt: Buffer;
  readonly nestedMail: Buffer;
  readonly noValidRcpt: Buffer;
  readonly dataAfterBdat: Buffer;
  readonly needHelo: Buffer;
  readonly mailSyntax: Buffer;
  readonly rcptSyntax: Buffer;
  readonly bdatSyntax: Buffer;
  readonly sizeExceeded: Buffer;
  readonly sizeTooBig: Buffer;
  readonly tooManyRecipients: Buffer;
  readonly tooManyMessages: Buffer;
  readonly shuttingDown: Buffer;
  readonly timeout: Buffer;
  readonly tlsGo: Buffer;
  readonly tlsActive: Buffer;
  readonly authRequired: Buffer;
  readonly authOk: Buffer;
  readonly authFailed: Buffer;
  readonly authNotEnabled: Buffer;
  readonly authAlready: Buffer;
  readonly authMechanism: Buffer;
  readonly authCancelled: Buffer;
  readonly authContinue: Buffer;
  readonly authUsername: Buffer;
  readonly authPassword: Buffer;
  readonly helloSyntax: Buffer;
  readonly dataSyntax: Buffer;
}

export function buildReplies(o: FilledSinkOptions): Replies {
  const e = o.enhancedStatusCodes;
  const r = (code: number, enhanced: string, text: string) => formatReply(code, enhanced, text, e);
  const hello = o.lmtp ? "LHLO" : "EHLO";
  return Object.freeze({
    banner: Buffer.from(`220 ${o.hostname} ${o.lmtp ? "LMTP" : "ESMTP"} mailvolley\r\n`),
    ehlo: ehloReply(o, false),
    ehloTls: ehloReply(o, true),
    helo: Buffer.from(`250 ${o.hostname}\r\n`),
    mailOk: r(250, "2.1.0", "Ok"),
    rcptOk: r(250, "2.1.5", "Ok"),
    dataGo: Buffer.from("354 End data with <CR><LF>.<CR><LF>\r\n"),
    queued: r(250, "2.0.0", "Ok: queued"),
    bdatOk: r(250, "2.0.0", "Ok"),
    ok: r(250, "2.0.0", "Ok"),
    bye: r(221, "2.0.0", "Bye"),
    vrfy: r(502, "5.5.1", "VRFY command is disabled"),
    unknown: r(502, "5.5.2", "Error: command not recognized"),
    notImplemented: r(502, "5.5.1", "Error: command not implemented"),
    lineTooLong: r(500, "5.5.2", "Error: line too long"),
    textLineTooLong: r(500, "5.5.6", "Error: message text line too long"),
    bareLf: r(550, "5.5.2", "Error: bare <LF> received"),
    needMail: r(503, "5.5.1", "Error: need MAIL command"),
    needRcpt: r(503, "5.5.1", "Error: need RCPT command"),
    nestedMail: r(503, "5.5.1", "Error: nested MAIL command"),
    noValidRcpt: r(554, "5.5.1", "Error: no valid recipients"),
    dataAfterBdat: r(503, "5.5.1", "Error: DATA and BDAT do not mix in one transaction"),
    needHelo: r(503, "5.5.1", `Error: send ${o.lmtp ? "LHLO" : "HELO/EHLO"} first`),
    mailSyntax: r(501, "5.5.4", "Syntax: MAIL FROM:<address>"),
    rcptSyntax: r(501, "5.5.4", "Syntax: RCPT TO:<address>"),
    bdatSyntax: r(501, "5.5.4", "Syntax: BDAT count [LAST]"),
    sizeExceeded: r(552, "5.3.4", "Error: message file too big"),
    sizeTooBig: r(552, "5.3.4", "Message size exceeds fixed limit"),
    tooManyRecipients: r(452, "4.5.3", "Error: too many recipients"),
    tooManyMessages: r(421, "4.7.0", `${o.hostname} Error: too many messages in this session`),
    shuttingDown: r(421, "4.3.2", `${o.hostname} Service shutting down, closing connection`),
    timeout: r(421, "4.4.2", `${o.hostname} Error: timeout exceeded`),
    tlsGo: r(220, "2.0.0", "Ready to start TLS"),
    tlsActive: r(554, "5.5.1", "Error: TLS already active"),
    authRequired: r(530, "5.7.0", "Authentication required"),
    authOk: r(235, "2.7.0", "Authentication successful"),
    authFailed: r(535, "5.7.8", "Error: authentication failed"),
    authNotEnabled: r(503, "5.5.1", "Error: authentication not enabled"),
    authAlready: r(503, "5.5.1", "Error: already authenticated"),
    authMechanism: r(504, "5.5.4", "Unrecognized authentication type"),
    authCancelled: r(501, "5.7.0", "Authentication aborted"),
    authContinue: Buffer.from("334 \r\n"),
    authUsername: Buffer.from("334 VXNlcm5hbWU6\r\n"), // "Username:"
    authPassword: Buffer.from("334 UGFzc3dvcmQ6\r\n"), // "Password:"
    helloSyntax: r(501, "5.5.4", `Syntax: ${hello} hostname`),
    dataSyntax: r(501, "5.5.4", "Syntax: DATA"),
  });
}

function ehloReply(o: FilledSinkOptions, tls: boolean): Buffer {
  const lines = [o.hostname];
  if (o.pipelining) lines.push("PIPELINING");
  if (o.advertiseSize) lines.push(o.size > 0 ? `SIZE ${o.size}` : "SIZE");
  if (o.starttls && !tls) lines.push("STARTTLS");
  if (o.auth) lines.push("AUTH PLAIN LOGIN");
  if (o.enhancedStatusCodes) lines.push("ENHANCEDSTATUSCODES");
  if (o.eightBitMime) lines.push("8BITMIME");
  if (o.dsn) lines.push("DSN");
  if (o.xverp) lines.push("XVERP");
  if (o.smtpUtf8) lines.push("SMTPUTF8");
  if (o.chunking) lines.push("CHUNKING");
  const text = lines.map((line, i) => `250${i === lines.length - 1 ? " " : "-"}${line}\r\n`);
  return Buffer.from(text.join(""), "utf8");
}

/** The refusal at the banner for a connection over an emulated limit (Postfix anvil wording). */
export function tooManyConnections(o: FilledSinkOptions, client: string): Buffer {
  return formatReply(
    421,
    "4.7.0",
    `${o.hostname} Error: too many connections from ${client}`,
    o.enhancedStatusCodes,
  );
}

/** 450 at MAIL for a client over the message rate; the session stays open (Postfix anvil). */
export function tooMuchMail(o: FilledSinkOptions, client: string): Buffer {
  return formatReply(450, "4.7.1", `Error: too much mail from ${client}`, o.enhancedStatusCodes);
}
