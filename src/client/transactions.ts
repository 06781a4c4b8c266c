/**
 * The transactions one session has in flight, in a small preallocated ring, and their
 * accounting: which message is in which slot, and every message a session takes is settled
 * exactly once, as accepted, rejected, failed or unconfirmed, with the reply (or failure) that
 * decided it counted in the error table. The messages themselves (class, content, bytes) are the
 * MessageFactory's.
 */

import type { ErrorRow, Phase } from "../result/result.js";
import { queueIdOf } from "../smtp/queue-id.js";
import { enhancedCode, type ReplyParser } from "../smtp/reply-parser.js";
import { NO_TIME, TIME_ORIGIN } from "../stats/clock.js";
import type { RunStats } from "../stats/collector.js";
import type { MessageOutcome as Outcome } from "../stats/counts.js";
import type { MessageKind as MessageClass } from "./run-interfaces.js";

/** Settlement states of a transaction. */
export enum Verdict {
  Open = 0,
  Counted = 1,
}

export interface Transaction {
  /** Index in the session's transaction ring, carried in the pending-reply ring. */
  readonly slot: number;
  seq: number;
  /** The message's ordinal in the run (RunStats.messageStarted), for where an error first hit. */
  ordinal: number;
  startMs: number;
  /** When the message was due (open model); equals startMs in the closed model. */
  intendedMs: number;
  /** When the message content was written: the data phase's start. */
  dataSentAt: number;
  /**
   * The connection's write (Wire.write's ordinal) that carried the end of the content (the final dot,
   * or BDAT LAST's chunk); 0 while it is not written. Once the kernel took that write, the
   * server may have the whole message, and a missing final reply leaves it unconfirmed.
   */
  dataWrite: number;
  /** When its final reply came (a held acceptance is counted at this time; LMTP: the last 2xx). */
  finalAt: number;
  /** Message class (index into the run's classes) and its recipients. */
  cls: number;
  recipients: number;
  rcptReplies: number;
  rcptOk: number;
  /** LMTP (RFC 2033): replies after the data so far, one per accepted recipient, and the 2xx ones. */
  dotReplies: number;
  dotOk: number;
  verdict: Verdict;
  /** The server took its MAIL: a transaction is open there until the final reply or an RSET. */
  mailAccepted: boolean;
  /** The 354 came although the transaction had failed: only an empty message was sent. */
  voided: boolean;
  /** The queue id the final 2xx named (`queued as X`), kept for the delivery join; else "". */
  queueId: string;
}

/**
 * Transactions in flight at once with DATA: one awaiting its dot reply, one body, one envelope.
 * With BDAT the ring holds the window and two more.
 */
export const TX_SLOTS = 4;

export class TransactionRing {
  readonly slots: Transaction[] = [];
  private next = 0;
  /** A message whose dot got 2xx, waiting for the order to be confirmed (hold). */
  private held: Transaction | null = null;
  /** A reply did not fit its command on this connection: no 2xx on it is known to be its own. */
  private orderBroken = false;
  /** A reply ended this connection (a 421, a refused banner): what is open never got there. */
  private byReply = false;

  /** The session's connection ordinal (RunStats.connectionOpened). */
  private connection = 0;

  constructor(
    private readonly stats: RunStats,
    size = TX_SLOTS,
  ) {
    for (let slot = 0; slot < size; slot++) {
      this.slots.push({
        slot,
        seq: -1,
        ordinal: 0,
        startMs: NO_TIME,
        intendedMs: NO_TIME,
        dataSentAt: NO_TIME,
        dataWrite: 0,
        finalAt: NO_TIME,
        cls: 0,
        recipients: 0,
        rcptReplies: 0,
        rcptOk: 0,
        dotReplies: 0,
        dotOk: 0,
        verdict: Verdict.Counted,
        mailAccepted: false,
        voided: false,
        queueId: "",
      });
    }
  }

  /** The session opened connection `ordinal`: the replies counted from now on came on it. */
  connectionOpened(ordinal: number): void {
    this.connection = ordinal;
    this.orderBroken = false;
    this.byReply = false;
  }

  /** The slot the next start() takes. */
  get nextSlot(): number {
    return this.next;
  }

  /**
   * Starts message `seq` of class `kind` in the next slot and counts it attempted. `intendedMs`
   * is NaN in the closed model, where a message is due when it starts.
   */
  start(seq: number, kind: MessageClass, now: number, intendedMs: number): Transaction {
    const tx = this.slots[this.next];
    this.next = (this.next + 1) % this.slots.length;
    tx.seq = seq;
    tx.startMs = now;
    tx.intendedMs = Number.isNaN(intendedMs) ? now : intendedMs;
    tx.rcptReplies = 0;
    tx.rcptOk = 0;
    tx.dotReplies = 0;
    tx.dotOk = 0;
    tx.verdict = Verdict.Open;
    tx.mailAccepted = false;
    tx.voided = false;
    tx.dataWrite = 0;
    tx.queueId = "";
    tx.cls = kind.index;
    tx.recipients = kind.recipients;
    tx.ordinal = this.stats.messageStarted(tx.recipients);
    return tx;
  }

  /** Counts the message's outcome; `atMs` is when the deciding reply (or failure) came. */
  settle(tx: Transaction, outcome: Outcome, atMs: number, latencyMs = 0): void {
    tx.verdict = Verdict.Counted;
    this.stats.messageSettled(tx.cls, outcome, latencyMs);
    this.stats.touch(TIME_ORIGIN + atMs);
  }

  /** The final reply took the message: its latencies (intended and actual start) and verdict. */
  accept(tx: Transaction, atMs: number): void {
    const latency = atMs - tx.intendedMs;
    this.stats.record("transactionUncorrected", atMs - tx.startMs);
    this.stats.recordPhase(tx.cls, "data", atMs - tx.dataSentAt);
    this.settle(tx, "accepted", atMs, latency);
    this.stats.ledger?.record(tx.seq, TIME_ORIGIN + tx.intendedMs, TIME_ORIGIN + atMs, tx.queueId);
  }

  /**
   * A reply to one of the message's RCPTs: counted per recipient, a refusal in the error table.
   * Returns true when it was the last and every recipient was refused: the message is rejected.
   */
  rcptReply(tx: Transaction, code: number, lines: string[] | null, atMs: number): boolean {
    tx.rcptReplies++;
    if (code < 300) {
      tx.rcptOk++;
      this.stats.recipientAccepted();
    } else {
      this.stats.recipientRejected();
      if (tx.verdict === Verdict.Open) {
        recordReply(this.stats, code, lines, "rcpt", this.connection, tx.ordinal);
      }
    }
    const last = tx.rcptReplies === tx.recipients;
    if (!last || tx.rcptOk > 0 || tx.verdict !== Verdict.Open) return false;
    this.settle(tx, "rejected", atMs);
    return true;
  }

  /**
   * LMTP (RFC 2033 §4.2): one reply after the data per accepted recipient; refusals are counted
   * in the error table. True on the last reply when any recipient took the message; when none
   * did, the message is rejected here.
   */
  lmtpReply(tx: Transaction, code: number, lines: string[] | null, atMs: number): boolean {
    tx.dotReplies++;
    if (code < 300) {
      tx.dotOk++;
      tx.finalAt = atMs;
    } else recordReply(this.stats, code, lines, "dot", this.connection, tx.ordinal);
    if (tx.dotReplies < tx.rcptOk) return false;
    if (tx.dotOk > 0) return true;
    this.settle(tx, "rejected", atMs);
    return false;
  }

  /**
   * The final reply took the message, `lines` naming its queue id; `hold`: the next
   * transaction's replies are due, so the message waits in the ring for its order (hold()).
   */
  finalAccepted(tx: Transaction, lines: string[] | null, atMs: number, hold: boolean): void {
    if (this.stats.ledger !== null) tx.queueId = queueIdOf(lines);
    if (hold) this.hold(tx, atMs);
    else this.accept(tx, atMs);
  }

  /**
   * A 2xx to the final dot while the next envelope's replies are due could be the next MAIL's
   * reply, should the server have skipped or delayed the dot's (RFC 2920 §3.1: replies are
   * matched by order alone). The message stays open, held, until a reply that only its own
   * place in the order explains (DATA's, QUIT's, RSET's, or a 421) confirms the order; with
   * enhanced status codes a shifted MAIL reply (X.1.Y) is caught first. If a mismatch ends the
   * session first it fails with the others: never accepted on another command's reply. If the
   * session ends with nothing having contradicted the order (the server closed or reset the
   * connection, a timeout, a stop), the 2xx stands and the message is accepted, as the server
   * counted it (see docs/reliability-notes.md).
   */
  hold(tx: Transaction, atMs: number): void {
    tx.finalAt = atMs;
    this.held = tx;
  }

  /**
   * The order was contradicted (a reply that does not fit its command): the held message's 2xx
   * may have been another command's, so it stays open and fails with the session.
   */
  dropHeld(): void {
    this.held = null;
    this.orderBroken = true;
  }

  /** A reply ends the connection (RFC 5321 §3.8: a 421 closes the channel). */
  endedByReply(): void {
    this.byReply = true;
  }

  /** A message's 2xx final reply waits for the order to be confirmed. */
  get holding(): boolean {
    return this.held !== null;
  }

  /** The order is confirmed: the held message, if any, is accepted as of its final reply. */
  confirmHeld(): void {
    const tx = this.held;
    if (tx === null) return;
    this.held = null;
    if (tx.verdict === Verdict.Open) this.accept(tx, tx.finalAt);
  }

  /** Rejects an open transaction with the reply that refused it. */
  reject(tx: Transaction, code: number, lines: string[] | null, phase: Phase, atMs: number): void {
    if (tx.verdict !== Verdict.Open) return;
    recordReply(this.stats, code, lines, phase, this.connection, tx.ordinal);
    this.settle(tx, "rejected", atMs);
  }

  /**
   * The connection is gone without the final replies of the messages still open. One whose
   * data the kernel took whole (`flushedWrites`: the connection's writes that left) may have
   * reached the server and been taken (RFC 1047: a reply lost after the final dot duplicates
   * mail): it is unconfirmed, neither accepted nor failed; with BDAT that is every transaction
   * of the window whose data went. The others failed: the server cannot have the whole message.
   * After a 421 (endedByReply), which answered in order the command it came for, the server took
   * nothing of what is still open: it failed. An LMTP message some recipient
   * already took (a 2xx after the data, RFC 2033 §4.2) is accepted, as when every reply came,
   * unless the order broke. Returns how many settled.
   */
  failOpen(atMs: number, flushedWrites: number): number {
    this.held = null;
    let settled = 0;
    for (const tx of this.slots) {
      if (tx.verdict !== Verdict.Open) continue;
      settled++;
      if (tx.dotOk > 0 && !this.orderBroken) {
        this.accept(tx, tx.finalAt);
        continue;
      }
      const sent = !this.byReply && !tx.voided && tx.dataWrite > 0;
      this.settle(tx, sent && tx.dataWrite <= flushedWrites ? "unconfirmed" : "failed", atMs);
    }
    return settled;
  }

  /** The ordinal of the oldest message still open, 0 when none is: the one a failure hits. */
  oldestOpen(): number {
    let oldest = 0;
    for (const tx of this.slots) {
      if (tx.verdict === Verdict.Open && (oldest === 0 || tx.ordinal < oldest)) oldest = tx.ordinal;
    }
    return oldest;
  }

  openCount(): number {
    let open = 0;
    for (const tx of this.slots) if (tx.verdict === Verdict.Open) open++;
    return open;
  }
}

/**
 * Counts a reply in the error table: code, RFC 3463 enhanced code, phase and text; `connection`
 * and `message` are the ordinals it came on and hit (see RunStats.reply). Returns its row.
 */
export function recordReply(
  stats: RunStats,
  code: number,
  lines: string[] | null,
  phase: Phase,
  connection = 0,
  message = 0,
): ErrorRow {
  const first = lines?.[0] ?? "";
  const enhanced = enhancedCode(first);
  const text = [enhanced ? first.slice(enhanced.length).trim() : first, ...(lines ?? []).slice(1)]
    .join(" ")
    .trim();
  return stats.reply(code, enhanced, phase, text, 1, connection, message);
}

/**
 * RSET's 2xx, once accepted as RSET's (replyMismatch in pending.ts): with an address status
 * (X.1.Y, which RFC 3463 gives MAIL and RCPT), as Postfix smtp-sink's `250 2.1.0 Ok`, it keeps
 * the session but is counted as a warning. A refusal goes to the error table (pipeline.ts).
 */
export function recordRsetStatus(stats: RunStats, code: number, parser: ReplyParser): void {
  if (code < 300 && parser.enhancedSubject === 1) stats.warning("rset-status", parser.replyLine());
}
