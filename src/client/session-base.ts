/**
 * What every session shares: the connection and its lifecycle (one `state`, see state.ts), the
 * pending-reply ring, the transaction ledger, timeouts, and how a session ends. The handshake
 * (banner, EHLO, STARTTLS, AUTH) is a collaborator, handshake.ts; the transactions are
 * session.ts.
 */
import type net from "node:net";
import type tls from "node:tls";
import { type Capabilities, NO_CAPABILITIES } from "../smtp/capabilities.js";
import type { Phase } from "../smtp/phases.js";
import { QUIT_COMMAND } from "../smtp/pipelining.js";
import { namesSessionLimit, ReplyParser } from "../smtp/reply-parser.js";
import { performance, TIME_ORIGIN } from "../stats/clock.js";
import type { RunStats } from "../stats/collector.js";
import type { Failure } from "../stats/errors.js";
import type { ErrorRow } from "../stats/result.js";
import { Handshake, type HandshakeHost } from "./handshake.js";
import type { MessageKind, SessionMessages, SessionOptions } from "./options.js";
import { Expect, PendingReplies, PHASE_OF } from "./pending.js";
import { openTransport, upgradeToTls } from "./secure.js";
import { Dialogue, State } from "./state.js";
import { traceWrite } from "./trace.js";
import { type Transaction, TransactionRing, TX_SLOTS } from "./transactions.js";
import { reconnect, socketErrorText, transportFailure } from "./transport.js";

/** takeMessage: the run has no more messages. */
export const NO_WORK = -1;
/** takeMessage: none is due now; the session idles until resumed. */
export const NOT_YET = -2;

/** What a session needs from the run that owns it. */
export interface SessionHost {
  readonly config: SessionOptions;
  readonly stats: RunStats;
  /** The messages of a session whose transaction ring has `slots` slots. */
  messagesFor(slots: number): SessionMessages;
  /** The class index of message `seq` (per-class counts of a message that never started). */
  classIndexOf(seq: number): number;
  /** The next message's sequence number, NO_WORK, or NOT_YET (the open model's lull). */
  takeMessage(session: SessionBase): number;
  /** Intended start (performance.now() time) of the message takeMessage returned last. */
  readonly intendedMs: number;
  /** The session has nothing in flight and no message is due; `resume()` wakes it. */
  sessionIdle(session: SessionBase): void;
  /** The socket closed, every message settled; `cleanly`: QUIT after its work, nothing failed. */
  sessionEnded(session: SessionBase, cleanly: boolean): void;
  /** Prints one line of the conversation (-v), or null. */
  readonly trace: ((line: string) => void) | null;
  /** Each state a session enters, when given (tests pin the transitions with it). */
  readonly stateEntered?: (session: SessionBase, state: State) => void;
}

const STOPPED_TEXT =
  "cut by this client: the run was stopped (second signal, --abort-on-fail or --grace over)";

export abstract class SessionBase implements HandshakeHost {
  /** Where the session is in its life. */
  state = State.Connecting;
  /** Transactions this session started. */
  messagesStarted = 0;

  protected socket: net.Socket;
  protected readonly parser: ReplyParser;
  protected readonly pending: PendingReplies;
  protected readonly txs: TransactionRing;
  protected readonly handshake: Handshake;
  protected caps: Capabilities = NO_CAPABILITIES;
  protected dialogue = Dialogue.LockStep;
  /** BDAT transactions written whose final reply has not come. */
  protected inFlight = 0;
  protected needRset = false;
  /** 4xx replies to MAIL in a row. */
  protected mailDeferrals = 0;
  /** When the head expectation (or the connect) began: the phase timer's start. */
  phaseSince = 0;
  protected quitSentAt = 0;
  protected openedAt = 0;
  protected waitTimer: NodeJS.Timeout | null = null;
  /** When the last chunk of replies was read: one clock read per chunk, for the replies in it. */
  protected readAt = 0;
  protected preclaimedIntendedMs = 0;
  /** This connection's ordinal in the run (from 1), for where an error first came. */
  connection = 0;
  /** The row of the failure that ended the session: its lost messages are counted there. */
  protected endingRow: ErrorRow | null = null;
  /** Connections this session object has opened (see listen). */
  private generation = 0;
  /** The closed socket may carry the session's next connection (closeAnswered). */
  protected socketReusable = false;

  /**
   * Opens the session's first connection; `reopen` opens each later one.
   * @param id the session's number in its thread (from 0): the -v trace follows session 0.
   * @param preclaimed per-message mode: the one message this connection carries, already taken
   *   (host.intendedMs is its due time); -1 in reuse mode, where the session takes work as it goes.
   * @param cap reuse mode: QUIT after this many messages; 0: no cap. Lowered to the messages
   *   started when the server names a per-session limit (onMailRefused).
   */
  constructor(
    protected readonly host: SessionHost,
    public id: number,
    protected preclaimed: number,
    protected cap: number,
  ) {
    const { config, stats } = host;
    this.txs = new TransactionRing(stats, config.chunking ? config.window + 2 : TX_SLOTS);
    // Two envelopes and a QUIT can be in flight (with BDAT: a window of whole transactions);
    // 1000 is the most recipients a message takes.
    const recipients = Math.max(config.recipients, ...config.classes.map((c) => c.recipients ?? 0));
    const chunked = config.chunking ? config.window * (recipients + 3) : 0;
    this.pending = new PendingReplies(Math.max(2 * recipients + 16, chunked + 8));
    this.parser = new ReplyParser(this);
    this.handshake = new Handshake(this, config, stats);
    this.socket = this.connect();
  }

  /**
   * The next connection of a closed session, as a new session `id` would open it, keeping the
   * rings, parser, handshake and messages: connection-per-message mode builds none per message.
   */
  reopen(id: number, preclaimed: number, cap: number): void {
    if (this.state !== State.Closed) throw new Error("reopen: the connection is still open");
    this.state = State.Connecting;
    this.id = id;
    this.preclaimed = preclaimed;
    this.cap = cap;
    this.messagesStarted = 0;
    this.caps = NO_CAPABILITIES;
    this.dialogue = Dialogue.LockStep;
    this.inFlight = 0;
    this.needRset = false;
    this.mailDeferrals = 0;
    this.waitTimer = null;
    this.endingRow = null;
    this.pending.clear();
    this.parser.clear();
    this.handshake.clear();
    this.socket = this.connect();
  }

  /** Counts a new connection of the run and opens it, the phase timer started. */
  private connect(): net.Socket {
    const { config, stats } = this.host;
    this.phaseSince = performance.now();
    this.parser.captureText = this.host.trace !== null || stats.ledger !== null; // --receive reads queue ids
    this.preclaimedIntendedMs = this.host.intendedMs;
    this.connection = stats.connectionOpened();
    this.txs.connection = this.connection;
    this.openedAt = this.phaseSince;
    stats.touch(TIME_ORIGIN + this.phaseSince);
    // Many source addresses: sessions take them in turn, as a sender with several IPs would.
    const sources = config.sourceAddresses;
    const local = sources.length > 0 ? sources[this.id % sources.length] : undefined;
    if (this.socketReusable) {
      this.socketReusable = false; // its listeners stay, current: the same generation's socket
      return reconnect(this.socket, config.target!, local);
    }
    const socket = openTransport(config, this.onBytes, local, this.handshake.tickets);
    this.generation++;
    this.listen(socket, true, config.tls === "implicit");
    return socket;
  }

  protected readonly onBytes = (buf: Buffer, length: number): void => {
    this.readAt = performance.now();
    // BDAT: each final reply refills the window; corked, a chunk's refills leave in one write.
    const socket = this.dialogue === Dialogue.Chunked ? this.socket : null;
    socket?.cork();
    this.parser.push(buf, length);
    socket?.uncork();
  };

  /** Events of this connection's sockets only: with STARTTLS the plain and the TLS socket both
   * report the close, and the second must not reach a connection the first reopened. */
  private listen(socket: net.Socket, connect: boolean, secure: boolean): void {
    const generation = this.generation;
    const current = () => generation === this.generation;
    if (connect) socket.on("connect", () => current() && this.onConnect());
    if (secure) socket.on("secureConnect", () => current() && this.onSecure());
    socket.on("error", (err: NodeJS.ErrnoException) => current() && this.onSocketError(err));
    socket.on("close", () => current() && this.onClose());
  }

  /** The phase a reply, failure or timeout now is counted under, from the state. */
  phase(): Phase {
    switch (this.state) {
      case State.Connecting:
        return "connect";
      case State.Tls:
        return "tls";
    }
    if (this.pending.count > 0) return PHASE_OF[this.pending.headKind];
    // QUIT answered: whatever comes now comes after it.
    if (this.state === State.Quitting || this.state === State.Refusing) return "quit";
    return this.handshake.established ? "mail" : "banner";
  }

  /** Called by the run's sweeper; a reached timeout is a counted outcome of its phase. */
  checkTimeout(now: number): void {
    const { state } = this;
    if (state >= State.Failed) return;
    const waiting = state === State.Connecting || state === State.Tls || this.pending.count > 0;
    if (!waiting) return;
    const phase = this.phase();
    const { timeouts } = this.host.config;
    if (now - this.phaseSince <= timeouts[phase]) return;
    this.abort("timeout", phase, `no reply within ${timeouts[phase]} ms`);
  }

  /**
   * Ends the session now; in-flight messages fail as the socket closes. Unless it was done anyway
   * (QUIT sent, nothing else in flight), the cut is this client's (second signal, --abort-on-fail,
   * --grace over): its error row says `stopped`; cut before the banner, it is no server refusal.
   */
  stop(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
    if (this.state < State.Failed && !this.orderly()) {
      this.endingRow = this.countFailure("stopped", this.phase(), STOPPED_TEXT);
      this.enter(State.Stopped);
    }
    this.socket.destroy();
  }

  /** QUIT sent, and nothing but its reply in flight. */
  private orderly(): boolean {
    const quitSent = this.state === State.Quitting || this.state === State.Refusing;
    return quitSent && this.pending.count <= 1 && this.txs.openCount() === 0;
  }

  onProtocolError(reason: string): void {
    this.abort("protocol", this.phase(), reason);
  }

  enter(state: State): void {
    this.state = state;
    this.host.stateEntered?.(this, state);
  }

  get encrypted(): boolean {
    return (this.socket as tls.TLSSocket).encrypted === true;
  }

  /** The next message for this session, NO_WORK when its share is done, or NOT_YET. */
  protected claim(): number {
    if (this.host.config.mode === "per-message") {
      return this.messagesStarted === 0 ? this.preclaimed : NO_WORK;
    }
    if (this.cap > 0 && this.messagesStarted >= this.cap) return NO_WORK;
    return this.host.takeMessage(this);
  }

  /**
   * Reuse mode: a 4xx to MAIL that names a per-session limit (OpenSMTPD's `452 4.5.3 Too many
   * messages sent` after 100 messages, kept for every later MAIL of the session), or
   * --reconnect-after-deferrals of them in a row, ends the session after what is in flight, so
   * that a new connection takes over the remaining work; counted once per session.
   */
  protected onMailRefused(code: number, lines: string[] | null): void {
    if (code < 400 || code >= 500) {
      this.mailDeferrals = 0;
      return;
    }
    this.mailDeferrals++;
    const { mode, reconnectAfterDeferrals } = this.host.config;
    if (mode !== "reuse" || (this.cap > 0 && this.messagesStarted >= this.cap)) return;
    const inARow = reconnectAfterDeferrals > 0 && this.mailDeferrals >= reconnectAfterDeferrals;
    if (!inARow && !namesSessionLimit(lines)) return;
    this.cap = this.messagesStarted;
    this.host.stats.reconnectWanted();
  }

  /** `now`: performance.now() when the caller has just read it. */
  protected newTransaction(seq: number, kind: MessageKind, now: number): Transaction {
    const intended = this.preclaimed >= 0 ? this.preclaimedIntendedMs : this.host.intendedMs;
    this.messagesStarted++;
    return this.txs.start(seq, kind, now, intended);
  }

  /** Writes one command; `shown` replaces it in the -v trace (credentials). */
  command(line: string | Buffer, kind: Expect, slot: number, shown?: string): void {
    this.write(typeof line === "string" ? Buffer.from(line, "latin1") : line, shown);
    this.pending.push(kind, slot);
  }

  expect(kind: Expect): void {
    this.pending.push(kind, 0);
  }

  captureText(on: boolean): void {
    this.parser.captureText = on || this.host.trace !== null || this.host.stats.ledger !== null;
  }

  protected write(buf: Buffer, shown?: string): void {
    if (this.host.trace && this.id === 0) {
      if (shown === undefined) traceWrite(this.host.trace, buf);
      else this.host.trace(`> ${shown}`);
    }
    this.socket.write(buf);
  }

  quit(as = State.Quitting): void {
    if (this.state >= State.Quitting) return;
    this.enter(as);
    this.quitSentAt = performance.now();
    this.write(QUIT_COMMAND);
    this.pending.push(Expect.Quit, 0);
  }

  startTls(): void {
    // RFC 3207 §5: nothing the server sent before the handshake may be acted on.
    this.parser.reset();
    this.socket = upgradeToTls(this.socket, this.host.config, this.onBytes, this.handshake.tickets);
    this.listen(this.socket, false, true);
  }

  /** Counts a failure without a reply (timeout, protocol error) and closes the connection. */
  protected abort(failure: Failure, phase: Phase, text: string): void {
    if (this.state >= State.Failed) return;
    if (failure === "protocol") this.txs.dropHeld(); // a mismatch: the held 2xx may not be its
    this.enter(State.Failed);
    this.endingRow = this.countFailure(failure, phase, text);
    this.socket.destroy();
  }

  /** Ends the session on a reply that is already counted, in `row` (a 421, a refused banner). */
  closeNow(row: ErrorRow): void {
    this.enter(State.Failed);
    this.endingRow = row;
    this.socket.destroy();
  }

  /** A failure of this session in the error table, hitting its oldest open message. */
  private countFailure(failure: Failure, phase: Phase, text: string): ErrorRow {
    // A close, reset, timeout or stop contradicts no order: a held 2xx stands (see hold()).
    this.txs.confirmHeld();
    const message = this.txs.oldestOpen();
    return this.host.stats.failure(failure, phase, text, 1, this.connection, message);
  }

  protected onSocketError(err: NodeJS.ErrnoException): void {
    if (this.state >= State.Failed) return;
    const phase = this.phase();
    this.enter(State.Failed);
    this.endingRow = this.countFailure(transportFailure(err.code), phase, socketErrorText(err));
  }

  /** The socket connected (TCP, or TCP before an implicit-TLS handshake). */
  private onConnect(): void {
    const now = performance.now();
    this.host.stats.record("connect", now - this.phaseSince);
    this.phaseSince = now;
    this.handshake.connected(now);
  }

  /** A TLS handshake finished. */
  private onSecure(): void {
    const now = performance.now();
    this.phaseSince = now;
    if (this.host.trace && this.id === 0) {
      const s = this.socket as tls.TLSSocket;
      this.host.trace(`= TLS ${s.getProtocol()} ${s.getCipher()?.name ?? ""}`);
    }
    this.handshake.secured(now, this.socket as tls.TLSSocket);
  }

  private onClose(): void {
    if (this.state === State.Closed) return;
    if (this.waitTimer) clearTimeout(this.waitTimer);
    const { stats } = this.host;
    if (!this.orderly() && this.state < State.Failed) {
      const text = "connection closed by the server";
      this.endingRow = this.countFailure("closed", this.phase(), text);
    }
    const cleanly = this.state === State.Quitting && this.endingRow === null;
    const now = performance.now();
    let lost = this.txs.failOpen(now);
    if (this.preclaimed >= 0 && this.messagesStarted === 0) {
      // Per-message mode: the connection failed before its message could start.
      stats.messagesFailedToStart(this.host.classIndexOf(this.preclaimed));
      lost++;
    }
    // The ending failure's row counts one lost message; those pipelined behind it get theirs.
    if (this.endingRow && lost > 1) stats.lostWithSession(this.endingRow, lost - 1);
    stats.connectionClosed();
    // A session the client cut before the banner was not refused by anyone.
    const stopped = this.state === State.Stopped;
    if (!this.handshake.established && !stopped) stats.connectionRefused();
    else stats.record("session", now - this.openedAt);
    this.pending.clear();
    this.enter(State.Closed);
    stats.touch(TIME_ORIGIN + now);
    this.host.sessionEnded(this, cleanly);
  }

  /** The handshake is done: transactions may start. */
  abstract ready(caps: Capabilities, dialogue: Dialogue): void;

  /** One complete reply (the reply parser's handler). */
  abstract onReply(code: number, lines: string[] | null): void;
}
