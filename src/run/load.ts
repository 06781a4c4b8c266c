/**
 * Drives one share of a run's sessions on this thread's event loop: the session slots, the work
 * counter they take messages from, reconnect backoff, and one timeout sweeper for all sessions.
 * A worker thread runs exactly this for its share; the in-process run calls it directly.
 */

import { Session, type SessionHost } from "../client/session.js";
import { MessageWire } from "../client/wire.js";
import type { RunConfig } from "../config/run-config.js";
import { RunStats, type StatsSnapshot } from "../stats/collector.js";

export interface LoadShare {
  /** Session slots this share keeps busy. */
  readonly sessions: number;
  /** Messages this share delivers. */
  readonly messages: number;
  /** Sequence number of this share's first message (Message-ID, unique recipients). */
  readonly seqBase: number;
}

export interface LoadHooks {
  /** Prints the conversation of the first session (-v). */
  readonly trace?: (line: string) => void;
}

/** How often session timeouts are checked; timeouts are honoured within this much. */
const SWEEP_INTERVAL_MS = 100;

interface Slot {
  session: Session | null;
  /** Consecutive sessions of this slot that ended without starting a message. */
  failures: number;
  timer: NodeJS.Timeout | null;
}

class LoadRun implements SessionHost {
  readonly wire: MessageWire;
  readonly stats = new RunStats();
  readonly trace: ((line: string) => void) | null;
  private remaining: number;
  private nextSeq: number;
  private sessionsOpened = 0;
  private readonly slots: Slot[] = [];
  private readonly slotOf = new Map<Session, Slot>();
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;
  private done!: () => void;

  constructor(
    readonly config: RunConfig,
    share: LoadShare,
    hooks: LoadHooks,
  ) {
    this.wire = new MessageWire(config);
    this.remaining = share.messages;
    this.nextSeq = share.seqBase;
    this.trace = hooks.trace ?? null;
    for (let i = 0; i < share.sessions; i++) {
      this.slots.push({ session: null, failures: 0, timer: null });
    }
  }

  run(): Promise<StatsSnapshot> {
    return new Promise((resolve) => {
      this.done = () => resolve(this.stats.snapshot());
      this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
      for (const slot of this.slots) this.open(slot);
      this.finishIfIdle();
    });
  }

  /** Stops taking work; sessions in flight are closed and their messages counted as failed. */
  stop(): void {
    this.stopped = true;
    this.remaining = 0;
    for (const slot of this.slots) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
      slot.session?.stop();
    }
  }

  takeMessage(): number {
    if (this.remaining === 0) return -1;
    this.remaining--;
    return this.nextSeq++;
  }

  sessionEnded(session: Session): void {
    const slot = this.slotOf.get(session)!;
    this.slotOf.delete(session);
    slot.session = null;
    if (this.config.mode === "reuse") {
      slot.failures = session.messagesStarted > 0 ? 0 : slot.failures + 1;
      if (slot.failures > 0 && this.remaining > 0 && !this.stopped) {
        if (slot.failures >= this.config.reconnectAttempts) {
          this.finishIfIdle(); // this slot gives up; the others take its work
          return;
        }
        const factor = Math.min(2 ** (slot.failures - 1), 16);
        slot.timer = setTimeout(() => {
          slot.timer = null;
          this.open(slot);
          this.finishIfIdle();
        }, this.config.reconnectDelayMs * factor);
        return;
      }
    }
    this.open(slot);
    this.finishIfIdle();
  }

  private open(slot: Slot): void {
    if (this.stopped || this.remaining === 0) return;
    const preclaimed = this.config.mode === "per-message" ? this.takeMessage() : -1;
    const session = new Session(this, this.sessionsOpened++, preclaimed);
    slot.session = session;
    this.slotOf.set(session, slot);
  }

  private finishIfIdle(): void {
    for (const slot of this.slots) if (slot.session || slot.timer) return;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    if (this.remaining > 0) {
      // Every slot gave up: the messages never started still count, as failed (nothing is lost).
      const { counters } = this.stats;
      counters.attempted += this.remaining;
      counters.failed += this.remaining;
      this.stats.error(
        "unsent",
        "",
        "connect",
        `no session could be opened after ${this.config.reconnectAttempts} attempts per session`,
        this.remaining,
      );
      this.remaining = 0;
    }
    this.done();
  }

  private sweep(): void {
    const now = performance.now();
    for (const slot of this.slots) slot.session?.checkTimeout(now);
  }
}

/** Runs one share to completion (or until `stop`), resolving with its counts. */
export function runLoad(
  config: RunConfig,
  share: LoadShare,
  hooks: LoadHooks = {},
): { result: Promise<StatsSnapshot>; stop: () => void } {
  const load = new LoadRun(config, share, hooks);
  return { result: load.run(), stop: () => load.stop() };
}
