/**
 * What a run counts, as plain numbers. The outcomes of a message are listed here once; the
 * counters, class rows, series points and their merges iterate this list instead of naming
 * each outcome again. RunStats (collector.ts) is the only writer of the counters.
 */

/**
 * How a started message ended: see Result.messages for each definition. attempted =
 * accepted + rejected + failed + unconfirmed once every message has settled. unconfirmed: its
 * data was sent in full and no final reply came (RFC 1047: the server may have taken it).
 */
export const OUTCOMES = ["accepted", "rejected", "failed", "unconfirmed"] as const;
export type MessageOutcome = (typeof OUTCOMES)[number];

/** One count per outcome: the shape counters, class rows and series points share. */
export type OutcomeCounts = Record<MessageOutcome, number>;

/** Outcome counts as a saved result holds them: `unconfirmed` is absent in older ones. */
export type SavedOutcomes = Omit<OutcomeCounts, "unconfirmed"> & { unconfirmed?: number };

export function zeroOutcomes(): OutcomeCounts {
  const out = {} as OutcomeCounts;
  for (const outcome of OUTCOMES) out[outcome] = 0;
  return out;
}

/**
 * The outcome counts of `from` alone (a record that has more fields keeps them to itself); an
 * outcome a saved result predates counts 0.
 */
export function outcomesOf(from: Readonly<SavedOutcomes>): OutcomeCounts {
  const out = {} as OutcomeCounts;
  for (const outcome of OUTCOMES) out[outcome] = from[outcome] ?? 0;
  return out;
}

/** Adds `from`'s outcome counts to `into`'s. */
export function addOutcomes(into: OutcomeCounts, from: Readonly<SavedOutcomes>): void {
  for (const outcome of OUTCOMES) into[outcome] += from[outcome] ?? 0;
}

/** `to`'s outcome counts less `from`'s: what happened between two cumulative readings. */
export function outcomesSince(to: Readonly<OutcomeCounts>, from: Readonly<OutcomeCounts>) {
  const out = {} as OutcomeCounts;
  for (const outcome of OUTCOMES) out[outcome] = to[outcome] - from[outcome];
  return out;
}

/** Messages that have an outcome: accepted + rejected + failed + unconfirmed. */
export function settledCount(counts: Readonly<SavedOutcomes>): number {
  let sum = 0;
  for (const outcome of OUTCOMES) sum += counts[outcome] ?? 0;
  return sum;
}

/** Messages the server did not confirm it took: everything settled but accepted. */
export function unacceptedCount(counts: Readonly<SavedOutcomes>): number {
  return settledCount(counts) - counts.accepted;
}

export interface Counters extends OutcomeCounts {
  /** Messages started (or given up before they could start); see Result.messages.attempted. */
  attempted: number;
  rcptAttempted: number;
  rcptAccepted: number;
  rcptRejected: number;
  connectionsOpened: number;
  connectionsEstablished: number;
  connectionsRefused: number;
  /** Sessions the client ended to reconnect, after a per-session limit at MAIL (Result.connections.reconnects). */
  reconnects: number;
  /** Open model: arrivals dropped because no session could start them in time. */
  dropped: number;
  /** Threads that counted what they were asked for: 0 leaves Result.accounting out. */
  accounted: number;
  /** Messages asked for (Result.accounting.asked); Infinity: a closed-model duration run. */
  asked: number;
  /** Messages asked for, never started because every session gave up (also failed). */
  unsent: number;
  /** Messages asked for, never handed out because the run was told to stop. */
  stopped: number;
  /** Threads whose load ended with work left because every session gave up. */
  cutShort: number;
}

export function zeroCounters(): Counters {
  return {
    attempted: 0,
    ...zeroOutcomes(),
    rcptAttempted: 0,
    rcptAccepted: 0,
    rcptRejected: 0,
    connectionsOpened: 0,
    connectionsEstablished: 0,
    connectionsRefused: 0,
    reconnects: 0,
    dropped: 0,
    accounted: 0,
    asked: 0,
    unsent: 0,
    stopped: 0,
    cutShort: 0,
  };
}

/** Adds every counter of `from` to `into`'s. */
export function addCounters(into: Counters, from: Readonly<Counters>): void {
  for (const key of Object.keys(into) as (keyof Counters)[]) into[key] += from[key];
}
