/**
 * Error classes a gateway engineer thinks in, and the one function that puts an error row in
 * one. Session reuse dodges `refused` (a connection limit's 421, which closes the session,
 * RFC 5321 §3.8) but not `rateLimited` (a message limit's 4yz to MAIL, a transient failure of
 * that transaction only, RFC 5321 §4.2.1, while the session stays open).
 */
import type { Phase } from "./result.js";

export const ERROR_CLASSES = [
  "refused",
  "rateLimited",
  "temporary",
  "rejected",
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
  transport: "transport",
  unsent: "unsent",
};

/** Failures without a reply that are the network's or the peer's doing, not a verdict. */
const TRANSPORT = new Set(["timeout", "closed", "reset", "protocol", "socket"]);

/**
 * refused: TCP connection refused, or 421/554 instead of the banner (Postfix anvil answers a
 * connection count or rate limit with 421 4.7.0 at the banner).
 * rateLimited: 450, or any 4xx with an RFC 3463 enhanced code 4.7.x (policy), at any other phase
 * (anvil's message rate limit: 450 4.7.1 at MAIL).
 * temporary: any other 4xx. rejected: any 5xx not at the banner, and `unsupported` (the server
 * does not offer what the run requires, STARTTLS or AUTH: a refusal, not a network fault).
 * transport: timeout, closed, reset, protocol, socket. unsent: never started (no session).
 */
export function classifyError(reply: string, enhanced: string, phase: Phase): ErrorClass {
  if (reply === "refused") return "refused";
  if (reply === "unsent") return "unsent";
  if (reply === "unsupported") return "rejected";
  if (TRANSPORT.has(reply)) return "transport";
  const first = reply.charCodeAt(0);
  if ((phase === "banner" || phase === "connect") && (reply === "421" || reply === "554")) {
    return "refused";
  }
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
  return { refused: 0, rateLimited: 0, temporary: 0, rejected: 0, transport: 0, unsent: 0 };
}
