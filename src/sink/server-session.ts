/**
 * One sink session: the read loop over command, DATA and BDAT modes, and the reply batch.
 *
 * Replies are collected while a read chunk is processed and written with one socket.write at the
 * chunk's end, so a pipelined group (RFC 2920) gets its replies in one segment and the sink never
 * waits for input with replies unsent. Command lines are parsed as bytes (commands.ts); DATA
 * content is scanned with indexOf for the end-of-data marker only.
 */
import type { Server, Socket } from "node:net";
import { TLSSocket } from "node:tls";
import { command } from "./commands.js";
import {
  type EndFinder,
  EndOfDataScanner,
  LenientEndScanner,
  LineChecker,
} from "./data-scanner.js";
import { applyFault, F_BDAT, F_CONNECT, isPositive } from "./faults.js";
import { ReplyBatch } from "./reply-batch.js";
import type { SinkContext } from "./server-context.js";
import {
  M_BDAT,
  M_COMMAND,
  M_DATA,
  M_UPGRADE,
  type Session,
  SessionState,
} from "./session-state.js";
import { countHandshake } from "./tls-material.js";
import { finishMessage } from "./transaction.js";

const LF = 10;
const CR = 13;

/** RFC 4954 §4: an AUTH line may be up to 12288 octets; never buffer more than this. */
const MAX_CARRY = 12288;

const EMPTY = Buffer.alloc(0);

export class SinkSession implements Session {
  readonly state: SessionState;
  readonly lines: LineChecker | null;
  private socket: Socket;
  /** A fault delay set by the current command: replies wait, reading pauses. */
  private delayMs = 0;
  /** Abort the connection once this much content has arrived (fault), -1 = never. */
  private abortAt = -1;
  /** BDAT: octets left in the current chunk, and whether it is the LAST one. */
  private bdatLeft = 0;
  private bdatLast = false;
  /** Octets of the current message's content so far (including the final ".\r\n" for DATA). */
  private messageBytes = 0;
  private readonly scanner: EndFinder;
  private readonly out = new ReplyBatch();
  private carry: Buffer | null = null;
  private skipLine = false;
  private suspended = false;
  private closing = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly ctx: SinkContext,
    socket: Socket,
    readonly client: string,
  ) {
    this.socket = socket;
    const secure = socket instanceof TLSSocket;
    this.state = new SessionState(secure, ctx.keepBytes);
    if (secure) countHandshake(socket, ctx.counters); // implicit TLS: handshake done at accept
    const o = ctx.options;
    this.lines = o.maxTextLine > 0 || o.bareLf === "reject" ? new LineChecker(o.maxTextLine) : null;
    this.scanner = o.bareLf === "normalize" ? new LenientEndScanner() : new EndOfDataScanner();
  }

  /** Greets the client (or applies a connect fault) and starts reading. */
  start(): void {
    const socket = this.socket;
    socket.on("data", this.onData);
    socket.on("error", noop); // a reset peer is normal under load; 'close' follows
    if (this.ctx.options.idleTimeoutMs > 0) {
      socket.setTimeout(this.ctx.options.idleTimeoutMs, this.onIdle);
    }
    const fault = applyFault(this, F_CONNECT);
    if (fault === null) this.reply(this.ctx.replies.banner);
    else if (!isPositive(fault)) this.closeAfterReplies(); // a refusing banner ends the session
    this.afterInput(EMPTY, 0);
  }

  /** Queues a reply for the end of this read chunk. */
  reply(buf: Buffer): void {
    this.out.add(buf);
  }

  /** Sends what is queued, then closes (421 and similar). Reading stops now. */
  closeAfterReplies(): void {
    this.state.close();
    this.closing = true;
  }

  /** Shutdown of the whole sink: 421 4.3.2 and close, unless the session is already closing. */
  shutdown(): void {
    if (this.closing) {
      this.socket.destroy();
      return;
    }
    this.reply(this.ctx.replies.shuttingDown);
    this.closeAfterReplies();
    this.suspended = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.flush();
  }

  /** Flushes replies held before a delayed one, and holds everything after it. */
  hold(ms: number): void {
    this.flush();
    this.suspended = true;
    this.delayMs = Math.max(1, ms);
  }

  abortAfter(octets: number): void {
    this.abortAt = octets;
  }

  startTls(): void {
    this.state.toUpgrade();
  }

  private readonly onData = (chunk: Buffer): void => {
    this.ctx.clock.tick();
    this.afterInput(chunk, this.process(chunk, 0));
  };

  private afterInput(chunk: Buffer, pos: number): void {
    if (this.delayMs > 0) {
      this.suspend(chunk, pos);
      return;
    }
    this.flush();
    if (this.state.mode === M_UPGRADE) this.upgrade();
  }

  private readonly onIdle = (): void => {
    if (this.closing) {
      this.socket.destroy();
      return;
    }
    this.reply(this.ctx.replies.timeout);
    this.closeAfterReplies();
    this.flush();
  };

  private process(chunk: Buffer, pos: number): number {
    const length = chunk.length;
    const state = this.state;
    while (pos < length) {
      const mode = state.mode;
      if (mode === M_COMMAND) pos = this.commandLine(chunk, pos);
      else if (mode === M_DATA) pos = this.data(chunk, pos);
      else if (mode === M_BDAT) pos = this.bdat(chunk, pos);
      else return length; // closed or upgrading: the rest is never acted on
      if (this.delayMs > 0) return pos;
    }
    return pos;
  }

  /** Pauses reading until a fault delay has passed, then goes on with the rest of the chunk. */
  private suspend(chunk: Buffer, pos: number): void {
    const ms = this.delayMs;
    this.delayMs = 0;
    this.socket.pause();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.suspended = false;
      if (this.socket.destroyed) return;
      this.ctx.clock.tick();
      pos = this.process(chunk, pos);
      this.afterInput(chunk, pos);
      if (!this.suspended && this.state.mode < M_UPGRADE) this.socket.resume();
    }, ms);
  }

  private flush(): void {
    if (this.suspended) return;
    const socket = this.socket;
    this.out.writeTo(socket);
    if (this.closing && !socket.destroyed && !socket.writableEnded) {
      socket.end();
      // A client that never closes its side must not keep the sink's socket forever.
      setTimeout(() => socket.destroy(), 2000).unref();
    }
  }

  /** One command line from `chunk[pos…]`, or the start of one kept for the next chunk. */
  private commandLine(chunk: Buffer, pos: number): number {
    const lf = chunk.indexOf(LF, pos);
    if (this.carry !== null || this.skipLine) {
      return this.carriedLine(chunk, pos, lf);
    }
    if (lf === -1) {
      this.keep(chunk.subarray(pos));
      return chunk.length;
    }
    this.line(chunk, pos, lf);
    return lf + 1;
  }

  private carriedLine(chunk: Buffer, pos: number, lf: number): number {
    if (lf === -1) {
      if (!this.skipLine) this.keep(Buffer.concat([this.carry!, chunk.subarray(pos)]));
      return chunk.length;
    }
    if (this.skipLine) {
      this.skipLine = false;
      this.reply(this.ctx.replies.lineTooLong);
      return lf + 1;
    }
    const line = Buffer.concat([this.carry!, chunk.subarray(pos, lf + 1)]);
    this.carry = null;
    this.line(line, 0, line.length - 1);
    return lf + 1;
  }

  /** Keeps a partial line; past any sane length the line is skipped and answered 500. */
  private keep(partial: Buffer): void {
    if (partial.length > MAX_CARRY) {
      this.carry = null;
      this.skipLine = true;
    } else {
      this.carry = Buffer.from(partial);
    }
  }

  private line(buf: Buffer, start: number, lf: number): void {
    const end = lf > start && buf[lf - 1] === CR ? lf - 1 : lf;
    command(this, buf, start, end, lf + 1 - start);
  }

  /** Switches to DATA content (after the 354). */
  beginData(): void {
    this.state.toData();
    this.scanner.reset();
    this.beginContent();
  }

  /** Switches to BDAT content for `size` octets. */
  beginBdat(size: number, last: boolean): void {
    if (this.state.startBdatChunk()) this.beginContent();
    this.bdatLeft = size;
    this.bdatLast = last;
    this.state.toBdat();
    if (size === 0) this.endChunk();
  }

  private beginContent(): void {
    this.messageBytes = 0;
    this.state.beginContent();
    this.lines?.reset();
  }

  private data(chunk: Buffer, pos: number): number {
    const end = this.scanner.find(chunk, pos);
    const stop = end === -1 ? chunk.length : end;
    this.content(chunk, pos, stop);
    if (end !== -1 && this.state.mode === M_DATA) {
      this.state.toCommand();
      finishMessage(this, this.messageBytes - 3, true);
    }
    return stop;
  }

  private bdat(chunk: Buffer, pos: number): number {
    const stop = Math.min(chunk.length, pos + this.bdatLeft);
    this.bdatLeft -= stop - pos;
    this.content(chunk, pos, stop);
    if (this.bdatLeft === 0 && this.state.mode === M_BDAT) this.endChunk();
    return stop;
  }

  /**
   * A BDAT chunk is complete: one reply per BDAT (RFC 3030 §2), the verdict after LAST. A fault
   * on a chunk fails the transaction: later chunks get the same reply until LAST.
   */
  private endChunk(): void {
    const state = this.state;
    state.toCommand();
    const error = state.bdatError;
    if (this.bdatLast) {
      if (error === null) finishMessage(this, this.messageBytes, false);
      else {
        this.reply(error);
        state.resetTransaction();
      }
      return;
    }
    if (error !== null) {
      this.reply(error);
      return;
    }
    const fault = applyFault(this, F_BDAT);
    if (fault === null) this.reply(this.ctx.replies.bdatOk);
    else if (fault.reply !== null && !isPositive(fault)) {
      state.refuseBdat(fault.reply);
      this.ctx.counters.messagesRejected++;
    }
  }

  private content(chunk: Buffer, start: number, end: number): void {
    this.messageBytes += end - start;
    if (this.lines !== null) this.lines.scan(chunk, start, end);
    this.state.keepContent(chunk, start, end);
    if (this.abortAt >= 0 && this.messageBytes >= this.abortAt) {
      this.abortAt = -1;
      this.state.close();
      this.socket.destroy();
    }
  }

  /** STARTTLS (RFC 3207): the 220 is flushed; TLS starts on the same socket, state is reset. */
  private upgrade(): void {
    const plain = this.socket;
    plain.removeListener("data", this.onData);
    // The TLS socket takes over the handle; the plain socket no longer sees activity.
    plain.setTimeout(0);
    this.carry = null;
    const secure = new TLSSocket(plain, {
      isServer: true,
      secureContext: this.ctx.secureContext!,
      // The session-ID cache answers the socket's session events as a TLS listener would.
      server: (this.ctx.tlsSessions ?? undefined) as unknown as Server | undefined,
      requestCert: false,
      rejectUnauthorized: false,
    });
    secure.on("error", () => secure.destroy());
    secure.once("secure", () => {
      this.socket = secure;
      countHandshake(secure, this.ctx.counters);
      this.state.secured();
      secure.on("data", this.onData);
      const idle = this.ctx.options.idleTimeoutMs;
      if (idle > 0) secure.setTimeout(idle, this.onIdle);
    });
  }

  /** Stops timers; called when the socket has closed. */
  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.state.close();
  }
}

function noop(): void {}
