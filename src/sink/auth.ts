/**
 * AUTH PLAIN and LOGIN (RFC 4954, RFC 4616; LOGIN as deployed). Offered only when the sink was
 * given `--auth user:pass`; then MAIL needs a successful AUTH first (530 5.7.0, RFC 4954 §6).
 * AUTH is a synchronisation point, so strings here cost nothing on the message hot path.
 */
import { matchesIgnoreCase, wordEnd } from "../smtp/command-parser.js";
import { F_AUTH } from "./faults.js";
import {
  AUTH_LOGIN_PASS,
  AUTH_LOGIN_USER,
  AUTH_NONE,
  AUTH_PLAIN,
  type SinkSession,
} from "./session.js";
import { applyFault } from "./transaction.js";

/** `AUTH mechanism [initial-response]`. */
export function authCommand(s: SinkSession, buf: Buffer, start: number, end: number): void {
  const r = s.ctx.replies;
  if (s.ctx.options.auth === undefined) {
    s.reply(r.authNotEnabled);
    return;
  }
  if (s.authenticated) {
    s.reply(r.authAlready);
    return;
  }
  if (s.inMail) {
    s.reply(r.nestedMail);
    return;
  }
  const mechStart = start + 5;
  const mechEnd = wordEnd(buf, mechStart, end);
  const initial = mechEnd < end ? buf.toString("latin1", mechEnd + 1, end).trim() : null;
  if (applyFault(s, F_AUTH) !== null) return;
  if (mechEnd - mechStart === 5 && matchesIgnoreCase(buf, mechStart, mechEnd, "plain")) {
    if (initial === null) {
      s.authStep = AUTH_PLAIN;
      s.reply(r.authContinue);
      return;
    }
    checkPlain(s, initial);
    return;
  }
  if (mechEnd - mechStart === 5 && matchesIgnoreCase(buf, mechStart, mechEnd, "login")) {
    if (initial === null) {
      s.authStep = AUTH_LOGIN_USER;
      s.reply(r.authUsername);
      return;
    }
    s.authUser = decode(initial);
    s.authStep = AUTH_LOGIN_PASS;
    s.reply(r.authPassword);
    return;
  }
  s.reply(r.authMechanism);
}

/** A continuation line of an AUTH exchange; "*" cancels it (RFC 4954 §4). */
export function authLine(s: SinkSession, buf: Buffer, start: number, end: number): void {
  const text = buf.toString("latin1", start, end).trim();
  const step = s.authStep;
  s.authStep = AUTH_NONE;
  if (text === "*") {
    s.reply(s.ctx.replies.authCancelled);
    return;
  }
  if (step === AUTH_PLAIN) {
    checkPlain(s, text);
    return;
  }
  if (step === AUTH_LOGIN_USER) {
    s.authUser = decode(text);
    s.authStep = AUTH_LOGIN_PASS;
    s.reply(s.ctx.replies.authPassword);
    return;
  }
  finish(s, s.authUser, decode(text));
}

/** PLAIN: base64 of `authzid NUL authcid NUL passwd` (RFC 4616 §2); "=" is an empty response. */
function checkPlain(s: SinkSession, response: string): void {
  const parts = decode(response === "=" ? "" : response).split("\u0000");
  if (parts.length !== 3) {
    finish(s, "", null);
    return;
  }
  finish(s, parts[1], parts[2]);
}

function finish(s: SinkSession, user: string, pass: string | null): void {
  const expected = s.ctx.options.auth!;
  s.authUser = "";
  if (pass !== null && user === expected.user && pass === expected.pass) {
    s.authenticated = true;
    s.reply(s.ctx.replies.authOk);
  } else {
    s.reply(s.ctx.replies.authFailed);
  }
}

function decode(base64: string): string {
  return Buffer.from(base64, "base64").toString("utf8");
}
