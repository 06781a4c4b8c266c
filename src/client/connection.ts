/**
 * A session's transport: the socket its connections run over, plain or TLS, and the socket's
 * events handed to the session through a narrow interface. It knows bytes and sockets, not SMTP:
 * the session decides when to connect, upgrade or close; this class knows how, and keeps the one
 * Socket object a session's connections may share (reconnect).
 */
import type net from "node:net";
import type tls from "node:tls";
import type { SessionOptions } from "./run-interfaces.js";
import { openTransport, TlsResumption, upgradeToTls } from "./secure.js";
import { traceWrite } from "./trace.js";
import { type BytesHandler, closeAnswered, reconnect } from "./transport.js";
import { unnamed } from "./unnamed.js";

/** What the transport tells its session. */
export interface ConnectionHost {
  /** The socket connected (TCP, or TCP before an implicit-TLS handshake). */
  onConnect(): void;
  /** A TLS handshake finished on `socket`. */
  onSecure(socket: tls.TLSSocket): void;
  onSocketError(err: NodeJS.ErrnoException): void;
  /** The connection's socket closed. */
  onClose(): void;
}

export class Connection {
  private socket: net.Socket | null = null;
  /** Under a STARTTLS connection's TLS socket, its plain one; else null. */
  private under: net.Socket | null = null;
  /** The closed socket may carry the next connection (closeAnswered). */
  private reusable = false;
  /** Prints what this connection writes (-v: the run's first session only), or null. */
  private trace: ((line: string) => void) | null = null;
  /** Writes made on this connection, and how many of them the kernel took (handed over whole). */
  writes = 0;
  flushed = 0;
  /**
   * One callback for every write: Node calls it in write order once the write left for the
   * kernel, or with an error when the socket was destroyed first (then the bytes never left).
   */
  private readonly wrote = unnamed((err?: Error | null): void => {
    if (!err) this.flushed++;
  });

  constructor(
    private readonly host: ConnectionHost,
    private readonly config: SessionOptions,
    /** Takes every byte read, on every connection: made once per session. */
    private readonly onBytes: BytesHandler,
  ) {
    this.tickets = new TlsResumption(config, config.tls !== "none" && config.tlsResume);
    // One listener of each kind for all of the session's sockets, told apart by the emitter
    // (`this` in a listener): with STARTTLS the plain and the TLS socket both report the close,
    // and the second must not reach a connection the first reopened. Closures per socket would
    // be four to eight allocations a connection, and as many listeners for V8 to tell apart.
    const owns = unnamed((socket: net.Socket) => socket === this.socket || socket === this.under);
    this.connected = function (this: net.Socket) {
      if (owns(this)) host.onConnect();
    };
    const secured = unnamed((socket: tls.TLSSocket) => this.secured(socket));
    this.secureConnected = function (this: tls.TLSSocket) {
      if (owns(this)) secured(this);
    };
    this.failed = function (this: net.Socket, err: NodeJS.ErrnoException) {
      if (owns(this)) host.onSocketError(err);
    };
    this.closed = function (this: net.Socket) {
      if (owns(this)) host.onClose();
    };
  }

  /** The TLS session this session offers on its next connection; kept across connections. */
  private readonly tickets: TlsResumption;
  private readonly connected: (this: net.Socket) => void;
  private readonly secureConnected: (this: tls.TLSSocket) => void;
  private readonly failed: (this: net.Socket, err: NodeJS.ErrnoException) => void;
  private readonly closed: (this: net.Socket) => void;

  /**
   * Opens the next connection, from `localAddress` when given: on the last socket if it may.
   * `trace` prints its side of the conversation, or null.
   */
  open(localAddress: string | undefined, trace: ((line: string) => void) | null): void {
    const { config } = this;
    this.trace = trace;
    this.writes = 0;
    this.flushed = 0;
    if (this.reusable && this.socket !== null) {
      this.reusable = false; // its listeners stay, current: the same generation's socket
      reconnect(this.socket, config.target!, localAddress);
      return;
    }
    const socket = openTransport(config, this.onBytes, localAddress, this.tickets);
    this.under = null;
    this.socket = socket;
    this.listen(socket, true, config.tls === "implicit");
  }

  /** The session's listeners on a socket of this connection (see the constructor). */
  private listen(socket: net.Socket, connect: boolean, secure: boolean): void {
    if (connect) socket.on("connect", this.connected);
    if (secure) socket.on("secureConnect", this.secureConnected);
    socket.on("error", this.failed);
    socket.on("close", this.closed);
  }

  private secured(socket: tls.TLSSocket): void {
    this.trace?.(`= TLS ${socket.getProtocol()} ${socket.getCipher()?.name ?? ""}`);
    this.host.onSecure(socket);
  }

  /**
   * Writes `buf`, returning its ordinal on this connection (from 1), as `flushed` counts;
   * `shown` replaces it in the -v trace (credentials).
   */
  write(buf: Buffer, shown?: string): number {
    if (this.trace !== null) {
      if (shown === undefined) traceWrite(this.trace, buf);
      else this.trace(`> ${shown}`);
    }
    this.socket!.write(buf, this.wrote);
    return ++this.writes;
  }

  /** Writes until uncork() leave in one segment (RFC 2920 groups). */
  cork(): void {
    this.socket!.cork();
  }

  uncork(): void {
    this.socket!.uncork();
  }

  /** Bytes written that the socket still holds. */
  get writableLength(): number {
    return this.socket!.writableLength;
  }

  get encrypted(): boolean {
    return (this.socket as tls.TLSSocket | null)?.encrypted === true;
  }

  /** STARTTLS's 220 came: TLS over the same socket (RFC 3207). */
  startTls(): void {
    const secure = upgradeToTls(this.socket!, this.config, this.onBytes, this.tickets);
    this.under = this.socket;
    this.socket = secure;
    this.listen(secure, false, true);
  }

  /** QUIT was answered: closes the socket at once and notes whether it may carry the next one. */
  closeAnswered(): void {
    // A plain socket reading through the shared buffer carries the next connection; ones that
    // may speak STARTTLS read 'data' events, for node:tls to take over.
    const reusable = closeAnswered(this.socket!, this.config.target!);
    this.reusable = reusable && this.config.tls === "none";
  }

  destroy(): void {
    this.socket?.destroy();
  }
}
