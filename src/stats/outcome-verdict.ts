/**
 * The run's outcome over the threads' verdict: when the target answered nothing, refused most
 * of the load or ended the run, that decides who set the rate, whatever the threads' load.
 * The rule is listed once, on limitedBy (generator-verdict.ts).
 */
import { ADVICE } from "./generator-verdict.js";
import { grouped } from "./number-format.js";
import type { Result } from "./result.js";

/** Messages and connections the target turned away, or that failed or went unconfirmed on the way. */
function refusals(result: Result): number {
  const m = result.messages;
  return m.rejected + m.failed + (m.unconfirmed ?? 0) + result.connections.refused;
}

/** "12 failed", or "2 failed, 10 unconfirmed" when some were sent in full without a reply. */
function unanswered(m: Result["messages"]): string {
  const unconfirmed = m.unconfirmed ?? 0;
  return unconfirmed > 0 ? `${m.failed} failed, ${unconfirmed} unconfirmed` : `${m.failed} failed`;
}

/** Messages the target answered with a refusal: a connection refused, or a 4xx/5xx reply. */
function turnedAway(result: Result): number {
  return result.connections.refused + result.messages.rejected;
}

/**
 * "nobody" over the threads' verdict when the target measured nothing: no connection reached
 * a banner, or no message got an answer (every one failed: refused, timed out, unsupported).
 */
export function applyOutcome(result: Result): void {
  const g = result.generator;
  if (!g) return;
  const { connections, messages } = result;
  if (connections.established === 0) {
    g.limitedBy = "nobody";
    g.reasons = [
      `no connection reached a banner: ${connections.opened} opened, ${connections.refused} refused`,
    ];
    g.advice = ADVICE.nobody;
  } else if (messages.accepted === 0 && messages.rejected === 0) {
    g.limitedBy = "nobody";
    g.reasons = [
      `none of ${messages.attempted} attempted messages was answered: ${unanswered(messages)}`,
    ];
    g.advice = ADVICE.noneAccepted;
  } else if (result.accounting?.endedEarly) {
    // It took mail, then refused or closed every session until each gave up: whatever the
    // threads' load, the target ended the run.
    g.limitedBy = "target";
    g.reasons = [
      `every session gave up at ${result.elapsedSeconds.toFixed(3)} s after the target had accepted ${messages.accepted}: ${result.accounting.unsent} messages unsent`,
    ];
    g.advice = ADVICE.targetStopped;
  } else if (turnedAway(result) * 2 >= messages.attempted && g.limitedBy !== "target") {
    // Refusals come back fast, so a generator that spins through them looks busy; but when the
    // target refused half the load or more, what was accepted is the target's policy.
    g.limitedBy = "target";
    g.reasons = [
      `the target turned away ${grouped(turnedAway(result), 0, 0)} of ${grouped(messages.attempted, 0, 0)} messages: ${grouped(connections.refused, 0, 0)} connections refused, ${grouped(messages.rejected, 0, 0)} messages rejected`,
      ...g.reasons.slice(0, 1),
    ];
    g.advice = ADVICE.targetRefused;
  } else if (g.limitedBy === "schedule" && refusals(result) > 0) {
    // On time, but the target turned messages or connections away: it set the rate.
    g.limitedBy = "target";
    g.reasons = [
      ...g.reasons.slice(0, 1),
      `the target refused: ${messages.rejected} messages rejected, ${unanswered(messages)}, ${connections.refused} connections refused`,
    ];
    g.advice = ADVICE.target;
  }
}
