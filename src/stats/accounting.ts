/**
 * Where every message a run was asked for went. Each one ends in exactly one of four places,
 * so `asked = started + unsent + dropped + stopped` holds in every mode and load model, also
 * for a run that ended early or was stopped.
 */
import type { Counters } from "./counts.js";

export interface Accounting {
  /**
   * Messages the run was asked for: -m; in the open model with -d, the arrivals its schedule
   * holds within the duration (the fewer, with -m too). null: a closed-model run for a duration
   * (-d, or -m cut short by -d), which has no number, only as many as its sessions took.
   */
  asked: number | null;
  /**
   * Messages a session took (MAIL written, or its connection failed first): each ended
   * accepted, rejected or failed. messages.attempted less unsent.
   */
  started: number;
  /**
   * Messages asked for that no session started because every session gave up (the target
   * refused or closed every connection) before the load model ran out: arrivals of the schedule
   * not yet due or still queued, or the rest of -m. Also counted in messages.failed and in the
   * error row `unsent`.
   */
  unsent: number;
  /** Open model: arrivals no session started in time (messages.dropped). */
  dropped: number;
  /**
   * Messages asked for and never handed out because the run was told to stop first (SIGINT,
   * SIGTERM, --abort-on-fail): neither attempted nor failed.
   */
  stopped: number;
  /**
   * The load ended before its -m, -d or schedule did, neither stopped nor finished: every
   * session gave up (each slot after --reconnect-attempts sessions in a row ended without a
   * message). What was left is `unsent`.
   */
  endedEarly: boolean;
}

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
