/**
 * One SMTP session over one connection: the transactions, on top of the handshake layer. With
 * PIPELINING (RFC 2920) MAIL, every RCPT and DATA go in one write, and after the 354 the body,
 * its final dot and the next envelope go in one write, so the steady state costs one round trip
 * per message; with CHUNKING (RFC 3030) whole BDAT transactions go back to back, a window at a
 * time; LMTP (RFC 2033) gets one reply per accepted recipient after the data. Without
 * PIPELINING, strict lock-step.
 *
 * Every message a session takes is settled exactly once: accepted, rejected or failed.
 */

import type { Capabilities } from "../smtp/capabilities.js";
import { END_OF_DATA } from "../smtp/message.js";
import { After, Before } from "../smtp/pipelining.js";
import { queueIdOf } from "../smtp/queue-id.js";
import { performance, TIME_ORIGIN } from "../stats/clock.js";
import { Expect, PHASE_OF, replyMismatch } from "./pending.js";
import { NO_WORK, NOT_YET, SessionBase } from "./session-base.js";
import { Dialogue, State } from "./state.js";
import { traceReply } from "./trace.js";
import { recordReply, recordRsetReply, type Transaction, Verdict } from "./transactions.js";
import { closeAnswered } from "./transport.js";

export { NO_WORK, NOT_YET, type SessionHost } from "./session-base.js";
export { State } from "./state.js";

const CRLF = "\r\n";

export class Session extends SessionBase {
  /** The messages in the transaction ring's slots, and the bytes each step writes. */
  private readonly messages = this.host.messagesFor(this.txs.slots.length);
  /** parser.chunks when a 354 sent the content: a dot reply read in it predates the content. */
  private contentChunk = -1;

  onReply(code: number, lines: string[] | null): void {
    if (this.state >= State.Failed) return; // the outcome is counted; later bytes are moot
    if (this.host.trace && this.id === 0) traceReply(this.host.trace, code, lines);
    if (this.pending.count === 0) {
      this.onProtocolError(`unexpected reply ${code} with no command in flight`);
      return;
    }
    const kind = this.pending.headKind;
    const slot = this.pending.headSlot;
    this.pending.shift();
    this.phaseSince = this.readAt;
    const early = kind === Expect.Dot && this.parser.chunks === this.contentChunk;
    const { lmtp } = this.host.config;
    const mismatch = early
      ? `reply ${code} to the final dot came before the message`
      : replyMismatch(kind, code, this.parser.enhancedSubject, lmtp, this.txs.holding);
    if (mismatch !== null) {
      // Out of step: the message held for confirmation stays open and fails with the session.
      this.abort("protocol", PHASE_OF[kind], mismatch);
      return;
    }
    const confirms = kind === Expect.Data || kind === Expect.Rset || kind === Expect.Quit;
    if (confirms || code === 421) this.txs.confirmHeld();
    if (code === 421) {
      // RFC 5321 §3.8: the server is closing the channel; whatever is in flight is lost.
      const message = this.txs.oldestOpen();
      this.closeNow(
        recordReply(this.host.stats, code, lines, PHASE_OF[kind], this.connection, message),
      );
      return;
    }
    this.dispatch(kind, slot, code, lines);
  }

  /** Hands a reply to the step that awaits it: a transaction's, QUIT's, or the handshake's. */
  private dispatch(kind: Expect, slot: number, code: number, lines: string[] | null): void {
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
      case Expect.Rset:
        recordRsetReply(this.host.stats, code, lines, this.parser, this.connection);
        if (!this.pipelined) this.nextStep();
        return;
      case Expect.Quit:
        this.host.stats.record("quit", this.phaseSince - this.quitSentAt);
        // Closing now rather than waiting for the server's FIN frees the slot for its next
        // connection one event sooner. A plain socket reading through the shared buffer carries
        // the next one (STARTTLS-capable ones read 'data' events, for node:tls to take over).
        this.socketReusable =
          closeAnswered(this.socket, this.host.config.target!) && this.host.config.tls === "none";
        return;
      default:
        this.handshake.onReply(kind, code, lines);
    }
  }

  /** Commands travel in groups (RFC 2920), with DATA or BDAT. */
  private get pipelined(): boolean {
    return this.dialogue !== Dialogue.LockStep;
  }

  ready(caps: Capabilities, dialogue: Dialogue): void {
    this.caps = caps;
    this.dialogue = dialogue;
    this.enter(State.Ready);
    this.nextStep();
  }

  private onMail(tx: Transaction, code: number, lines: string[] | null): void {
    if (code < 300) {
      this.mailDeferrals = 0;
      tx.mailAccepted = true;
      if (!this.pipelined) this.command(this.messages.rcptLine(tx.slot, 0), Expect.Rcpt, tx.slot);
      return;
    }
    // No transaction was opened, so none needs an RSET: an RSET here is a "non-mail" command,
    // and Exim drops a session after 10 of those in a row (smtp_accept_max_nonmail).
    this.txs.reject(tx, code, lines, "mail", this.phaseSince);
    this.onMailRefused(code, lines);
    if (!this.pipelined) this.afterMessage();
  }

  private onRcpt(tx: Transaction, code: number, lines: string[] | null): void {
    tx.rcptReplies++;
    if (code < 300) {
      tx.rcptOk++;
      this.host.stats.recipientAccepted();
    } else {
      this.host.stats.recipientRejected();
      if (tx.verdict === Verdict.Open) {
        recordReply(this.host.stats, code, lines, "rcpt", this.connection, tx.ordinal);
      }
    }
    const last = tx.rcptReplies === tx.recipients;
    if (last && tx.rcptOk === 0 && tx.verdict === Verdict.Open) {
      this.txs.settle(tx, "rejected", this.phaseSince);
      this.needRset = tx.mailAccepted; // the server still holds the sender (RFC 5321 §4.1.1.5)
    }
    if (this.pipelined) return;
    if (!last) this.command(this.messages.rcptLine(tx.slot, tx.rcptReplies), Expect.Rcpt, tx.slot);
    else if (tx.verdict === Verdict.Open) this.command(`DATA${CRLF}`, Expect.Data, tx.slot);
    else this.afterMessage();
  }

  private onData(tx: Transaction, code: number, lines: string[] | null): void {
    if (code === 354) {
      this.contentChunk = this.parser.chunks;
      this.host.stats.recordPhase(tx.cls, "envelope", this.phaseSince - tx.startMs);
      if (tx.verdict === Verdict.Open) {
        this.sendMessage(tx);
      } else {
        // RFC 2920 §3.1: DATA accepted with no valid recipient; end it with an empty message.
        tx.voided = true;
        this.write(END_OF_DATA);
        this.pending.push(Expect.Dot, tx.slot);
      }
      return;
    }
    this.txs.reject(tx, code, lines, "data", this.phaseSince);
    this.needRset = tx.mailAccepted;
    if (this.pending.count === 0) this.afterMessage();
  }

  private onDot(tx: Transaction, code: number, lines: string[] | null): void {
    if (this.host.config.lmtp && !tx.voided) {
      if (!this.lmtpReply(tx, code, lines)) return;
      code = 250; // a recipient took it; the others' refusals are counted already
    }
    if (!tx.voided) {
      if (code < 300) this.acceptOrHold(tx, lines);
      else this.txs.reject(tx, code, lines, "dot", this.phaseSince);
    } else {
      this.needRset = false; // the empty message's dot ended the transaction
    }
    if (this.pending.count === 0) this.afterMessage();
  }

  /**
   * LMTP (RFC 2033 §4.2): one reply per accepted recipient after the data. Refused recipients
   * are counted in the error table; returns true on the last reply, with `code` turned into the
   * message's verdict: accepted when any recipient took it.
   */
  private lmtpReply(tx: Transaction, code: number, lines: string[] | null): boolean {
    tx.dotReplies++;
    if (code < 300) tx.dotOk++;
    else recordReply(this.host.stats, code, lines, "dot", this.connection, tx.ordinal);
    if (tx.dotReplies < this.dotRepliesOf(tx)) return false;
    if (tx.dotOk === 0) {
      this.txs.settle(tx, "rejected", this.phaseSince);
      if (this.pending.count === 0) this.afterMessage();
      return false;
    }
    return true;
  }

  /** Replies the final dot gets: one (SMTP), or one per accepted recipient (LMTP). */
  private dotRepliesOf(tx: Transaction): number {
    return this.host.config.lmtp && !tx.voided ? tx.rcptOk : 1;
  }

  /**
   * A 2xx final reply (the dot's, or BDAT LAST's) while the next transaction's replies are due
   * could be the next command's reply, should the server have skipped or delayed it (RFC 2920
   * §3.1: replies are matched by order alone): the message is held in the ring until the order
   * is confirmed (TransactionRing.hold); a mismatch first fails it with the session.
   */
  private acceptOrHold(tx: Transaction, lines: string[] | null): void {
    if (this.host.stats.ledger !== null) tx.queueId = queueIdOf(lines);
    // DATA: the next envelope (MAIL first) is due; BDAT: the next transaction (RSET first).
    const next = this.pending.count > 0 ? this.pending.headKind : Expect.Quit;
    if (next === Expect.Mail || next === Expect.Rset) {
      this.txs.hold(tx, this.phaseSince);
    } else {
      this.txs.accept(tx, this.phaseSince);
    }
  }

  /** The last transaction is done and nothing is in flight: pause (-w/-R) or go on. */
  private afterMessage(): void {
    const { waitMs, randomWait } = this.host.config;
    if (waitMs > 0 && this.state < State.Quitting) {
      const delay = randomWait ? Math.random() * waitMs : waitMs;
      this.waitTimer = setTimeout(() => {
        this.waitTimer = null;
        this.nextStep();
      }, delay);
      return;
    }
    this.nextStep();
  }

  /** Starts the next transaction, an RSET first when one is owed, or QUIT when done. */
  private nextStep(): void {
    if (this.state !== State.Ready) return;
    if (this.dialogue === Dialogue.Chunked) {
      this.fillWindow();
      return;
    }
    if (this.pending.count > 0) return;
    if (this.needRset && !this.pipelined) {
      this.needRset = false;
      this.command(`RSET${CRLF}`, Expect.Rset, 0);
      return;
    }
    const seq = this.claim();
    if (seq === NOT_YET) {
      this.enter(State.Idle);
      this.host.sessionIdle(this);
      return;
    }
    if (seq < 0) {
      this.quit();
      return;
    }
    this.beginTransaction(seq);
  }

  /** Wakes an idle session: a message is due, or the run is draining (then it QUITs). */
  resume(): void {
    if (this.state !== State.Idle) return;
    this.enter(State.Ready);
    this.nextStep();
  }

  /** Message `seq` takes the ring's next slot; the factory readies the message in it. */
  private startMessage(seq: number, now: number): Transaction {
    const kind = this.messages.begin(this.txs.nextSlot, seq, TIME_ORIGIN + now);
    return this.newTransaction(seq, kind, now);
  }

  private beginTransaction(seq: number): void {
    const tx = this.startMessage(seq, performance.now());
    if (!this.pipelined) {
      this.command(this.messages.mailLine(tx.slot, this.caps), Expect.Mail, tx.slot);
      return;
    }
    const before = this.rsetOwed();
    this.write(this.messages.envelopeGroup(tx.slot, this.caps, before));
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
    const window = this.host.config.waitMs > 0 ? 1 : this.host.config.window;
    if (this.inFlight >= window) return;
    this.socket.cork();
    while (this.inFlight < window) {
      const seq = this.claim();
      if (seq === NOT_YET) {
        if (this.inFlight === 0) {
          this.enter(State.Idle);
          this.host.sessionIdle(this);
        }
        break;
      }
      if (seq < 0) {
        this.quit();
        break;
      }
      this.beginChunked(seq);
    }
    this.socket.uncork();
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
    this.write(this.messages.bdatTransaction(tx.slot, this.caps, before, epochMs));
    this.pushEnvelope(tx.slot, before, tx.recipients, Expect.Bdat);
  }

  /** The final reply to a BDAT transaction; a refusal earlier in it has already counted. */
  private onBdat(tx: Transaction, code: number, lines: string[] | null): void {
    this.inFlight--;
    if (tx.verdict === Verdict.Open) {
      if (code < 300) this.acceptOrHold(tx, lines);
      else this.txs.reject(tx, code, lines, "bdat", this.phaseSince);
    }
    if (code >= 400 && tx.mailAccepted) this.needRset = true; // indeterminate (RFC 3030 §2)
    this.afterMessage();
  }

  /** The replies an envelope group earns: RSET's, MAIL's, one per RCPT, then DATA's (or BDAT's). */
  private pushEnvelope(slot: number, before: Before, recipients: number, last = Expect.Data): void {
    if (before === Before.Rset) this.pending.push(Expect.Rset, 0);
    this.pending.push(Expect.Mail, slot);
    for (let i = 0; i < recipients; i++) this.pending.push(Expect.Rcpt, slot);
    this.pending.push(last, slot);
  }

  /**
   * Writes the message content and its final dot; with PIPELINING the next envelope (or QUIT)
   * travels in the same write (RFC 2920 §3.1: the content may start a group).
   */
  private sendMessage(tx: Transaction): void {
    const { config } = this.host;
    let after = After.Nothing;
    let next = -1;
    if (this.pipelined && config.waitMs === 0 && !this.needRset) {
      next = this.claim();
      // NOT_YET: nothing due, so nothing follows; the dot reply finds the session idle.
      after = next >= 0 ? After.Envelope : next === NO_WORK ? After.Quit : After.Nothing;
    }
    const now = performance.now();
    tx.dataSentAt = now;
    // The time the message was due, as above (the BDAT path): end-to-end counts from there.
    const message = this.messages.content(tx.slot, after, this.caps, TIME_ORIGIN + tx.intendedMs);
    for (let replies = this.dotRepliesOf(tx); replies > 0; replies--) {
      this.pending.push(Expect.Dot, tx.slot);
    }
    if (after === After.Envelope) {
      const nextTx = this.startMessage(next, now);
      const envelope = this.messages.nextEnvelopeGroup(nextTx.slot, this.caps);
      if (envelope === null) {
        this.write(message); // the next envelope is in the shared tail
      } else {
        this.socket.cork();
        this.write(message);
        this.write(envelope);
        this.socket.uncork();
      }
      this.messages.written(this.socket.writableLength > 0);
      this.pushEnvelope(nextTx.slot, Before.Nothing, nextTx.recipients);
      return;
    }
    this.write(message);
    this.messages.written(this.socket.writableLength > 0);
    if (after === After.Quit) {
      this.quitSentAt = now;
      this.enter(State.Quitting);
      this.pending.push(Expect.Quit, 0);
    }
  }
}
