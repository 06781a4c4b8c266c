/**
 * The wire a session's parts share: the transport and the ring of replies owed on it, in one
 * object, so that bytes go out together with the replies they expect (RFC 2920 §3.1: the server
 * answers in order, and replies are matched by order alone). The handshake and the pipeline
 * write only through it; the session reads the ring's head to hand each reply to its part.
 */
import { Connection, type ConnectionHost } from "./connection.js";
import { type Expect, PendingReplies, pendingCapacity } from "./pending.js";
import type { SessionOptions } from "./run-interfaces.js";
import type { BytesHandler } from "./transport.js";

export class Wire {
  /** The socket the session's connections run over, plain or TLS. */
  private readonly transport: Connection;
  /** The replies owed on this connection, in order. */
  private readonly pending: PendingReplies;

  /** `onBytes` takes every byte read, on every connection of the session. */
  constructor(host: ConnectionHost, config: SessionOptions, onBytes: BytesHandler) {
    this.transport = new Connection(host, config, onBytes);
    this.pending = new PendingReplies(pendingCapacity(config));
  }

  /**
   * Opens the session's next connection, from `localAddress` when given, nothing owed on it;
   * `trace` prints its side of the conversation (-v), or null.
   */
  open(localAddress: string | undefined, trace: ((line: string) => void) | null): void {
    this.pending.clear();
    this.transport.open(localAddress, trace);
  }

  /** STARTTLS's 220 came: TLS over the same socket (RFC 3207). */
  startTls(): void {
    this.transport.startTls();
  }

  /** QUIT was answered: the socket closes at once (see Connection.closeAnswered). */
  closeAnswered(): void {
    this.transport.closeAnswered();
  }

  destroy(): void {
    this.transport.destroy();
  }

  /** Writes of this connection the kernel took whole (write's ordinals, from 1, up to it). */
  get flushed(): number {
    return this.transport.flushed;
  }

  /**
   * Writes one command and expects its reply for transaction `slot` (0: none); `shown` replaces
   * it in the -v trace (credentials). Returns the write's ordinal on this connection.
   */
  send(bytes: Buffer, kind: Expect, slot: number, shown?: string): number {
    const ordinal = this.transport.write(bytes, shown);
    this.pending.push(kind, slot);
    return ordinal;
  }

  /**
   * Writes a group whose replies the caller queues with expect(), in order, before the next
   * reply can be read (the same tick). Returns the write's ordinal, as `flushed` counts.
   */
  write(bytes: Buffer): number {
    return this.transport.write(bytes);
  }

  /** A reply owed without a write of its own: the banner, or one of a group written whole. */
  expect(kind: Expect, slot = 0): void {
    this.pending.push(kind, slot);
  }

  /** Writes until uncork() leave together (one segment for an RFC 2920 group). */
  cork(): void {
    this.transport.cork();
  }

  uncork(): void {
    this.transport.uncork();
  }

  /** Bytes written that the socket still holds. */
  get writableLength(): number {
    return this.transport.writableLength;
  }

  /** Replies still owed. */
  get owed(): number {
    return this.pending.count;
  }

  /** What the next reply answers; only valid while owed > 0. */
  get nextKind(): Expect {
    return this.pending.headKind;
  }

  /** The transaction slot of the next reply; only valid while owed > 0. */
  get nextSlot(): number {
    return this.pending.headSlot;
  }

  /** The next reply came: the ring moves on. */
  answered(): void {
    this.pending.shift();
  }

  /** The connection ended: nothing is owed on the next. */
  clear(): void {
    this.pending.clear();
  }

  get encrypted(): boolean {
    return this.transport.encrypted;
  }
}
