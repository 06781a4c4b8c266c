/**
 * The run's outcome over the threads' verdict: when the target answered nothing, refused most
 * of the load or ended the run, that decides who set the rate, whatever the threads' load.
 * The rule is listed once, on limitedBy (generator-verdict.ts).
 */

import { grouped } from "../stats/number-format.js";
import { ADVICE } from "./generator-verdict.js";
import type { GeneratorResult, Result } from "./result.js";

/** A count as every report prints it: 12,345. */
const n = (count: number) => grouped(count, 0, 0);

/** Messages and connections the target turned away, or that failed or went unconfirmed on the way. */
function refusals(result: Result): number {
  const m = result.messages;
  return m.rejected + m.failed + (m.unconfirmed ?? 0) + result.connections.refused;
}

/** "12 failed", or "2 failed, 10 unconfirmed" when some were sent in full without a reply. */
function unanswered(m: Result["messages"]): string {
  const unconfirmed = m.unconfirmed ?? 0;
  return unconfirmed > 0
    ? `${n(m.failed)} failed, ${n(unconfirmed)} unconfirmed`
    : `${n(m.failed)} failed`;
}

/** Messages the target answered with a refusal: a connection refused, or a 4xx/5xx reply. */
function turnedAway(result: Result): number {
  return result.connections.refused + result.messages.rejected;
}

/**
 * The generator section with the run's outcome over the threads' verdict, a new section (the
 * Result's is left as it is): "nobody" when the target measured nothing (no connection reached
 * a banner, or no message got an answer: every one failed, refused, timed out, unsupported);
 * "target" when it ended the run or turned away half the load or more, or refused any of a
 * load sent on time; "schedule" when late starts came with sessions free.
 */
export function outcomeVerdict(result: Result): Result["generator"] {
  if (!result.generator) return undefined;
  const g: GeneratorResult = { ...result.generator, reasons: [...result.generator.reasons] };
  judge({ ...result, generator: g }, g);
  return g;
}

/** Sets the verdict on `g`, the working copy of `result.generator`. */
function judge(result: Result, g: GeneratorResult): void {
  const { connections, messages } = result;
  if (connections.established === 0) {
    g.limitedBy = "nobody";
    // A host that drops every SYN: the connections timed out (run/work.ts unsentReason), and
    // nobody refused them; the unsent row says so.
    const timedOut = result.errors.some(
      (e) => e.class === "unsent" && e.text.startsWith("no connection: timed out"),
    );
    const how = timedOut ? "every one timed out" : `${n(connections.refused)} refused`;
    g.reasons = [`no connection reached a banner: ${n(connections.opened)} opened, ${how}`];
    g.advice = ADVICE.nobody;
  } else if (messages.accepted === 0 && messages.rejected === 0) {
    g.limitedBy = "nobody";
    g.reasons = [
      `none of ${n(messages.attempted)} attempted messages was answered: ${unanswered(messages)}`,
    ];
    g.advice = ADVICE.noneAccepted;
  } else if (result.accounting?.endedEarly) {
    // It took mail, then refused or closed every session until each gave up: whatever the
    // threads' load, the target ended the run.
    g.limitedBy = "target";
    g.reasons = [
      `every session gave up at ${result.elapsedSeconds.toFixed(3)} s after the target had accepted ${n(messages.accepted)}: ${n(result.accounting.unsent)} messages unsent`,
    ];
    g.advice = ADVICE.targetStopped;
  } else if (turnedAway(result) * 2 >= messages.attempted && g.limitedBy !== "target") {
    // Refusals come back fast, so a generator that spins through them looks busy; but when the
    // target refused half the load or more, what was accepted is the target's policy.
    g.limitedBy = "target";
    g.reasons = [
      `the target turned away ${n(turnedAway(result))} of ${n(messages.attempted)} messages: ${n(connections.refused)} connections refused, ${n(messages.rejected)} messages rejected`,
      ...g.reasons.slice(0, 1),
    ];
    g.advice = ADVICE.targetRefused;
  } else {
    sessionsFree(result, g);
  }
  if (g.limitedBy === "schedule" && refusals(result) > 0) {
    // On time, but the target turned messages or connections away: it set the rate.
    g.limitedBy = "target";
    g.reasons = [
      ...g.reasons.slice(0, 1),
      `the target refused: ${n(messages.rejected)} messages rejected, ${unanswered(messages)}, ${n(connections.refused)} connections refused`,
    ];
    g.advice = ADVICE.target;
  }
}

/** Sessions busy with the target on at least this share of -s: "every session was waiting". */
export const SESSIONS_BUSY = 0.9;

/**
 * Sessions busy with the target on average over the run (Little's law): the time sessions
 * spent in their transactions and in the handshakes (connect, banner, EHLO, TLS, AUTH, QUIT) of
 * the connections beyond each session's first, over the run's time. A session's first
 * handshake is its start-up, however long the target keeps it waiting for a banner.
 */
export function sessionsInUse(result: Result): number {
  const l = result.latency;
  const total = (p: { mean: number; count: number } | undefined) => (p ? p.mean * p.count : 0);
  const handshakes = [l.connectMs, l.bannerMs, l.ehloMs, l.tlsMs, l.authMs, l.quitMs];
  const opened = result.connections.opened;
  const again = opened > 0 ? Math.max(0, opened - result.sessions) / opened : 0;
  const ms = total(l.transactionMs) + again * handshakes.reduce((sum, p) => sum + total(p), 0);
  return result.elapsedSeconds > 0 ? ms / (result.elapsedSeconds * 1000) : 0;
}

/**
 * Late arrivals with idle threads read as "every session was waiting on the target" only when
 * the sessions were busy: with sessions free, the starts ran late on mailvolley's side (its
 * timers, on a machine whose other processes held the cores), and the schedule, met without a
 * drop, set the rate.
 */
function sessionsFree(result: Result, g: GeneratorResult): void {
  if (!g.lateness || g.limitedBy !== "target" || g.advice !== ADVICE.targetSessions) return;
  if (result.messages.dropped > 0 || result.sessions <= 0) return;
  const inUse = sessionsInUse(result);
  if (inUse >= SESSIONS_BUSY * result.sessions) return;
  const l = g.lateness;
  const p99 = grouped((l.steadyStartMs ?? l.startMs).p99, 3, 3);
  const after = l.startup?.started ? " after the start-up" : "";
  g.limitedBy = "schedule";
  g.advice = ADVICE.scheduleLate;
  const [threads, ...rest] = g.reasons.filter((r) => !r.startsWith("start lateness"));
  g.reasons = [
    threads,
    `start lateness p99 ${p99} ms${after}, over the ${grouped(l.toleranceMs, 1, 1)} ms tolerance, with sessions free (on average ${n(Math.round(inUse))} of ${n(result.sessions)} busy with the target): mailvolley's timers ran late, not the target`,
    ...rest,
  ];
}
