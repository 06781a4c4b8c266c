/**
 * The protocol state of one sink session, with verbs for every change: the read mode, the
 * greeting, AUTH (RFC 4954), TLS (RFC 3207) and the mail transaction (RFC 5321 §4.1.4, with
 * BDAT, RFC 3030). No I/O here: the session (session.ts) owns the socket and the reply batch,
 * and the handlers (commands.ts, auth.ts, transaction.ts, faults.ts) see it as a `Session`.
 */

import type { LineChecker } from "./data-scanner.js";
import type { Envelope } from "./envelope-log.js";
import type { FaultTarget } from "./faults.js";
import type { SinkContext } from "./server-context.js";

/** Read modes: what the next input octets are. Plain numbers: the read loop tests one per line. */
export const M_COMMAND = 0;
export const M_DATA = 1;
export const M_BDAT = 2;
/** STARTTLS answered: the rest of the plaintext is discarded (RFC 3207 §5, CVE-2011-0411). */
export const M_UPGRADE = 3;
export const M_CLOSED = 4;
export type Mode =
  | typeof M_COMMAND
  | typeof M_DATA
  | typeof M_BDAT
  | typeof M_UPGRADE
  | typeof M_CLOSED;

/** AUTH (RFC 4954) continuation steps: what the next line answers. */
export const AUTH_NONE = 0;
export const AUTH_PLAIN = 1;
export const AUTH_LOGIN_USER = 2;
export const AUTH_LOGIN_PASS = 3;
export type AuthStep =
  | typeof AUTH_NONE
  | typeof AUTH_PLAIN
  | typeof AUTH_LOGIN_USER
  | typeof AUTH_LOGIN_PASS;

export class SessionState {
  private _mode: Mode = M_COMMAND;
  private _tls: boolean;
  private _greeted = false;
  private _authenticated = false;
  private _authStep: AuthStep = AUTH_NONE;
  private _loginUser = "";
  private _messages = 0;
  private _inMail = false;
  private _rcpts = 0;
  private _usedBdat = false;
  private _bdatError: Buffer | null = null;
  /**
   * The kept content: its first piece as a range of the read chunk it came in (no Buffer view
   * made per message), the later ones, if any, as views in `_pieces`.
   */
  private _head: Buffer | null = null;
  private _headStart = 0;
  private _headEnd = 0;
  private _pieces: Buffer[] | null = null;
  private _keeping = false;
  private _keptBytes = 0;
  /** The addresses of the transaction in progress, kept only for --log-envelopes. */
  envelope: Envelope | null = null;

  /**
   * `tls`: the connection is TLS from its first octet (implicit TLS). `keepBytes`: octets of
   * each message's start to keep (0: none, Infinity: all of it).
   */
  constructor(
    tls: boolean,
    private readonly keepBytes: number,
  ) {
    this._tls = tls;
  }

  get mode(): Mode {
    return this._mode;
  }
  get tls(): boolean {
    return this._tls;
  }
  /** EHLO, HELO or LHLO was answered since the session (or TLS) began. */
  get greeted(): boolean {
    return this._greeted;
  }
  get authenticated(): boolean {
    return this._authenticated;
  }
  /** The AUTH step the next command line answers; AUTH_NONE outside an AUTH exchange. */
  get authStep(): AuthStep {
    return this._authStep;
  }
  /** LOGIN: the user name given, while the password is awaited. */
  get loginUser(): string {
    return this._loginUser;
  }
  /** Transactions begun in this session (MAIL accepted), for the per-session message limit. */
  get messages(): number {
    return this._messages;
  }
  /** A MAIL was accepted and the transaction has not ended. */
  get inMail(): boolean {
    return this._inMail;
  }
  /** Recipients accepted in this transaction. */
  get rcpts(): number {
    return this._rcpts;
  }
  /** This transaction's content goes by BDAT (RFC 3030 §2: then DATA is refused). */
  get usedBdat(): boolean {
    return this._usedBdat;
  }
  /** The reply every BDAT of this transaction gets until LAST, once one was refused. */
  get bdatError(): Buffer | null {
    return this._bdatError;
  }
  /** The kept start of the message content (headers, or all of it for --dump); null if none. */
  get pieces(): Buffer[] | null {
    const head = this._head;
    if (head === null) return this._keeping ? [] : null;
    const first = head.subarray(this._headStart, this._headEnd);
    return this._pieces === null ? [first] : [first, ...this._pieces];
  }
  /** The kept content's first piece is `head[headStart, headEnd)`; null when none was kept. */
  get head(): Buffer | null {
    return this._head;
  }
  get headStart(): number {
    return this._headStart;
  }
  get headEnd(): number {
    return this._headEnd;
  }
  /** The kept content came in more than one read chunk. */
  get headSplit(): boolean {
    return this._pieces !== null;
  }

  // Read modes.

  toCommand(): void {
    this._mode = M_COMMAND;
  }
  toData(): void {
    this._mode = M_DATA;
  }
  toBdat(): void {
    this._mode = M_BDAT;
  }
  /** STARTTLS was answered 220: nothing more is read as plaintext. */
  toUpgrade(): void {
    this._mode = M_UPGRADE;
  }
  /** Nothing more is read; final. */
  close(): void {
    this._mode = M_CLOSED;
  }

  /** EHLO/HELO/LHLO answered: it also ends any transaction (RFC 5321 §4.1.4). */
  greet(): void {
    this.resetTransaction();
    this._greeted = true;
  }

  /**
   * The TLS handshake after STARTTLS completed: forget everything learnt before it, EHLO comes
   * again (RFC 3207 §4.2), and read commands.
   */
  secured(): void {
    this._tls = true;
    this._greeted = false;
    this._authenticated = false;
    this._authStep = AUTH_NONE;
    this._loginUser = "";
    this.resetTransaction();
    this.toCommand();
  }

  // AUTH (RFC 4954).

  /** The next command line answers an AUTH challenge (`step`). */
  awaitAuth(step: AuthStep): void {
    this._authStep = step;
  }
  /** Takes the step the current line answers; the exchange ends unless awaited again. */
  takeAuthStep(): AuthStep {
    const step = this._authStep;
    this._authStep = AUTH_NONE;
    return step;
  }
  /** LOGIN: the user name arrived; the password comes next. */
  rememberLoginUser(user: string): void {
    this._loginUser = user;
    this._authStep = AUTH_LOGIN_PASS;
  }
  /** The AUTH exchange is over: the session is authenticated when `success`. */
  endAuth(success: boolean): void {
    this._loginUser = "";
    if (success) this._authenticated = true;
  }

  // The mail transaction (RFC 5321 §4.1.4).

  /** MAIL accepted: a transaction begins. */
  startMail(): void {
    this._inMail = true;
    this._rcpts = 0;
    this._messages++;
  }
  /** RCPT accepted. */
  addRecipient(): void {
    this._rcpts++;
  }
  /** A BDAT chunk begins (RFC 3030 §2): true for the transaction's first, where content begins. */
  startBdatChunk(): boolean {
    if (this._usedBdat) return false;
    this._usedBdat = true;
    return true;
  }
  /** Every later BDAT of this transaction gets `reply` until LAST (the first refusal wins). */
  refuseBdat(reply: Buffer): void {
    this._bdatError ??= reply;
  }
  /** Message content begins (after 354, or with the first BDAT chunk). */
  beginContent(): void {
    this._keeping = this.keepBytes > 0;
    this._head = null;
    this._pieces = null;
    this._keptBytes = 0;
  }
  /** Content octets `chunk[start, end)`: kept (without copying) up to the keep limit. */
  keepContent(chunk: Buffer, start: number, end: number): void {
    if (this._keptBytes >= this.keepBytes || end === start) return;
    this._keptBytes += end - start;
    if (this._head === null) {
      this._head = chunk;
      this._headStart = start;
      this._headEnd = end;
    } else {
      this._pieces ??= [];
      this._pieces.push(chunk.subarray(start, end));
    }
  }
  /** Ends the transaction (RSET, EHLO, end of a message, TLS: RFC 5321 §4.1.1.5). */
  resetTransaction(): void {
    this.envelope = null;
    this._inMail = false;
    this._rcpts = 0;
    this._usedBdat = false;
    this._bdatError = null;
    this._keeping = false;
    this._head = null;
    this._pieces = null;
    this._keptBytes = 0;
  }
}

/**
 * A session as its handlers see it: the sink's shared context, the protocol state, and the few
 * things a handler may ask of the connection.
 */
export interface Session extends FaultTarget {
  readonly ctx: SinkContext;
  /** The client's address (per-client limits). */
  readonly client: string;
  readonly state: SessionState;
  /** Per-line checks on the current message's text; null when none are configured. */
  readonly lines: LineChecker | null;
  /** Queues a reply for the end of this read chunk. */
  reply(buf: Buffer): void;
  /** Sends what is queued, then closes (421 and similar). Reading stops now. */
  closeAfterReplies(): void;
  /** Switches to DATA content (after the 354). */
  beginData(): void;
  /** Switches to BDAT content for `size` octets. */
  beginBdat(size: number, last: boolean): void;
  /** After the queued 220 to STARTTLS is sent, the TLS handshake starts (RFC 3207 §4). */
  startTls(): void;
}
