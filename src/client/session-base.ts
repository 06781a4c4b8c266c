/**
 * What every session shares: the connection and its lifecycle, the pending-reply ring, the
 * transaction ledger, timeouts, and how a session ends. The SMTP dialogue is layered on top:
 * handshake.ts (banner, EHLO, STARTTLS, AUTH), then session.ts (transactions).
 */
import type net from "node:net";
import type { RunConfig } from "../config/run-config.js";
import { type MessageClass, type MessageWire, QUIT_COMMAND } from "../messages/wire.js";
import { type Capabilities, NO_CAPABILITIES } from "../smtp/capabilities.js";
import { ReplyParser } from "../smtp/reply-parser.js";
import type { RunStats } from "../stats/collector.js";
import type { Failure } from "../stats/errors.js";
import type { ErrorRow, Phase } from "../stats/result.js";
import { Expect, PendingReplies, PHASE_OF } from "./pending.js";
import { openTransport } from "./secure.js";
import { traceWrite } from "./trace.js";
import { type Transaction, TransactionRing, TX_SLOTS } from "./transactions.js";
import { socketErrorText, transportFailure } from "./transport.js";

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
  takeMessage(session: SessionBase): number;
  /** Intended start (performance.now() time) of the message takeMessage returned last. */
  readonly intendedMs: number;
  /** The session has nothing in flight and no message is due; `resume()` wakes it. */
  sessionIdle(session: SessionBase): void;
  sessionEnded(session: SessionBase): void;
  /** Prints one line of the conversation (-v), or null. */
  readonly trace: ((line: string) => void) | null;
}

export abstract class SessionBase {
  /** Reached a 220 banner. */
  established = false;
  /** Waiting for a message to become due (open model), connection open. */
  idle = false;
  /**
   * The session could do no work: the server refused EHLO and HELO, STARTTLS or AUTH (or did
   * not offer what the run requires).
   */
  protected greetingRefused = false;
  /** A TLS handshake is under way (its own phase and timeout). */
  protected handshaking = false;
  protected tlsDone = false;
  protected authDone = false;
  protected tlsStartedAt = 0;
  protected authSentAt = 0;
  /** Transactions this session started. */
  messagesStarted = 0;
  closed = false;

  protected socket: net.Socket;
  protected readonly parser: ReplyParser;
  protected readonly pending: PendingReplies;
  protected readonly txs: TransactionRing;
  protected caps: Capabilities = NO_CAPABILITIES;
  protected pipelined = false;
  /** BDAT mode: whole transactions pipelined, up to config.window in flight. */
  protected chunked = false;
  protected inFlight = 0;
  protected needRset = false;
  protected quitSent = false;
  protected failure = false;
  protected connecting = true;
  /** When the head expectation (or the connect) began: the phase timer's start. */
  protected phaseSince: number;
  protected connectedAt = 0;
  protected ehloSentAt = 0;
  protected quitSentAt = 0;
  protected readonly openedAt: number;
  protected waitTimer: NodeJS.Timeout | null = null;
  /**
   * When the last chunk of replies was read: one clock read per chunk, shared by the replies in
   * it (they arrived together), instead of one per reply.
   */
  protected readAt = 0;
  protected readonly preclaimedIntendedMs: number;
  /** This connection's ordinal in the run (from 1), for where an error first came. */
  readonly connection: number;
  /** The row of the failure that ended the session: its lost messages are counted there. */
  protected endingRow: ErrorRow | null = null;

  /**
   * @param preclaimed per-message mode: the one message this connection carries, already
   *   taken (host.intendedMs is its due time); -1 in reuse mode, where the session takes work
   *   as it goes.
   */
  constructor(
    protected readonly host: SessionHost,
    readonly id: number,
    protected readonly preclaimed: number,
    /** Reuse mode: QUIT after this many messages; 0: no cap. */
    protected readonly cap: number,
  ) {
    this.preclaimedIntendedMs = host.intendedMs;
    const { config, stats } = host;
    this.connection = stats.connectionOpened();
    this.txs = new TransactionRing(
      stats,
      this.connection,
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

  protected readonly onBytes = (chunk: Buffer): void => {
    this.readAt = performance.now();
    this.parser.push(chunk);
  };

  /** Called by the run's sweeper; a reached timeout is a counted outcome of its phase. */
  checkTimeout(now: number): void {
    if (this.closed) return;
    const { timeouts } = this.host.config;
    let phase: Phase;
    if (this.connecting) phase = "connect";
    else if (this.handshaking) phase = "tls";
    else if (this.pending.count > 0) phase = PHASE_OF[this.pending.headKind];
    else return;
    if (now - this.phaseSince <= timeouts[phase]) return;
    this.abort("timeout", phase, `no reply within ${timeouts[phase]} ms`);
  }

  /** Ends the session now; in-flight messages are settled as failed when the socket closes. */
  stop(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.socket.destroy();
  }

  onProtocolError(reason: string): void {
    this.abort("protocol", this.currentPhase(), reason);
  }

  /** The session ended with QUIT and no failure: it did what it was asked to do. */
  get endedCleanly(): boolean {
    return this.quitSent && !this.failure && !this.greetingRefused;
  }

  /** The next message for this session, NO_WORK when its share is done, or NOT_YET. */
  protected claim(): number {
    if (this.host.config.mode === "per-message") {
      return this.messagesStarted === 0 ? this.preclaimed : NO_WORK;
    }
    if (this.cap > 0 && this.messagesStarted >= this.cap) return NO_WORK;
    return this.host.takeMessage(this);
  }

  /** `now`: performance.now() when the caller has just read it. */
  protected newTransaction(seq: number, kind: MessageClass, now: number): Transaction {
    const intended = this.preclaimed >= 0 ? this.preclaimedIntendedMs : this.host.intendedMs;
    this.messagesStarted++;
    return this.txs.start(seq, kind, now, intended);
  }

  /** Writes one command; `shown` replaces it in the -v trace (credentials). */
  protected command(line: string, kind: Expect, slot: number, shown?: string): void {
    this.write(Buffer.from(line, "latin1"), shown);
    this.pending.push(kind, slot);
  }

  protected write(buf: Buffer, shown?: string): void {
    if (this.host.trace && this.id === 0) {
      if (shown === undefined) traceWrite(this.host.trace, buf);
      else this.host.trace(`> ${shown}`);
    }
    this.socket.write(buf);
  }

  protected quit(): void {
    if (this.quitSent) return;
    this.quitSent = true;
    this.quitSentAt = performance.now();
    this.write(QUIT_COMMAND);
    this.pending.push(Expect.Quit, 0);
  }

  protected currentPhase(): Phase {
    if (this.connecting) return "connect";
    if (this.handshaking) return "tls";
    if (this.pending.count > 0) return PHASE_OF[this.pending.headKind];
    return this.established ? "mail" : "banner";
  }

  /** Counts a failure without a reply (timeout, protocol error) and closes the connection. */
  protected abort(failure: Failure, phase: Phase, text: string): void {
    if (this.failure || this.closed) return;
    this.failure = true;
    this.endingRow = this.countFailure(failure, phase, text);
    this.socket.destroy();
  }

  /** Ends the session on a reply that is already counted, in `row` (a 421, a refused banner). */
  protected closeNow(row: ErrorRow): void {
    this.failure = true;
    this.endingRow = row;
    this.socket.destroy();
  }

  /** A failure of this session in the error table, hitting its oldest open message. */
  private countFailure(failure: Failure, phase: Phase, text: string): ErrorRow {
    const message = this.txs.oldestOpen();
    return this.host.stats.failure(failure, phase, text, 1, this.connection, message);
  }

  protected onSocketError(err: NodeJS.ErrnoException): void {
    if (this.failure) return;
    this.failure = true;
    this.endingRow = this.countFailure(
      transportFailure(err.code),
      this.currentPhase(),
      socketErrorText(err),
    );
  }

  protected onClose(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.waitTimer) clearTimeout(this.waitTimer);
    const { stats } = this.host;
    const orderly = this.quitSent && this.pending.count <= 1 && this.txs.openCount() === 0;
    if (!orderly && !this.failure) {
      const text = "connection closed by the server";
      this.endingRow = this.countFailure("closed", this.currentPhase(), text);
    }
    const now = performance.now();
    let lost = this.txs.failOpen(now);
    if (this.preclaimed >= 0 && this.messagesStarted === 0) {
      // Per-message mode: the connection failed before its message could start.
      stats.messagesFailedToStart(this.host.wire.classOf(this.preclaimed).index);
      lost++;
    }
    // The ending failure's row counts one lost message; those pipelined behind it get theirs.
    if (this.endingRow && lost > 1) stats.lostWithSession(this.endingRow, lost - 1);
    stats.connectionClosed();
    if (!this.established) stats.connectionRefused();
    else stats.record("session", now - this.openedAt);
    this.pending.clear();
    stats.touch(performance.timeOrigin + now);
    this.host.sessionEnded(this);
  }

  /** The socket connected (TCP, or TCP before an implicit-TLS handshake). */
  protected abstract onConnect(): void;

  /** A TLS handshake finished. */
  protected abstract onSecure(): void;

  /** One complete reply (the reply parser's handler). */
  abstract onReply(code: number, lines: string[] | null): void;
}
