/**
 * A session's transaction pipeline: the messages it carries once the handshake is done. With
 * PIPELINING (RFC 2920) MAIL, every RCPT and DATA go in one write, and after the 354 the body,
 * its final dot and the next envelope go in one write, so the steady state costs one round trip
 * per message; with CHUNKING (RFC 3030) whole BDAT transactions go back to back, a window at a
 * time; LMTP (RFC 2033) gets one reply per accepted recipient after the data. Without
 * PIPELINING, strict lock-step.
 *
 * A collaborator the session holds, as the handshake is: it writes its commands and groups to
 * the wire with the replies they expect, asks its session (PipelineHost) only for work, pauses
 * and QUIT, and gets the replies to its commands handed back in order. Every message it takes is
 * settled once: accepted, rejected, failed or unconfirmed.
 */

import { type Capabilities, NO_CAPABILITIES } from "../smtp/capabilities.js";
import { END_OF_DATA } from "../smtp/message.js";
import { After, Before, DATA_COMMAND, RSET_COMMAND } from "../smtp/pipelining.js";
import { performance, TIME_ORIGIN } from "../stats/clock.js";
import type { RunStats } from "../stats/collector.js";
import { Dialogue, type Lifecycle, State } from "./lifecycle.js";
import { Expect } from "./pending.js";
import { MessageQuota, NO_WORK, NOT_YET } from "./quota.js";
import type { SessionMessages, SessionOptions } from "./run-interfaces.js";
import { recordReply, type Transaction, type TransactionRing, Verdict } from "./transactions.js";
import { unnamed } from "./unnamed.js";
import type { Wire } from "./wire.js";

/** What the transaction pipeline asks of its session besides the wire: the lifecycle, and work. */
export interface PipelineHost extends Lifecycle {
  /** The run's next message for this session: a sequence number, NO_WORK or NOT_YET. */
  takeMessage(): number;
  /** Intended start of the message takeMessage returned last. */
  readonly intendedMs: number;
  /** Nothing in flight and no message due: the session is Idle until resume(). */
  idle(): void;
}

/** A lock-step command's bytes: addresses are sent as given, one octet per character. */
function latin1(line: string): Buffer {
  return Buffer.from(line, "latin1");
}

export class Pipeline {
  private caps: Capabilities = NO_CAPABILITIES;
  private dialogue = Dialogue.LockStep;
  /** BDAT transactions written whose final reply has not come. */
  private inFlight = 0;
  private needRset = false;
  private waitTimer: NodeJS.Timeout | null = null;
  private readonly quota: MessageQuota;

  constructor(
    private readonly host: PipelineHost,
    /** Where the pipeline writes, with the replies each write expects. */
    private readonly wire: Wire,
    private readonly config: SessionOptions,
    private readonly stats: RunStats,
    private readonly txs: TransactionRing,
    /** The messages in the transaction ring's slots, and the bytes each step writes. */
    private readonly messages: SessionMessages,
  ) {
    this.quota = new MessageQuota(config, stats);
  }

  /**
   * A new connection: nothing started or owed. `preclaimed`: the message a per-message
   * connection carries, due at `intendedMs`, or -1 in reuse mode; `cap`: the reuse cap.
   */
  begin(preclaimed: number, cap: number, intendedMs: number): void {
    this.caps = NO_CAPABILITIES;
    this.dialogue = Dialogue.LockStep;
    this.inFlight = 0;
    this.needRset = false;
    this.waitTimer = null;
    this.quota.begin(preclaimed, cap, intendedMs);
  }

  /** Transactions this connection started. */
  get messagesStarted(): number {
    return this.quota.started;
  }

  /** Per-message mode: the message this connection was to carry and never started; else -1. */
  get unstarted(): number {
    return this.quota.unstarted;
  }

  /** Replies are read in chunks whose refills should leave in one write (BDAT). */
  get chunked(): boolean {
    return this.dialogue === Dialogue.Chunked;
  }

  /** The connection closed or the run stopped it: no pause may wake it again. */
  cancelWait(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
  }

  /** Commands travel in groups (RFC 2920), with DATA or BDAT. */
  private get pipelined(): boolean {
    return this.dialogue !== Dialogue.LockStep;
  }

  /** The handshake is done: transactions may start. */
  ready(caps: Capabilities, dialogue: Dialogue): void {
    this.caps = caps;
    this.dialogue = dialogue;
    this.host.enter(State.Ready);
    this.nextStep();
  }

  /** A reply to one of the pipeline's commands: a transaction's, or RSET's. */
  onReply(kind: Expect, slot: number, code: number, lines: string[] | null): void {
    const tx = this.txs.slots[slot];
    switch (kind) {
      case Expect.Mail:
        this.onMail(tx, code, lines);
        return;
      case Expect.Rcpt:
        this.onRcpt(tx, code, lines);
        return;
      case Expect.Data:
        this.onData(tx, code, lines);
        return;
      case Expect.Dot:
        this.onDot(tx, code, lines);
        return;
      case Expect.Bdat:
        this.onBdat(tx, code, lines);
        return;
      default:
        if (code >= 400) recordReply(this.stats, code, lines, "rset", this.host.connection);
        if (!this.pipelined) this.nextStep();
    }
  }

  private onMail(tx: Transaction, code: number, lines: string[] | null): void {
    this.quota.mailReply(code, lines);
    if (code < 300) {
      tx.mailAccepted = true;
      if (this.pipelined) return;
      this.wire.send(latin1(this.messages.rcptLine(tx.slot, 0)), Expect.Rcpt, tx.slot);
      return;
    }
    // No transaction was opened, so none needs an RSET: an RSET here is a "non-mail" command,
    // and Exim drops a session after 10 of those in a row (smtp_accept_max_nonmail).
    this.txs.reject(tx, code, lines, "mail", this.host.phaseSince);
    if (!this.pipelined) this.afterMessage();
  }

  private onRcpt(tx: Transaction, code: number, lines: string[] | null): void {
    if (this.txs.rcptReply(tx, code, lines, this.host.phaseSince)) {
      this.needRset = tx.mailAccepted; // the server still holds the sender (RFC 5321 §4.1.1.5)
    }
    if (this.pipelined) return;
    const last = tx.rcptReplies === tx.recipients;
    const { wire } = this;
    if (!last) {
      wire.send(latin1(this.messages.rcptLine(tx.slot, tx.rcptReplies)), Expect.Rcpt, tx.slot);
    } else if (tx.verdict === Verdict.Open) {
      wire.send(DATA_COMMAND, Expect.Data, tx.slot);
    } else {
      this.afterMessage();
    }
  }

  private onData(tx: Transaction, code: number, lines: string[] | null): void {
    if (code === 354) {
      this.stats.recordPhase(tx.cls, "envelope", this.host.phaseSince - tx.startMs);
      if (tx.verdict === Verdict.Open) {
        this.sendMessage(tx);
      } else {
        // RFC 2920 §3.1: DATA accepted with no valid recipient; end it with an empty message.
        tx.voided = true;
        this.wire.send(END_OF_DATA, Expect.Dot, tx.slot);
      }
      return;
    }
    this.txs.reject(tx, code, lines, "data", this.host.phaseSince);
    this.needRset = tx.mailAccepted;
    if (this.wire.owed === 0) this.afterMessage();
  }

  private onDot(tx: Transaction, code: number, lines: string[] | null): void {
    if (this.config.lmtp && !tx.voided) {
      // RFC 2033 §4.2: one reply per accepted recipient; the message's verdict is the last's.
      if (!this.txs.lmtpReply(tx, code, lines, this.host.phaseSince)) {
        if (this.wire.owed === 0) this.afterMessage(); // none took it: rejected
        return;
      }
      code = 250; // a recipient took it; the others' refusals are counted already
    }
    if (!tx.voided) {
      if (code < 300) this.acceptOrHold(tx, lines);
      else this.txs.reject(tx, code, lines, "dot", this.host.phaseSince);
    } else {
      this.needRset = false; // the empty message's dot ended the transaction
    }
    if (this.wire.owed === 0) this.afterMessage();
  }

  /** Replies the final dot gets: one (SMTP), or one per accepted recipient (LMTP). */
  private dotRepliesOf(tx: Transaction): number {
    return this.config.lmtp && !tx.voided ? tx.rcptOk : 1;
  }

  /**
   * A 2xx final reply (the dot's, or BDAT LAST's) while the next transaction's replies are due
   * could be the next command's reply, should the server have skipped or delayed it (RFC 2920
   * §3.1: replies are matched by order alone): the message is held in the ring until the order
   * is confirmed (TransactionRing.hold); a mismatch first fails it with the session.
   */
  private acceptOrHold(tx: Transaction, lines: string[] | null): void {
    // DATA: the next envelope (MAIL first) is due; BDAT: the next transaction (RSET first).
    const next = this.wire.owed > 0 ? this.wire.nextKind : Expect.Quit;
    const hold = next === Expect.Mail || next === Expect.Rset;
    this.txs.finalAccepted(tx, lines, this.host.phaseSince, hold);
  }

  /** The last transaction is done and nothing is in flight: pause (-w/-R) or go on. */
  private afterMessage(): void {
    const { waitMs, randomWait } = this.config;
    if (waitMs > 0 && this.host.state < State.Quitting) {
      const delay = randomWait ? Math.random() * waitMs : waitMs;
      this.waitTimer = setTimeout(this.waited, delay);
      return;
    }
    this.nextStep();
  }

  private readonly waited = unnamed((): void => {
    this.waitTimer = null;
    this.nextStep();
  });

  /** The next message for this session, NO_WORK when its share is done, or NOT_YET. */
  private claim(): number {
    return this.quota.claim(this.host);
  }

  /** Starts the next transaction, an RSET first when one is owed, or QUIT when done. */
  private nextStep(): void {
    const { host } = this;
    if (host.state !== State.Ready) return;
    if (this.dialogue === Dialogue.Chunked) {
      this.fillWindow();
      return;
    }
    if (this.wire.owed > 0) return;
    if (this.needRset && !this.pipelined) {
      this.needRset = false;
      this.wire.send(RSET_COMMAND, Expect.Rset, 0);
      return;
    }
    const seq = this.claim();
    if (seq === NOT_YET) {
      host.idle();
      return;
    }
    if (seq < 0) {
      host.quit(State.Quitting);
      return;
    }
    this.beginTransaction(seq);
  }

  /** Wakes an idle session: a message is due, or the run is draining (then it QUITs). */
  resume(): void {
    if (this.host.state !== State.Idle) return;
    this.host.enter(State.Ready);
    this.nextStep();
  }

  /** Message `seq` takes the ring's next slot; the factory readies the message in it. */
  private startMessage(seq: number, now: number): Transaction {
    const kind = this.messages.begin(this.txs.nextSlot, seq, TIME_ORIGIN + now);
    return this.txs.start(seq, kind, now, this.quota.start(this.host.intendedMs));
  }

  private beginTransaction(seq: number): void {
    const tx = this.startMessage(seq, performance.now());
    if (!this.pipelined) {
      this.wire.send(latin1(this.messages.mailLine(tx.slot, this.caps)), Expect.Mail, tx.slot);
      return;
    }
    const before = this.rsetOwed();
    this.wire.write(this.messages.envelopeGroup(tx.slot, this.caps, before));
    this.pushEnvelope(tx.slot, before, tx.recipients);
  }

  /** What opens the next envelope group: the RSET a failed transaction owes, if any (now paid). */
  private rsetOwed(): Before {
    const before = this.needRset ? Before.Rset : Before.Nothing;
    this.needRset = false;
    return before;
  }

  /** BDAT: the window kept full of whole transactions (RFC 3030, 2920), QUIT in the last write. */
  private fillWindow(): void {
    const window = this.config.waitMs > 0 ? 1 : this.config.window;
    if (this.inFlight >= window) return;
    const { host } = this;
    this.wire.cork();
    while (this.inFlight < window) {
      const seq = this.claim();
      if (seq === NOT_YET) {
        if (this.inFlight === 0) host.idle();
        break;
      }
      if (seq < 0) {
        host.quit(State.Quitting);
        break;
      }
      this.beginChunked(seq);
    }
    this.wire.uncork();
  }

  private beginChunked(seq: number): void {
    const now = performance.now();
    const tx = this.startMessage(seq, now);
    // RFC 3030 §2: after a refused BDAT the server's state is indeterminate, and the reply may
    // come only after this transaction is written: Exim answers 503 to BDAT when every
    // recipient was refused but keeps the sender, so a MAIL behind it would get "503 sender
    // already given" while its RCPT and BDAT still deliver. An RSET in the same write ahead of
    // every transaction that follows one still in flight costs no round trip.
    if (this.inFlight > 0) this.needRset = true;
    this.inFlight++;
    const before = this.rsetOwed();
    tx.dataSentAt = now;
    // X-Mailvolley-Sent: when the message was due, so end-to-end includes envelope and queueing.
    const epochMs = TIME_ORIGIN + tx.intendedMs;
    const transaction = this.messages.bdatTransaction(tx.slot, this.caps, before, epochMs);
    tx.dataWrite = this.wire.write(transaction);
    this.pushEnvelope(tx.slot, before, tx.recipients, Expect.Bdat);
  }

  /** The final reply to a BDAT transaction; a refusal earlier in it has already counted. */
  private onBdat(tx: Transaction, code: number, lines: string[] | null): void {
    this.inFlight--;
    if (tx.verdict === Verdict.Open) {
      if (code < 300) this.acceptOrHold(tx, lines);
      else this.txs.reject(tx, code, lines, "bdat", this.host.phaseSince);
    }
    if (code >= 400 && tx.mailAccepted) this.needRset = true; // indeterminate (RFC 3030 §2)
    this.afterMessage();
  }

  /** The replies an envelope group earns: RSET's, MAIL's, one per RCPT, then DATA's (or BDAT's). */
  private pushEnvelope(slot: number, before: Before, recipients: number, last = Expect.Data): void {
    const { wire } = this;
    if (before === Before.Rset) wire.expect(Expect.Rset);
    wire.expect(Expect.Mail, slot);
    for (let i = 0; i < recipients; i++) wire.expect(Expect.Rcpt, slot);
    wire.expect(last, slot);
  }

  /**
   * Writes the message content and its final dot; with PIPELINING the next envelope (or QUIT)
   * travels in the same write (RFC 2920 §3.1: the content may start a group).
   */
  private sendMessage(tx: Transaction): void {
    const { host } = this;
    let after = After.Nothing;
    let next = -1;
    if (this.pipelined && this.config.waitMs === 0 && !this.needRset) {
      next = this.claim();
      // NOT_YET: nothing due, so nothing follows; the dot reply finds the session idle.
      after = next >= 0 ? After.Envelope : next === NO_WORK ? After.Quit : After.Nothing;
    }
    const now = performance.now();
    tx.dataSentAt = now;
    // The time the message was due, as above (the BDAT path): end-to-end counts from there.
    const message = this.messages.content(tx.slot, after, this.caps, TIME_ORIGIN + tx.intendedMs);
    for (let replies = this.dotRepliesOf(tx); replies > 0; replies--) {
      this.wire.expect(Expect.Dot, tx.slot);
    }
    if (after === After.Envelope) {
      const nextTx = this.startMessage(next, now);
      const envelope = this.messages.nextEnvelopeGroup(nextTx.slot, this.caps);
      const { wire } = this;
      if (envelope === null) {
        tx.dataWrite = wire.write(message); // the next envelope is in the shared tail
      } else {
        wire.cork();
        tx.dataWrite = wire.write(message);
        wire.write(envelope);
        wire.uncork();
      }
      this.messages.written(wire.writableLength > 0);
      this.pushEnvelope(nextTx.slot, Before.Nothing, nextTx.recipients);
      return;
    }
    tx.dataWrite = this.wire.write(message);
    this.messages.written(this.wire.writableLength > 0);
    if (after === After.Quit) host.quit(State.Quitting, now);
  }
}
