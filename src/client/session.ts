/**
 * One SMTP session: its connections, one after another, and what happens on each. The session
 * owns the life of a connection (one `state`, see state.ts), the reply parser, the timeouts, and
 * how a connection ends. The protocol's parts are collaborators it holds, each talking back
 * through a narrow interface and writing only its own fields:
 *
 *   wire        wire.ts        the transport (connection.ts: the socket, plain or TLS, its events
 *                              through ConnectionHost) and the ring of replies owed on it
 *   handshake   handshake.ts   banner, EHLO, STARTTLS, AUTH (the wire, and HandshakeHost)
 *   pipeline    pipeline.ts    the transactions: envelopes, content, BDAT, RSET (the wire, and
 *                              PipelineHost)
 *
 * Every message a session takes is settled once: accepted, rejected, failed or unconfirmed.
 */
import type tls from "node:tls";
import type { ErrorRow } from "../result/result.js";
import type { Capabilities } from "../smtp/capabilities.js";
import type { Phase } from "../smtp/phases.js";
import { QUIT_COMMAND } from "../smtp/pipelining.js";
import { ReplyParser } from "../smtp/reply-parser.js";
import { NO_TIME, performance, TIME_ORIGIN } from "../stats/clock.js";
import type { RunStats } from "../stats/collector.js";
import type { Failure } from "../stats/errors.js";
import type { ConnectionHost } from "./connection.js";
import { Handshake, type HandshakeHost } from "./handshake.js";
import { type Dialogue, State } from "./lifecycle.js";
import { Expect, keepsTextOf, PHASE_OF, replyMismatch } from "./pending.js";
import { Pipeline, type PipelineHost } from "./pipeline.js";
import type { SessionMessages, SessionOptions } from "./run-interfaces.js";
import { traceReply } from "./trace.js";
import { recordReply, recordRsetStatus, TransactionRing, TX_SLOTS } from "./transactions.js";
import { socketErrorText, transportFailure } from "./transport.js";
import { unnamed } from "./unnamed.js";
import { Wire } from "./wire.js";

export { State } from "./lifecycle.js";
export { NO_WORK, NOT_YET } from "./quota.js";

/** What a session needs from the run that owns it. */
export interface SessionHost {
  readonly config: SessionOptions;
  readonly stats: RunStats;
  /** The messages of a session whose transaction ring has `slots` slots. */
  messagesFor(slots: number): SessionMessages;
  /** The class index of message `seq` (per-class counts of a message that never started). */
  classIndexOf(seq: number): number;
  /** The next message's sequence number, NO_WORK, or NOT_YET (the open model's lull). */
  takeMessage(session: Session): number;
  /** Intended start (performance.now() time) of the message takeMessage returned last. */
  readonly intendedMs: number;
  /** The session has nothing in flight and no message is due; `resume()` wakes it. */
  sessionIdle(session: Session): void;
  /** The socket closed, every message settled; `cleanly`: QUIT after its work, nothing failed. */
  sessionEnded(session: Session, cleanly: boolean): void;
  /** Prints one line of the conversation (-v), or null. */
  readonly trace: ((line: string) => void) | null;
  /** Each state a session enters, when given (tests pin the transitions with it). */
  readonly stateEntered?: (session: Session, state: State) => void;
}

const STOPPED_TEXT =
  "cut by this client: the run was stopped (second signal, --abort-on-fail or --grace over)";

export class Session implements ConnectionHost, HandshakeHost, PipelineHost {
  /** Where the session is in its life. */
  state = State.Connecting;
  /** When the head expectation (or the connect) began: the phase timer's start. */
  phaseSince = NO_TIME;
  /** This connection's ordinal in the run (from 1), for where an error first came. */
  connection = 0;

  private readonly parser: ReplyParser;
  private readonly txs: TransactionRing;
  private readonly wire: Wire;
  private readonly handshake: Handshake;
  private readonly pipeline: Pipeline;
  private quitSentAt = NO_TIME;
  private openedAt = NO_TIME;
  /** When the last chunk of replies was read: one clock read per chunk, for the replies in it. */
  private readAt = NO_TIME;
  /**
   * 1 for each expectation whose positive reply's text is read, indexed by Expect: EHLO's (the
   * capabilities) and, through a gateway (--receive), a message's final reply (the queue id it
   * names). No other positive reply is decoded; error replies always are (ReplyParser).
   */
  private readonly keepsText: Uint8Array;
  /** The row of the failure that ended the session: its lost messages are counted there. */
  private endingRow: ErrorRow | null = null;
  /** parser.chunks when a 354 sent the content: a dot reply read in it predates the content. */
  private contentChunk = -1;

  /**
   * Opens the session's first connection; `reopen` opens each later one.
   * @param id the session's number in its thread (from 0): the -v trace follows session 0.
   * @param preclaimed per-message mode: the one message this connection carries, already taken
   *   (host.intendedMs is its due time); -1 in reuse mode, where the session takes work as it goes.
   * @param cap reuse mode: QUIT after this many messages; 0: no cap. Lowered to the messages
   *   started when the server names a per-session limit.
   */
  constructor(
    private readonly host: SessionHost,
    public id: number,
    preclaimed: number,
    cap: number,
    /**
     * The host's number for where this session runs (its slot, kept when reopened): read back
     * when the session calls, instead of a lookup.
     */
    readonly place = 0,
  ) {
    const { config, stats } = host;
    this.txs = new TransactionRing(stats, config.chunking ? config.window + 2 : TX_SLOTS);
    this.keepsText = keepsTextOf(stats.ledger !== null);
    this.parser = new ReplyParser(this);
    // -v prints every reply whole.
    this.parser.keepText(host.trace !== null);
    this.wire = new Wire(this, config, this.onBytes);
    this.handshake = new Handshake(this, this.wire, config, stats);
    const messages = host.messagesFor(this.txs.slots.length);
    this.pipeline = new Pipeline(this, this.wire, config, stats, this.txs, messages);
    this.connect(preclaimed, cap);
  }

  /**
   * The next connection of a closed session, as a new session `id` would open it, keeping the
   * rings, parser, handshake and messages: connection-per-message mode builds none per message.
   */
  reopen(id: number, preclaimed: number, cap: number): void {
    if (this.state !== State.Closed) throw new Error("reopen: the connection is still open");
    this.state = State.Connecting;
    this.id = id;
    this.endingRow = null;
    this.parser.clear();
    this.handshake.clear();
    this.connect(preclaimed, cap);
  }

  /** Counts a new connection of the run and opens it, the phase timer started. */
  private connect(preclaimed: number, cap: number): void {
    const { config, stats } = this.host;
    this.phaseSince = performance.now();
    this.pipeline.begin(preclaimed, cap, this.host.intendedMs);
    this.connection = stats.connectionOpened();
    this.txs.connectionOpened(this.connection);
    this.openedAt = this.phaseSince;
    stats.touch(TIME_ORIGIN + this.phaseSince);
    // Many source addresses: sessions take them in turn, as a sender with several IPs would.
    const sources = config.sourceAddresses;
    const local = sources.length > 0 ? sources[this.id % sources.length] : undefined;
    this.wire.open(local, this.id === 0 ? this.host.trace : null);
  }

  /** Transactions this connection started. */
  get messagesStarted(): number {
    return this.pipeline.messagesStarted;
  }

  get connectTimedOut(): boolean {
    return this.endingRow?.reply === "timeout" && this.endingRow.phase === "connect";
  }

  private readonly onBytes = unnamed((buf: Buffer, length: number): void => {
    this.readAt = performance.now();
    // BDAT: each final reply refills the window; corked, a chunk's refills leave in one write.
    if (!this.pipeline.chunked) {
      this.parser.push(buf, length);
      return;
    }
    this.wire.cork();
    this.parser.push(buf, length);
    this.wire.uncork();
  });

  /** The phase a reply, failure or timeout now is counted under, from the state. */
  phase(): Phase {
    if (this.state === State.Connecting) return "connect";
    if (this.state === State.Tls) return "tls";
    if (this.wire.owed > 0) return PHASE_OF[this.wire.nextKind];
    // QUIT answered: whatever comes now comes after it.
    if (this.state === State.Quitting || this.state === State.Refusing) return "quit";
    return this.handshake.established ? "mail" : "banner";
  }

  /** Called by the run's sweeper; a reached timeout is a counted outcome of its phase. */
  checkTimeout(now: number): void {
    const { state } = this;
    if (state >= State.Failed) return;
    const waiting = state === State.Connecting || state === State.Tls || this.wire.owed > 0;
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
    this.pipeline.cancelWait();
    if (this.state < State.Failed && !this.orderly()) {
      this.endingRow = this.countFailure("stopped", this.phase(), STOPPED_TEXT);
      this.enter(State.Stopped);
    }
    this.wire.destroy();
  }

  /** Wakes an idle session: a message is due, or the run is draining (then it QUITs). */
  resume(): void {
    this.pipeline.resume();
  }

  /** QUIT sent, and nothing but its reply in flight. */
  private orderly(): boolean {
    const quitSent = this.state === State.Quitting || this.state === State.Refusing;
    return quitSent && this.wire.owed <= 1 && this.txs.openCount() === 0;
  }

  onProtocolError(reason: string): void {
    this.abort("protocol", this.phase(), reason);
  }

  enter(state: State): void {
    this.state = state;
    this.host.stateEntered?.(this, state);
  }

  get intendedMs(): number {
    return this.host.intendedMs;
  }

  takeMessage(): number {
    return this.host.takeMessage(this);
  }

  idle(): void {
    this.enter(State.Idle);
    this.host.sessionIdle(this);
  }

  /** Whether the positive reply being read is one whose text is read (see keepsText). */
  wantsText(): boolean {
    return this.wire.owed > 0 && this.keepsText[this.wire.nextKind] === 1;
  }

  /** Sends QUIT, or notes that it went with the last content (`writtenAt`, ms), and moves to `as`. */
  quit(as = State.Quitting, writtenAt = -1): void {
    if (this.state >= State.Quitting) return;
    this.enter(as);
    this.quitSentAt = writtenAt >= 0 ? writtenAt : performance.now();
    if (writtenAt < 0) this.wire.send(QUIT_COMMAND, Expect.Quit, 0);
    else this.wire.expect(Expect.Quit); // it went in the last content's write
  }

  startTls(): void {
    // RFC 3207 §5: nothing the server sent before the handshake may be acted on.
    this.parser.reset();
    this.wire.startTls();
  }

  /** The handshake is done: transactions may start. */
  ready(caps: Capabilities, dialogue: Dialogue): void {
    this.pipeline.ready(caps, dialogue);
  }

  /** One complete reply (the reply parser's handler). */
  onReply(code: number, lines: string[] | null): void {
    if (this.state >= State.Failed) return; // the outcome is counted; later bytes are moot
    if (this.host.trace && this.id === 0) traceReply(this.host.trace, code, lines);
    if (this.wire.owed === 0) {
      this.onProtocolError(`unexpected reply ${code} with no command in flight`);
      return;
    }
    const kind = this.wire.nextKind;
    const slot = this.wire.nextSlot;
    this.wire.answered();
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
    if (kind === Expect.Data && code === 354) this.contentChunk = this.parser.chunks;
    if (code === 421) {
      // RFC 5321 §3.8: the server is closing the channel; whatever is in flight is lost.
      const message = this.txs.oldestOpen();
      const { stats } = this.host;
      this.closeNow(recordReply(stats, code, lines, PHASE_OF[kind], this.connection, message));
      return;
    }
    if (kind === Expect.Rset) recordRsetStatus(this.host.stats, code, this.parser);
    this.dispatch(kind, slot, code, lines);
  }

  /** Hands a reply to the part that awaits it: the pipeline, QUIT, or the handshake. */
  private dispatch(kind: Expect, slot: number, code: number, lines: string[] | null): void {
    switch (kind) {
      case Expect.Mail:
      case Expect.Rcpt:
      case Expect.Data:
      case Expect.Dot:
      case Expect.Rset:
      case Expect.Bdat:
        this.pipeline.onReply(kind, slot, code, lines);
        return;
      case Expect.Quit:
        this.host.stats.record("quit", this.phaseSince - this.quitSentAt);
        // Closing now rather than waiting for the server's FIN frees the slot for its next
        // connection one event sooner.
        this.wire.closeAnswered();
        return;
      default:
        this.handshake.onReply(kind, code, lines);
    }
  }

  /** Counts a failure without a reply (timeout, protocol error) and closes the connection. */
  private abort(failure: Failure, phase: Phase, text: string): void {
    if (this.state >= State.Failed) return;
    if (failure === "protocol") this.txs.dropHeld(); // a mismatch: the held 2xx may not be its
    this.enter(State.Failed);
    this.endingRow = this.countFailure(failure, phase, text);
    this.wire.destroy();
  }

  /** Ends the session on a reply that is already counted, in `row` (a 421, a refused banner). */
  closeNow(row: ErrorRow): void {
    this.enter(State.Failed);
    this.endingRow = row;
    this.txs.endedByReply();
    this.wire.destroy();
  }

  /** A failure of this session in the error table, hitting its oldest open message. */
  private countFailure(failure: Failure, phase: Phase, text: string): ErrorRow {
    // A close, reset, timeout or stop contradicts no order: a held 2xx stands (see hold()).
    this.txs.confirmHeld();
    const message = this.txs.oldestOpen();
    return this.host.stats.failure(failure, phase, text, 1, this.connection, message);
  }

  onSocketError(err: NodeJS.ErrnoException): void {
    if (this.state >= State.Failed) return;
    const phase = this.phase();
    this.enter(State.Failed);
    this.endingRow = this.countFailure(transportFailure(err.code), phase, socketErrorText(err));
  }

  onConnect(): void {
    const now = performance.now();
    this.host.stats.record("connect", now - this.phaseSince);
    this.phaseSince = now;
    this.handshake.connected(now);
  }

  onSecure(socket: tls.TLSSocket): void {
    const now = performance.now();
    this.phaseSince = now;
    this.handshake.secured(now, socket);
  }

  onClose(): void {
    if (this.state === State.Closed) return;
    this.pipeline.cancelWait();
    const { stats } = this.host;
    if (!this.orderly() && this.state < State.Failed) {
      const text = "connection closed by the server";
      this.endingRow = this.countFailure("closed", this.phase(), text);
    }
    const cleanly = this.state === State.Quitting && this.endingRow === null;
    const now = performance.now();
    let lost = this.txs.failOpen(now, this.wire.flushed);
    const unstarted = this.pipeline.unstarted;
    if (unstarted >= 0) {
      // Per-message mode: the connection failed before its message could start.
      stats.messagesFailedToStart(this.host.classIndexOf(unstarted));
      lost++;
    }
    // The ending failure's row counts one lost message; those pipelined behind it get theirs.
    if (this.endingRow && lost > 1) stats.lostWithSession(this.endingRow, lost - 1);
    stats.connectionClosed();
    // A session the client cut before the banner was not refused by anyone.
    const stopped = this.state === State.Stopped;
    if (!this.handshake.established && !stopped) stats.connectionRefused();
    else stats.record("session", now - this.openedAt);
    this.wire.clear();
    this.enter(State.Closed);
    stats.touch(TIME_ORIGIN + now);
    this.host.sessionEnded(this, cleanly);
  }
}
