/**
 * Error classes a gateway engineer thinks in, and the one function that puts an error row in
 * one. Session reuse dodges `refused` (a connection limit's 421, which closes the session,
 * RFC 5321 §3.8) but not `rateLimited` (a message limit's 4yz to MAIL, a transient failure of
 * that transaction only, RFC 5321 §4.2.1, while the session stays open).
 */
import type { Phase } from "../smtp/phases.js";

export const ERROR_CLASSES = [
  "refused",
  "rateLimited",
  "temporary",
  "rejected",
  "unsupported",
  "transport",
  "unsent",
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Short labels for tables and charts. */
export const ERROR_CLASS_LABELS: Record<ErrorClass, string> = {
  refused: "refused by gateway",
  rateLimited: "rate limited",
  temporary: "temporary (4xx)",
  rejected: "rejected (5xx)",
  unsupported: "unsupported by the server",
  transport: "transport",
  unsent: "unsent",
};

/**
 * Failures without an SMTP reply, each the `reply` of its error row, and the class it is counted
 * in. timeout: no reply within the phase's timeout; closed: the peer closed the connection;
 * refused: TCP connection refused; reset: connection reset (ECONNRESET, EPIPE); protocol: the
 * peer sent something that is not SMTP; socket: any other socket error; local-limit: a limit of
 * this machine (EMFILE: out of file descriptors, EADDRNOTAVAIL: no local port), not the
 * server's; unsupported: the server does not offer what the run requires (STARTTLS, AUTH,
 * XVERP), its own class because no reply code came, so it is neither a 5xx nor a network fault; unsent: the run ended with the message never started because no session could open;
 * stopped: cut by this client (a second signal, --abort-on-fail, --grace over), not the server.
 */
export const FAILURE_CLASS = {
  timeout: "transport",
  closed: "transport",
  refused: "refused",
  reset: "transport",
  protocol: "transport",
  socket: "transport",
  "local-limit": "transport",
  unsupported: "unsupported",
  unsent: "unsent",
  stopped: "transport",
} as const satisfies Record<string, ErrorClass>;
export type Failure = keyof typeof FAILURE_CLASS;

/**
 * An error row as a thread counts it: the reply (a code, or a Failure), its enhanced code, the
 * phase, the first text and how often. The Result's row adds its class; each field is
 * described in result/schema/errors.ts, which result/result.ts checks against this shape.
 */
export interface ErrorRow {
  reply: string;
  enhanced: string;
  phase: Phase;
  text: string;
  count: number;
}

/** Whether an error row's `reply` names a failure rather than a reply code. */
export function isFailure(reply: string): reply is Failure {
  return Object.hasOwn(FAILURE_CLASS, reply);
}

/**
 * refused: TCP connection refused, or a 4xx/5xx instead of the banner (Postfix anvil answers a
 * connection count or rate limit with 421 4.7.0 at the banner; others 554, 450 or 500).
 * rateLimited: 450, or any 4xx with an RFC 3463 enhanced code 4.7.x (policy), at any other phase
 * (anvil's message rate limit: 450 4.7.1 at MAIL).
 * temporary: any other 4xx. rejected: any 5xx not at the banner. unsupported: the server lacks
 * what the run requires (no reply code came).
 * transport: timeout, closed, reset, protocol, socket, local-limit (this machine's limits), stopped
 * (cut by this client when the run was stopped). unsent: never started (no session).
 * Failures are classed by FAILURE_CLASS.
 */
export function classifyError(reply: string, enhanced: string, phase: Phase): ErrorClass {
  if (isFailure(reply)) return FAILURE_CLASS[reply];
  const first = reply.charCodeAt(0);
  const atBanner = phase === "banner" || phase === "connect";
  if (atBanner && (first === 52 /* 4 */ || first === 53) /* 5 */) return "refused";
  if (first === 52 /* 4 */) {
    return reply === "450" || enhanced.startsWith("4.7.") ? "rateLimited" : "temporary";
  }
  if (first === 53 /* 5 */) return "rejected";
  return "transport";
}

export function errorClassIndex(reply: string, enhanced: string, phase: Phase): number {
  return ERROR_CLASSES.indexOf(classifyError(reply, enhanced, phase));
}

export function zeroErrorClasses(): Record<ErrorClass, number> {
  return {
    refused: 0,
    rateLimited: 0,
    temporary: 0,
    rejected: 0,
    unsupported: 0,
    transport: 0,
    unsent: 0,
  };
}

/**
 * Groups reply texts that differ only in numbers, addresses or queue ids, so that
 * "450 4.7.1 <a1@x>: too much mail from 127.0.0.1" counts as one row whatever the address.
 */
export function normaliseErrorText(text: string): string {
  return text
    .replace(/<[^>]*>/g, "<>")
    .replace(/\[[^\]]*\]/g, "[]")
    .replace(/\b[0-9A-F]{6,}\b/g, "#")
    .replace(/\d+/g, "#")
    .trim();
}

/**
 * The identity of an error row: occurrences with the same reply (code or failure), enhanced
 * code, phase and normalised text are one row. The only place that key is built.
 */
export function errorKey(reply: string, enhanced: string, phase: Phase, text: string): string {
  return `${reply}\u0000${enhanced}\u0000${phase}\u0000${normaliseErrorText(text)}`;
}
