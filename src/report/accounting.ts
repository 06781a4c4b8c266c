/**
 * Where every message the run was asked for went (Result.accounting), in words: the identity
 * asked = started + unsent + dropped + stopped, and why a load ended before it was done. The
 * terminal and HTML reports read these.
 */
import { sinkAgrees } from "../result/accounting.js";
import type { Result } from "../result/result.js";
import { fmt } from "./figures.js";

/**
 * "asked 20 = started 0 + unsent 14 + dropped 6 + stopped 0"; a closed-model duration run,
 * which has no number asked, starts "as many as -d allowed:". null without accounting.
 */
export function accountingLine(result: Result): string | null {
  const a = result.accounting;
  if (!a) return null;
  const terms = [
    `started ${fmt(a.started)}`,
    `unsent ${fmt(a.unsent)}`,
    `dropped ${fmt(a.dropped)}`,
    `stopped ${fmt(a.stopped)}`,
  ].join(" + ");
  return a.asked === null
    ? `as many as the duration allowed = ${terms}`
    : `asked ${fmt(a.asked)} = ${terms}`;
}

/** What the run was asked for, as the load model reads its options: "-d 4 s", "-m 20". */
function askedFor(result: Result): string {
  const load = result.run?.options?.load as { durationMs?: number } | undefined;
  const durationMs = load?.durationMs ?? 0;
  if (durationMs <= 0) return "";
  return ` of the ${fmt(durationMs / 1000, durationMs % 1000 === 0 ? 0 : 3)} s asked for`;
}

/**
 * Why the load ended before its -m, -d or schedule did: "the load ended at 1.508 s of the 4 s
 * asked for: every session gave up (5 sessions in a row without a message each), so 24
 * messages were never sent (unsent)". null when it ran its course or was stopped.
 */
export function endedEarlyLine(result: Result): string | null {
  const a = result.accounting;
  if (!a?.endedEarly) return null;
  const attempts = result.run?.options?.reconnectAttempts;
  const each =
    typeof attempts === "number"
      ? ` (${fmt(attempts)} sessions in a row without a message each)`
      : "";
  const left =
    a.unsent > 0 ? `, so ${fmt(a.unsent)} messages asked for were never sent (unsent)` : "";
  // A host that drops every SYN ends the run at its first connect timeout (run/thread-run.ts):
  // the unsent row says so, and no session tried 5 times.
  const noConnection = result.errors.find(
    (e) => e.class === "unsent" && e.text.startsWith("no connection:"),
  );
  const why = noConnection ? noConnection.text : `every session gave up${each}`;
  return `the load ended at ${fmt(result.elapsedSeconds, 3)} s${askedFor(result)}: ${why}${left}`;
}

/** "909 messages never sent: the run was stopped (SIGINT)"; null when none. */
export function stoppedLine(result: Result): string | null {
  const a = result.accounting;
  if (!a || a.stopped === 0) return null;
  const by = result.stoppedBy ? ` (${result.stoppedBy})` : "";
  return `${fmt(a.stopped)} messages asked for were never sent: the run was stopped${by} first`;
}

/** The lines under a verdict that say how the load ended, when not by itself: ended early, stopped. */
export function endedLines(result: Result): string[] {
  return [endedEarlyLine(result), stoppedLine(result)].flatMap((line) => (line ? [line] : []));
}

/**
 * What the unconfirmed messages (sent in full, no final reply) turned out to be, in one line:
 * against the built-in sink's own count in a self-test ("12 unconfirmed: the sink accepted 10
 * of them"), against what came out of the gateway with --receive, or else what they are. null
 * when there were none.
 */
export function unconfirmedLine(result: Result): string | null {
  const unconfirmed = result.messages.unconfirmed ?? 0;
  if (unconfirmed === 0) return null;
  const head = `${fmt(unconfirmed)} unconfirmed`;
  const sink = result.sink;
  if (sink) {
    const extra = sink.messagesAccepted - result.messages.accepted;
    if (sinkAgrees(result)) return `${head}: the sink accepted ${fmt(extra)} of them`;
    return `${head}, yet the sink accepted ${fmt(sink.messagesAccepted)} against the client's ${fmt(result.messages.accepted)}: they differ`;
  }
  const d = result.delivery;
  if (d) return `${head}: ${fmt(d.unconfirmed)} of them came out of the gateway`;
  return `${head}: sent in full, but no final reply came; the server may have taken them`;
}
