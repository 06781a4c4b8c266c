/**
 * One SMTP session over one connection: connect, banner, EHLO (HELO when EHLO is refused),
 * transactions, QUIT. With PIPELINING (RFC 2920) MAIL, every RCPT and DATA go in one write, and
 * after the 354 the body, its final dot and the next envelope go in one write, so the steady
 * state costs one round trip per message. Without it, strict lock-step.
 *
 * Every message a session takes is settled exactly once: accepted, rejected or failed.
 */
import type net from "node:net";
import type tls from "node:tls";
import type { RunConfig } from "../config/run-config.js";
import { type Capabilities, NO_CAPABILITIES, parseCapabilities } from "../smtp/capabilities.js";
import { END_OF_DATA } from "../smtp/message.js";
import { ReplyParser } from "../smtp/reply-parser.js";
import type { RunStats } from "../stats/collector.js";
import type { Phase } from "../stats/result.js";
import { Expect, PendingReplies, PHASE_OF, replyFits } from "./pending.js";
import {
  authLoginAnswer,
  authPlainLine,
  chooseMechanism,
  openTransport,
  upgradeToTls,
} from "./secure.js";
import { traceReply, traceWrite } from "./trace.js";
import {
  recordReply,
  type Transaction,
  TransactionRing,
  TX_SLOTS,
  Verdict,
} from "./transactions.js";
import { transportFailure } from "./transport.js";
import { After, type MessageWire, QUIT_COMMAND } from "./wire.js";

/** takeMessage: the run has no more messages. */
export const NO_WORK = -1;
/** takeMessage: none is due now; the session idles until resumed. */
export const NOT_YET = -2;

/** What a session needs from the run that owns it. */
export interface SessionHost {
  readonly config: RunConfig;
  readonly wire: MessageWire;
  readonly stats: RunStats;
  /** The next message's sequence number, NO_WORK, or NOT_YET (the open model's lull). */
  takeMessage(session: Session): number;
  /** Intended start (performance.now() time) of the message takeMessage returned last. */
  readonly intendedMs: number;
  /** The session has nothing in flight and no message is due; `resume()` wakes it. */
  sessionIdle(session: Session): void;
  sessionEnded(session: Session): void;
  /** Prints one line of the conversation (-v), or null. */
  readonly trace: ((line: string) => void) | null;
}

const CRLF = "\r\n";

export class Session {
  /** Reached a 220 banner. */
  established = false;
  /** Waiting for a message to become due (open model), connection open. */
  idle = false;
  /**
   * The session could do no work: the server refused EHLO and HELO, STARTTLS or AUTH (or did
   * not offer what the run requires).
   */
  private greetingRefused = false;
  /** A TLS handshake is under way (its own phase and timeout). */
  private handshaking = false;
  private tlsDone = false;
  private authDone = false;
  private tlsStartedAt = 0;
  private authSentAt = 0;
  /** Transactions this session started. */
  messagesStarted = 0;
  closed = false;

  private socket: net.Socket;
  private readonly parser: ReplyParser;
  private readonly pending: PendingReplies;
  private readonly txs: TransactionRing;
  private caps: Capabilities = NO_CAPABILITIES;
  private pipelined = false;
  /** BDAT mode: whole transactions pipelined, up to config.window in flight. */
  private chunked = false;
  private inFlight = 0;
  private needRset = false;
  private quitSent = false;
  private failure = false;
  private connecting = true;
  /** When the head expectation (or the connect) began: the phase timer's start. */
  private phaseSince: number;
  private connectedAt = 0;
  private ehloSentAt = 0;
  private quitSentAt = 0;
  private readonly openedAt: number;
  private waitTimer: NodeJS.Timeout | null = null;
  /**
   * When the last chunk of replies was read: one clock read per chunk, shared by the replies in
   * it (they arrived together), instead of one per reply.
   */
  private readAt = 0;
  private readonly preclaimedIntendedMs: number;

  /**
   * @param preclaimed per-message mode: the one message this connection carries, already
   *   taken (host.intendedMs is its due time); -1 in reuse mode, where the session takes work
   *   as it goes.
   */
  constructor(
    private readonly host: SessionHost,
    readonly id: number,
    private readonly preclaimed: number,
    /** Reuse mode: QUIT after this many messages; 0: no cap. */
    private readonly cap: number,
  ) {
    this.preclaimedIntendedMs = host.intendedMs;
    const { config, stats } = host;
    this.txs = new TransactionRing(
      stats,
      host.wire,
      config.chunking ? config.window + 2 : TX_SLOTS,
    );
    // Two envelopes and a QUIT can be in flight (with BDAT: a window of whole transactions);
    // 1000 is the most recipients a message takes.
    const recipients = Math.max(config.recipients, ...config.classes.map((c) => c.recipients ?? 0));
    const chunked = config.chunking ? config.window * (recipients + 3) : 0;
    this.pending = new PendingReplies(Math.max(2 * recipients + 16, chunked + 8));
    this.parser = new ReplyParser(this);
    this.parser.captureText = host.trace !== null;
    this.phaseSince = performance.now();
    this.openedAt = this.phaseSince;
    stats.counters.connectionsOpened++;
    stats.touch(performance.timeOrigin + this.phaseSince);
    // Many source addresses: sessions take them in turn, as a sender with several IPs would.
    const sources = config.sourceAddresses;
    const local = sources.length > 0 ? sources[id % sources.length] : undefined;
    this.socket = openTransport(config, this.onBytes, local);
    this.socket.on("connect", () => this.onConnect());
    if (config.tls === "implicit") this.socket.on("secureConnect", () => this.onSecure());
    this.socket.on("error", (err: NodeJS.ErrnoException) => this.onSocketError(err));
    this.socket.on("close", () => this.onClose());
  }

  private readonly onBytes = (chunk: Buffer): void => {
    this.readAt = performance.now();
    this.parser.push(chunk);
  };

  private onConnect(): void {
    const now = performance.now();
    this.host.stats.record("connect", now - this.phaseSince);
    this.connecting = false;
    this.connectedAt = now;
    this.phaseSince = now;
    if (this.host.config.tls === "implicit") {
      this.handshaking = true; // the banner comes after the handshake
      this.tlsStartedAt = now;
      return;
    }
    // RFC 2920 §3.1 / PROTOCOL.md: nothing is sent before the banner.
    this.pending.push(Expect.Banner, 0);
  }

  /** The TLS handshake finished: implicit TLS waits for the banner, STARTTLS says EHLO again. */
  private onSecure(): void {
    const now = performance.now();
    this.host.stats.record("tls", now - this.tlsStartedAt);
    this.handshaking = false;
    this.tlsDone = true;
    this.phaseSince = now;
    if (this.host.trace && this.id === 0) {
      const s = this.socket as tls.TLSSocket;
      this.host.trace(`= TLS ${s.getProtocol()} ${s.getCipher()?.name ?? ""}`);
    }
    if (this.host.config.tls === "implicit") {
      this.connectedAt = now;
      this.pending.push(Expect.Banner, 0);
      return;
    }
    // RFC 3207 §4.2: forget what EHLO said before the handshake and ask again.
    this.caps = NO_CAPABILITIES;
    this.greet(now);
  }

  private greet(now: number): void {
    this.parser.captureText = true;
    this.ehloSentAt = now;
    // RFC 2033 §4.1: LMTP greets with LHLO; its reply is read like EHLO's.
    const verb = this.host.config.lmtp ? "LHLO" : "EHLO";
    this.command(`${verb} ${this.host.config.helo}${CRLF}`, Expect.Ehlo, 0);
  }

  /** Called by the run's sweeper; a reached timeout is a counted outcome of its phase. */
  checkTimeout(now: number): void {
    if (this.closed) return;
    const { timeouts } = this.host.config;
    let phase: Phase;
    if (this.connecting) phase = "connect";
    else if (this.handshaking) phase = "tls";
    else if (this.pending.count > 0) phase = PHASE_OF[this.pending.headKind];
    else return;
    if (now - this.phaseSince <= timeouts[phase as keyof typeof timeouts]) return;
    this.abort("timeout", phase, `no reply within ${timeouts[phase as keyof typeof timeouts]} ms`);
  }

  /** Ends the session now; in-flight messages are settled as failed when the socket closes. */
  stop(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.socket.destroy();
  }

  // ReplyHandler ----------------------------------------------------------------------------

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
      recordReply(this.host.stats, code, lines, PHASE_OF[kind]);
      this.closeNow();
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
        if (code >= 400) recordReply(this.host.stats, code, lines, "rset");
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

  onProtocolError(reason: string): void {
    this.abort("protocol", this.currentPhase(), reason);
  }

  // Phases ----------------------------------------------------------------------------------

  private onBanner(code: number, lines: string[] | null): void {
    const now = this.phaseSince;
    this.host.stats.record("banner", now - this.connectedAt);
    if (code !== 220) {
      // 554 (or anything else) instead of 220: no service here (RFC 5321 §3.1).
      recordReply(this.host.stats, code, lines, "banner");
      this.closeNow();
      return;
    }
    this.established = true;
    this.host.stats.counters.connectionsEstablished++;
    this.greet(now);
  }

  private onGreeting(kind: Expect, code: number, lines: string[] | null): void {
    this.parser.captureText = this.host.trace !== null;
    if (code === 250) {
      this.host.stats.record("ehlo", this.phaseSince - this.ehloSentAt);
      this.caps = kind === Expect.Ehlo && lines ? parseCapabilities(lines) : NO_CAPABILITIES;
      this.pipelined = this.caps.pipelining && this.host.config.pipelining === "auto";
      this.chunked = this.pipelined && this.caps.chunking && this.host.config.chunking;
      this.secureOrStart();
      return;
    }
    if (kind === Expect.Ehlo && code >= 500 && !this.host.config.lmtp) {
      // RFC 5321 §4.1.4: a server that does not know EHLO still knows HELO.
      this.parser.captureText = true;
      this.command(`HELO ${this.host.config.helo}${CRLF}`, Expect.Helo, 0);
      return;
    }
    recordReply(this.host.stats, code, lines, PHASE_OF[kind]);
    this.greetingRefused = true;
    this.quit();
  }

  /** After EHLO: STARTTLS, then AUTH, when the run asks for them; then the transactions. */
  private secureOrStart(): void {
    const { config } = this.host;
    if (config.tls === "starttls" && !this.tlsDone) {
      if (this.caps.starttls) this.command(`STARTTLS${CRLF}`, Expect.StartTls, 0);
      else this.refuse("starttls", "STARTTLS not offered by the server");
      return;
    }
    if (config.auth && !this.authDone) {
      const mechanism = chooseMechanism(config, this.caps);
      if (!mechanism) {
        const offered = this.caps.auth.join(" ") || "none";
        this.refuse("auth", `no AUTH mechanism to use (offered: ${offered})`);
        return;
      }
      this.authSentAt = performance.now();
      if (mechanism === "PLAIN") {
        this.command(
          authPlainLine(config.auth.user, config.auth.pass),
          Expect.Auth,
          0,
          "AUTH PLAIN ****",
        );
      } else {
        this.command(`AUTH LOGIN${CRLF}`, Expect.AuthUser, 0);
      }
      return;
    }
    this.nextStep();
  }

  /** Replies to STARTTLS and to the AUTH exchange. */
  private onSecureStep(kind: Expect, code: number, lines: string[] | null): void {
    if (code >= 400) {
      recordReply(this.host.stats, code, lines, PHASE_OF[kind]);
      this.greetingRefused = true;
      this.quit();
      return;
    }
    const auth = this.host.config.auth!;
    switch (kind) {
      case Expect.StartTls:
        // RFC 3207 §5: nothing the server sent before the handshake may be acted on.
        this.parser.reset();
        this.handshaking = true;
        this.tlsStartedAt = this.phaseSince;
        this.socket = upgradeToTls(this.socket, this.host.config, this.onBytes);
        this.socket.on("secureConnect", () => this.onSecure());
        this.socket.on("error", (err: NodeJS.ErrnoException) => this.onSocketError(err));
        this.socket.on("close", () => this.onClose());
        return;
      case Expect.AuthUser:
        this.command(authLoginAnswer(auth.user), Expect.AuthPassword, 0, "****");
        return;
      case Expect.AuthPassword:
        this.command(authLoginAnswer(auth.pass), Expect.Auth, 0, "****");
        return;
      case Expect.Auth:
        this.host.stats.record("auth", this.phaseSince - this.authSentAt);
        this.authDone = true;
        this.nextStep();
    }
  }

  /** The server cannot give what the run requires: counted under `phase`, then QUIT. */
  private refuse(phase: Phase, text: string): void {
    this.host.stats.error("unsupported", "", phase, text);
    this.greetingRefused = true;
    this.quit();
  }

  /** The session ended with QUIT and no failure: it did what it was asked to do. */
  get endedCleanly(): boolean {
    return this.quitSent && !this.failure && !this.greetingRefused;
  }

  private onMail(tx: Transaction, code: number, lines: string[] | null): void {
    if (code < 300) {
      if (!this.pipelined) this.command(this.rcptLine(tx, 0), Expect.Rcpt, tx.slot);
      return;
    }
    this.txs.reject(tx, code, lines, "mail", this.phaseSince);
    this.needRset = true;
    if (!this.pipelined) this.afterMessage();
  }

  private onRcpt(tx: Transaction, code: number, lines: string[] | null): void {
    const counters = this.host.stats.counters;
    tx.rcptReplies++;
    if (code < 300) {
      tx.rcptOk++;
      counters.rcptAccepted++;
    } else {
      counters.rcptRejected++;
      if (tx.verdict === Verdict.Open) recordReply(this.host.stats, code, lines, "rcpt");
    }
    const last = tx.rcptReplies === tx.recipients;
    if (last && tx.rcptOk === 0 && tx.verdict === Verdict.Open) {
      this.txs.settle(tx, "rejected", this.phaseSince);
      this.needRset = true;
    }
    if (this.pipelined) return;
    if (!last) this.command(this.rcptLine(tx, tx.rcptReplies), Expect.Rcpt, tx.slot);
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
    else recordReply(this.host.stats, code, lines, "dot");
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
  private nextStep(): void {
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

  /** The next message for this session, NO_WORK when its share is done, or NOT_YET. */
  private claim(): number {
    if (this.host.config.mode === "per-message") {
      return this.messagesStarted === 0 ? this.preclaimed : NO_WORK;
    }
    if (this.cap > 0 && this.messagesStarted >= this.cap) return NO_WORK;
    return this.host.takeMessage(this);
  }

  private beginTransaction(seq: number): void {
    const tx = this.newTransaction(seq);
    const { wire } = this.host;
    if (!this.pipelined) {
      this.command(wire.envelopeLines(this.caps, seq, tx.cls, tx.size)[0], Expect.Mail, tx.slot);
      return;
    }
    const rset = this.needRset;
    this.needRset = false;
    this.write(wire.envelope(this.caps, seq, tx.cls, rset, tx.size));
    this.pushEnvelope(tx.slot, rset, tx.recipients);
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
    const tx = this.newTransaction(seq, now);
    this.inFlight++;
    const rset = this.needRset;
    this.needRset = false;
    tx.dataSentAt = now;
    const epochMs = performance.timeOrigin + now;
    this.write(this.host.wire.bdatTransaction(this.caps, seq, tx.cls, rset, epochMs, tx.content));
    tx.content = null;
    this.pushEnvelope(tx.slot, rset, tx.recipients, Expect.Bdat);
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
  private pushEnvelope(slot: number, rset: boolean, recipients: number, last = Expect.Data): void {
    if (rset) this.pending.push(Expect.Rset, 0);
    this.pending.push(Expect.Mail, slot);
    for (let i = 0; i < recipients; i++) this.pending.push(Expect.Rcpt, slot);
    this.pending.push(last, slot);
  }

  /**
   * Writes the message content and its final dot; with PIPELINING the next envelope (or QUIT)
   * travels in the same write (RFC 2920 §3.1: the content may start a group).
   */
  private sendMessage(tx: Transaction): void {
    const { wire, config } = this.host;
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
    const message = wire.message(tx.seq, tx.cls, epochMs, after, this.caps, tx.content);
    tx.content = null;
    for (let replies = this.dotRepliesOf(tx); replies > 0; replies--) {
      this.pending.push(Expect.Dot, tx.slot);
    }
    if (after === After.Envelope) {
      const nextTx = this.newTransaction(next, now);
      if (wire.simple) {
        this.write(message); // the next envelope is in the shared tail
      } else {
        this.socket.cork();
        this.write(message);
        this.write(wire.envelope(this.caps, next, nextTx.cls, false, nextTx.size));
        this.socket.uncork();
      }
      this.pushEnvelope(nextTx.slot, false, nextTx.recipients);
      return;
    }
    this.write(message);
    if (after === After.Quit) {
      this.quitSentAt = now;
      this.quitSent = true;
      this.pending.push(Expect.Quit, 0);
    }
  }

  private quit(): void {
    if (this.quitSent) return;
    this.quitSent = true;
    this.quitSentAt = performance.now();
    this.write(QUIT_COMMAND);
    this.pending.push(Expect.Quit, 0);
  }

  // Transactions ----------------------------------------------------------------------------

  /** `now`: performance.now() when the caller has just read it. */
  private newTransaction(seq: number, now = performance.now()): Transaction {
    const intended = this.preclaimed >= 0 ? this.preclaimedIntendedMs : this.host.intendedMs;
    this.messagesStarted++;
    return this.txs.start(seq, now, intended);
  }

  private rcptLine(tx: Transaction, index: number): string {
    return this.host.wire.envelopeLines(this.caps, tx.seq, tx.cls, tx.size)[1 + index];
  }

  // Transport -------------------------------------------------------------------------------

  /** Writes one command; `shown` replaces it in the -v trace (credentials). */
  private command(line: string, kind: Expect, slot: number, shown?: string): void {
    this.write(Buffer.from(line, "latin1"), shown);
    this.pending.push(kind, slot);
  }

  private write(buf: Buffer, shown?: string): void {
    if (this.host.trace && this.id === 0) {
      if (shown === undefined) traceWrite(this.host.trace, buf);
      else this.host.trace(`> ${shown}`);
    }
    this.socket.write(buf);
  }

  private currentPhase(): Phase {
    if (this.connecting) return "connect";
    if (this.handshaking) return "tls";
    if (this.pending.count > 0) return PHASE_OF[this.pending.headKind];
    return this.established ? "mail" : "banner";
  }

  /** Counts a failure without a reply (timeout, protocol error) and closes the connection. */
  private abort(reply: string, phase: Phase, text: string): void {
    if (this.failure || this.closed) return;
    this.failure = true;
    this.host.stats.error(reply, "", phase, text);
    this.socket.destroy();
  }

  private closeNow(): void {
    this.failure = true; // the reply that ended the session is already counted
    this.socket.destroy();
  }

  private onSocketError(err: NodeJS.ErrnoException): void {
    if (this.failure) return;
    this.failure = true;
    this.host.stats.error(transportFailure(err.code), "", this.currentPhase(), err.message);
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.waitTimer) clearTimeout(this.waitTimer);
    const orderly = this.quitSent && this.pending.count <= 1 && this.txs.openCount() === 0;
    if (!orderly && !this.failure) {
      this.host.stats.error("closed", "", this.currentPhase(), "connection closed by the server");
    }
    const now = performance.now();
    this.txs.failOpen(now);
    if (this.preclaimed >= 0 && this.messagesStarted === 0) {
      // Per-message mode: the connection failed before its message could start.
      this.host.stats.counters.attempted++;
      this.host.stats.counters.failed++;
    }
    if (!this.established) this.host.stats.counters.connectionsRefused++;
    else this.host.stats.record("session", now - this.openedAt);
    this.pending.clear();
    this.host.stats.touch(performance.timeOrigin + now);
    this.host.sessionEnded(this);
  }
}
