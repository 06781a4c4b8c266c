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

import { MessageFactory } from "../messages/factory.js";
import { After, Before } from "../messages/wire.js";
import { END_OF_DATA } from "../smtp/message.js";
import { HandshakeSession } from "./handshake.js";
import { Expect, PHASE_OF, replyFits } from "./pending.js";
import { NO_WORK, NOT_YET } from "./session-base.js";
import { traceReply } from "./trace.js";
import { recordReply, type Transaction, Verdict } from "./transactions.js";

export { NO_WORK, NOT_YET, type SessionHost } from "./session-base.js";

const CRLF = "\r\n";

export class Session extends HandshakeSession {
  /** The messages in the transaction ring's slots, and the bytes each step writes. */
  private readonly messages = new MessageFactory(this.host.wire, this.txs.slots.length);

  onReply(code: number, lines: string[] | null): void {
    if (this.failure) return; // the connection is being torn down; later bytes are moot
    if (this.host.trace && this.id === 0) traceReply(this.host.trace, code, lines);
    if (this.pending.count === 0) {
      this.onProtocolError(`unexpected reply ${code} with no command in flight`);
      return;
    }
    const kind = this.pending.headKind;
    const slot = this.pending.headSlot;
    this.pending.shift();
    this.phaseSince = this.readAt;
    if (code < 400 && !replyFits(kind, code)) {
      this.abort("protocol", PHASE_OF[kind], `reply ${code} does not answer ${PHASE_OF[kind]}`);
      return;
    }
    if (code === 421) {
      // RFC 5321 §3.8: the server is closing the channel; whatever is in flight is lost.
      const message = this.txs.oldestOpen();
      this.closeNow(
        recordReply(this.host.stats, code, lines, PHASE_OF[kind], this.connection, message),
      );
      return;
    }
    switch (kind) {
      case Expect.Banner:
        this.onBanner(code, lines);
        break;
      case Expect.Ehlo:
      case Expect.Helo:
        this.onGreeting(kind, code, lines);
        break;
      case Expect.Mail:
        this.onMail(this.txs.slots[slot], code, lines);
        break;
      case Expect.Rcpt:
        this.onRcpt(this.txs.slots[slot], code, lines);
        break;
      case Expect.Data:
        this.onData(this.txs.slots[slot], code, lines);
        break;
      case Expect.Dot:
        this.onDot(this.txs.slots[slot], code, lines);
        break;
      case Expect.Rset:
        if (code >= 400) recordReply(this.host.stats, code, lines, "rset", this.connection);
        if (!this.pipelined) this.nextStep();
        break;
      case Expect.Bdat:
        this.onBdat(this.txs.slots[slot], code, lines);
        break;
      case Expect.StartTls:
      case Expect.Auth:
      case Expect.AuthUser:
      case Expect.AuthPassword:
        this.onSecureStep(kind, code, lines);
        break;
      case Expect.Quit:
        this.host.stats.record("quit", this.phaseSince - this.quitSentAt);
        // RFC 5321 §4.1.1.10: after 221 the session is over; closing now rather than waiting
        // for the server's FIN frees the slot for its next connection one event sooner.
        this.socket.destroy();
        break;
    }
  }

  private onMail(tx: Transaction, code: number, lines: string[] | null): void {
    if (code < 300) {
      if (!this.pipelined) this.command(this.messages.rcptLine(tx.slot, 0), Expect.Rcpt, tx.slot);
      return;
    }
    this.txs.reject(tx, code, lines, "mail", this.phaseSince);
    this.needRset = true;
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
      this.needRset = true;
    }
    if (this.pipelined) return;
    if (!last) this.command(this.messages.rcptLine(tx.slot, tx.rcptReplies), Expect.Rcpt, tx.slot);
    else if (tx.verdict === Verdict.Open) this.command(`DATA${CRLF}`, Expect.Data, tx.slot);
    else this.afterMessage();
  }

  private onData(tx: Transaction, code: number, lines: string[] | null): void {
    if (code === 354) {
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
    this.needRset = true;
    if (this.pending.count === 0) this.afterMessage();
  }

  private onDot(tx: Transaction, code: number, lines: string[] | null): void {
    if (this.host.config.lmtp && !tx.voided) {
      if (!this.lmtpReply(tx, code, lines)) return;
      code = 250; // a recipient took it; the others' refusals are counted already
    }
    if (!tx.voided) {
      if (code < 300) this.accept(tx);
      else this.txs.reject(tx, code, lines, "dot", this.phaseSince);
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

  /** The final reply took the message: its latencies (intended and actual start) and verdict. */
  private accept(tx: Transaction): void {
    const latency = this.phaseSince - tx.intendedMs;
    this.host.stats.record("transaction", latency);
    this.host.stats.record("transactionUncorrected", this.phaseSince - tx.startMs);
    this.host.stats.recordPhase(tx.cls, "data", this.phaseSince - tx.dataSentAt);
    this.txs.settle(tx, "accepted", this.phaseSince, latency);
  }

  /** The last transaction is done and nothing is in flight: pause (-w/-R) or go on. */
  private afterMessage(): void {
    const { waitMs, randomWait } = this.host.config;
    if (waitMs > 0 && !this.quitSent) {
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
  protected nextStep(): void {
    if (this.quitSent || this.closed) return;
    if (this.chunked) {
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
      this.idle = true;
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
    if (!this.idle || this.closed) return;
    this.idle = false;
    this.nextStep();
  }

  /** Message `seq` takes the ring's next slot; the factory readies the message in it. */
  private startMessage(seq: number, now: number): Transaction {
    const kind = this.messages.begin(this.txs.nextSlot, seq, performance.timeOrigin + now);
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

  /**
   * BDAT mode: keep the window full of whole transactions (RFC 3030 with RFC 2920), written in
   * one go; QUIT follows the last one in the same write.
   */
  private fillWindow(): void {
    const window = this.host.config.waitMs > 0 ? 1 : this.host.config.window;
    if (this.inFlight >= window) return;
    this.socket.cork();
    while (this.inFlight < window) {
      const seq = this.claim();
      if (seq === NOT_YET) {
        if (this.inFlight === 0) {
          this.idle = true;
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
    this.inFlight++;
    const before = this.rsetOwed();
    tx.dataSentAt = now;
    const epochMs = performance.timeOrigin + now;
    this.write(this.messages.bdatTransaction(tx.slot, this.caps, before, epochMs));
    this.pushEnvelope(tx.slot, before, tx.recipients, Expect.Bdat);
  }

  /** The final reply to a BDAT transaction; a refusal earlier in it has already counted. */
  private onBdat(tx: Transaction, code: number, lines: string[] | null): void {
    this.inFlight--;
    if (tx.verdict === Verdict.Open) {
      if (code < 300) this.accept(tx);
      else this.txs.reject(tx, code, lines, "bdat", this.phaseSince);
    }
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
    const epochMs = performance.timeOrigin + now;
    const message = this.messages.content(tx.slot, after, this.caps, epochMs);
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
      this.quitSent = true;
      this.pending.push(Expect.Quit, 0);
    }
  }
}
