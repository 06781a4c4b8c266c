/**
 * Server bytes recorded from the real peers (test/helpers/: smtp-sink.ts, aiosmtpd.ts,
 * smtp-server.ts) with the raw lock-step client, not invented. Conversation unless noted: EHLO client.test, MAIL, RCPT, DATA, a short
 * message, RSET, NOOP, BOGUS, QUIT. Recorded 2026-12 with Postfix 3.7 smtp-sink, aiosmtpd 1.4.3
 * (Debian python3-aiosmtpd) and npm smtp-server 3.21.
 */

/** Postfix smtp-sink: its EHLO reply ends with the line `250 ` (code and a space, no text). */
export const SMTP_SINK_SESSION =
  "220 smtp-sink ESMTP\r\n" +
  "250-smtp-sink\r\n250-PIPELINING\r\n250-8BITMIME\r\n250-AUTH PLAIN LOGIN\r\n" +
  "250-XCLIENT NAME HELO\r\n250-XFORWARD NAME ADDR PROTO HELO\r\n250-ENHANCEDSTATUSCODES\r\n" +
  "250-DSN\r\n250 \r\n" +
  "250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n250 2.0.0 Ok\r\n" +
  "250 2.1.0 Ok\r\n250 2.0.0 Ok\r\n500 5.5.1 Error: unknown command\r\n221 Bye\r\n";

/**
 * smtp-sink answering pipelined groups: the replies to MAIL, two RCPTs and DATA came in one
 * read, then the dot's reply together with the next group's replies.
 */
export const SMTP_SINK_PIPELINED_CHUNKS = [
  "250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n",
  "250 2.0.0 Ok\r\n250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n",
  "250 2.0.0 Ok\r\n221 Bye\r\n",
];

/** smtp-sink -r RCPT (soft-reject RCPT) -f . : EHLO, MAIL, RCPT, RSET, MAIL, QUIT. No PIPELINING. */
export const SMTP_SINK_REJECT_SESSION =
  "220 smtp-sink ESMTP\r\n" +
  "250-smtp-sink\r\n250-8BITMIME\r\n250-AUTH PLAIN LOGIN\r\n250-XCLIENT NAME HELO\r\n" +
  "250-XFORWARD NAME ADDR PROTO HELO\r\n250-ENHANCEDSTATUSCODES\r\n250-DSN\r\n250 \r\n" +
  "250 2.1.0 Ok\r\n450 4.3.0 Error: command failed\r\n250 2.1.0 Ok\r\n250 2.1.0 Ok\r\n221 Bye\r\n";

/** smtp-sink -Q CONNECT: a 421 instead of the banner, then the connection closes. */
export const SMTP_SINK_421_BANNER = "421 4.0.0 Server closing connection\r\n";

/** aiosmtpd 1.4.3: no PIPELINING, no enhanced codes except on the dot's reply. */
export const AIOSMTPD_SESSION =
  "220 localhost Python SMTP 1.4.3\r\n" +
  "250-localhost\r\n250-SIZE 33554432\r\n250-8BITMIME\r\n250 HELP\r\n" +
  "250 OK\r\n250 OK\r\n354 End data with <CR><LF>.<CR><LF>\r\n250 2.0.0 Ok: queued\r\n" +
  '250 OK\r\n250 OK\r\n500 Error: command "BOGUS" not recognized\r\n221 Bye\r\n';

/** npm smtp-server 3.21 (AUTH and STARTTLS disabled). */
export const SMTP_SERVER_SESSION =
  "220 vm ESMTP\r\n" +
  "250-vm Nice to meet you, runsc\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n" +
  "250 Accepted\r\n250 Accepted\r\n354 End data with <CR><LF>.<CR><LF>\r\n250 Ok: queued\r\n" +
  "250 Flushed\r\n250 OK\r\n500 Error: command not recognized\r\n221 Bye\r\n";

/** npm smtp-server to a client that wrote EHLO before the banner. */
export const SMTP_SERVER_EARLY_TALK = "421 vm You talk too soon\r\n";
