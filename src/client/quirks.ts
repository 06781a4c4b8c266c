/**
 * Replies a session accepts though they bend a rule, counted as warnings (stats/warnings.ts)
 * so that the report names the server's quirk instead of hiding it.
 */
import type { ReplyParser } from "../smtp/reply-parser.js";
import type { RunStats } from "../stats/collector.js";

/**
 * A 2xx to RSET with an address status (X.1.Y, RFC 3463: what MAIL and RCPT get), as Postfix
 * smtp-sink sends `250 2.1.0 Ok`. Called only once the reply was accepted as RSET's (no final
 * reply held that it could belong to; see replyMismatch in pending.ts).
 */
export function noteRsetReply(stats: RunStats, code: number, parser: ReplyParser): void {
  if (code < 300 && parser.enhancedSubject === 1) stats.warning("rset-status", parser.replyLine());
}
