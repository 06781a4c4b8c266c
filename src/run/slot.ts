/** One of a share's session slots: the session it holds now, and what it has been through. */
import type { Session } from "../client/session.js";

export interface Slot {
  readonly index: number;
  session: Session | null;
  /** The slot's last session, closed: its next connection reuses the object (Session.reopen). */
  closed: Session | null;
  /** Consecutive sessions of this slot that ended without starting a message. */
  failures: number;
  timer: NodeJS.Timeout | null;
  /** Its session is idle (open model lull): it waits for nothing, and the sweep skips it. */
  idle: boolean;
  /** The slot gave up: after repeated connection failures, or unreachable (unsentReason). */
  retired: boolean | "unreachable";
  /** Messages this slot's sessions took, and may take (Infinity: no share of its own). */
  taken: number;
  readonly quota: number;
}

/** A slot before its first session; `quota` undefined: no share of its own. */
export function newSlot(index: number, quota: number | undefined): Slot {
  return {
    index,
    session: null,
    closed: null,
    failures: 0,
    timer: null,
    idle: false,
    retired: false,
    taken: 0,
    quota: quota ?? Number.POSITIVE_INFINITY,
  };
}
