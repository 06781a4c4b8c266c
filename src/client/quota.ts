/**
 * Which messages one connection takes, and how many: the one message a per-message connection
 * was opened for, or in reuse mode the run's next messages up to the session's cap, lowered when
 * the server asks the client to reconnect. The transaction pipeline asks it before each message.
 */
import { namesSessionLimit } from "../smtp/reply-parser.js";
import { NO_TIME } from "../stats/clock.js";
import type { RunStats } from "../stats/collector.js";
import type { SessionOptions } from "./run-interfaces.js";

/** takeMessage: the run has no more messages. */
export const NO_WORK = -1;
/** takeMessage: none is due now; the session idles until resumed. */
export const NOT_YET = -2;

export class MessageQuota {
  /** Transactions started on this connection. */
  private startedCount = 0;
  /** Per-message mode: the one message this connection carries, taken already; else -1. */
  private preclaimed = -1;
  /** When the preclaimed message was due. */
  private preclaimedIntendedMs = NO_TIME;
  /** Reuse mode: QUIT after this many messages; 0: no cap. */
  private cap = 0;
  /** 4xx replies to MAIL in a row. */
  private mailDeferrals = 0;

  constructor(
    private readonly config: SessionOptions,
    private readonly stats: RunStats,
  ) {}

  /**
   * A new connection. `preclaimed`: the message a per-message connection carries, due at
   * `intendedMs`, or -1 in reuse mode; `cap`: QUIT after this many messages (0: no cap).
   */
  begin(preclaimed: number, cap: number, intendedMs: number): void {
    this.startedCount = 0;
    this.preclaimed = preclaimed;
    this.preclaimedIntendedMs = intendedMs;
    this.cap = cap;
    this.mailDeferrals = 0;
  }

  /** Transactions this connection started. */
  get started(): number {
    return this.startedCount;
  }

  /** Per-message mode: the message this connection was to carry and never started; else -1. */
  get unstarted(): number {
    return this.startedCount === 0 ? this.preclaimed : -1;
  }

  /**
   * The next message for this connection: the preclaimed one, or the run's answer (its next,
   * NO_WORK or NOT_YET) while under the cap; NO_WORK when this connection's share is done.
   */
  claim(run: { takeMessage(): number }): number {
    if (this.config.mode === "per-message") {
      return this.startedCount === 0 ? this.preclaimed : NO_WORK;
    }
    if (this.cap > 0 && this.startedCount >= this.cap) return NO_WORK;
    return run.takeMessage();
  }

  /** A message starts; returns when it was due: the preclaimed one's time, or `runIntendedMs`. */
  start(runIntendedMs: number): number {
    this.startedCount++;
    return this.preclaimed >= 0 ? this.preclaimedIntendedMs : runIntendedMs;
  }

  /**
   * A reply to MAIL. Reuse mode: a 4xx that names a per-session limit (OpenSMTPD's `452 4.5.3
   * Too many messages sent` after 100 messages, kept for every later MAIL of the session), or
   * --reconnect-after-deferrals of them in a row, ends the session after what is in flight, so
   * that a new connection takes over the remaining work; counted once per session.
   */
  mailReply(code: number, lines: string[] | null): void {
    if (code < 400 || code >= 500) {
      this.mailDeferrals = 0;
      return;
    }
    this.mailDeferrals++;
    const { mode, reconnectAfterDeferrals } = this.config;
    if (mode !== "reuse" || (this.cap > 0 && this.startedCount >= this.cap)) return;
    const inARow = reconnectAfterDeferrals > 0 && this.mailDeferrals >= reconnectAfterDeferrals;
    if (!inARow && !namesSessionLimit(lines)) return;
    this.cap = this.startedCount;
    this.stats.reconnectWanted();
  }
}
