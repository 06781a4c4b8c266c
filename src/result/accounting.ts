/**
 * Where every message a run was asked for went. Each one ends in exactly one of four places,
 * so `asked = started + unsent + dropped + stopped` holds in every mode and load model, also
 * for a run that ended early or was stopped.
 */
import type { Counters } from "../stats/counts.js";
import type { Result } from "./result.js";

/** See the Accounting section of the Result's definition (result-schema/counts.ts). */
export type Accounting = NonNullable<Result["accounting"]>;

/** The Result's accounting from the run's counters; null when no thread counted it. */
export function accountingOf(c: Readonly<Counters>): Accounting | null {
  if (c.accounted === 0) return null;
  return {
    asked: Number.isFinite(c.asked) ? c.asked : null,
    started: c.attempted - c.unsent,
    unsent: c.unsent,
    dropped: c.dropped,
    stopped: c.stopped,
    endedEarly: c.cutShort > 0,
  };
}

/** The counters a saved accounting restores (merge of shards' results). */
export function accountingCounters(a: Accounting | undefined) {
  if (!a) return { accounted: 0, asked: 0, unsent: 0, stopped: 0, cutShort: 0 };
  return {
    accounted: 1,
    asked: a.asked ?? Number.POSITIVE_INFINITY,
    unsent: a.unsent,
    stopped: a.stopped,
    cutShort: a.endedEarly ? 1 : 0,
  };
}

/**
 * Whether the built-in sink's own accepted count agrees with the client's: equal, or more by
 * at most the messages the client sent in full without a final reply (unconfirmed), which the
 * sink may have taken. True without a sink.
 */
export function sinkAgrees(result: Pick<Result, "messages" | "sink">): boolean {
  if (!result.sink) return true;
  const extra = result.sink.messagesAccepted - result.messages.accepted;
  return extra >= 0 && extra <= (result.messages.unconfirmed ?? 0);
}
