/**
 * AUTH PLAIN and LOGIN (RFC 4954, RFC 4616; LOGIN as deployed). Offered only when the sink was
 * given `--auth user:pass`; then MAIL needs a successful AUTH first (530 5.7.0, RFC 4954 §6).
 * AUTH is a synchronisation point, so strings here cost nothing on the message hot path.
 */
import { matchesIgnoreCase, wordEnd } from "../smtp/command-parser.js";
import { applyFault, F_AUTH } from "./faults.js";
import { AUTH_LOGIN_USER, AUTH_PLAIN, type Session } from "./session-state.js";

/** `AUTH mechanism [initial-response]`. */
export function authCommand(s: Session, buf: Buffer, start: number, end: number): void {
  const r = s.ctx.replies;
  if (s.ctx.options.auth === undefined) {
    s.reply(r.authNotEnabled);
    return;
  }
  const st = s.state;
  if (st.authenticated) {
    s.reply(r.authAlready);
    return;
  }
  if (st.inMail) {
    s.reply(r.nestedMail);
    return;
  }
  const mechStart = start + 5;
  const mechEnd = wordEnd(buf, mechStart, end);
  const initial = mechEnd < end ? buf.toString("latin1", mechEnd + 1, end).trim() : null;
  if (applyFault(s, F_AUTH) !== null) return;
  if (mechEnd - mechStart === 5 && matchesIgnoreCase(buf, mechStart, mechEnd, "plain")) {
    if (initial === null) {
      st.awaitAuth(AUTH_PLAIN);
      s.reply(r.authContinue);
      return;
    }
    checkPlain(s, initial);
    return;
  }
  if (mechEnd - mechStart === 5 && matchesIgnoreCase(buf, mechStart, mechEnd, "login")) {
    if (initial === null) {
      st.awaitAuth(AUTH_LOGIN_USER);
      s.reply(r.authUsername);
      return;
    }
    st.rememberLoginUser(decode(initial));
    s.reply(r.authPassword);
    return;
  }
  s.reply(r.authMechanism);
}

/** A continuation line of an AUTH exchange; "*" cancels it (RFC 4954 §4). */
export function authLine(s: Session, buf: Buffer, start: number, end: number): void {
  const text = buf.toString("latin1", start, end).trim();
  const step = s.state.takeAuthStep();
  if (text === "*") {
    s.state.endAuth(false);
    s.reply(s.ctx.replies.authCancelled);
    return;
  }
  if (step === AUTH_PLAIN) {
    checkPlain(s, text);
    return;
  }
  if (step === AUTH_LOGIN_USER) {
    s.state.rememberLoginUser(decode(text));
    s.reply(s.ctx.replies.authPassword);
    return;
  }
  finish(s, s.state.loginUser, decode(text));
}

/** PLAIN: base64 of `authzid NUL authcid NUL passwd` (RFC 4616 §2); "=" is an empty response. */
function checkPlain(s: Session, response: string): void {
  const parts = decode(response === "=" ? "" : response).split("\u0000");
  if (parts.length !== 3) {
    finish(s, "", null);
    return;
  }
  finish(s, parts[1], parts[2]);
}

function finish(s: Session, user: string, pass: string | null): void {
  const expected = s.ctx.options.auth!;
  const success = pass !== null && user === expected.user && pass === expected.pass;
  s.state.endAuth(success);
  s.reply(success ? s.ctx.replies.authOk : s.ctx.replies.authFailed);
}

function decode(base64: string): string {
  return Buffer.from(base64, "base64").toString("utf8");
}
