/**
 * Helpers for the sink tests: a raw SMTP client over real sockets that collects replies, a
 * scripted in-memory socket that feeds the session exactly the chunks a test chooses, and
 * lookup of third-party peers (skipped loudly when missing, fatal under MAILVOLLEY_REQUIRE_PEERS).
 */

import { EventEmitter } from "node:events";
import { connect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { fillSinkOptions, type SinkOptions } from "../src/config/sink-config.js";
import { type Sink, startSink } from "../src/sink/index.js";

/** A complete reply: its lines joined with "\n", e.g. "250-a\n250 b". */
export type ReplyText = string;

export class RawClient {
  readonly chunks: Buffer[] = [];
  private text = "";
  private readonly replies: ReplyText[] = [];
  private pendingLines: string[] = [];
  private waiter: (() => void) | null = null;
  closed = false;

  constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.text += chunk.toString("latin1");
      this.split();
      this.waiter?.();
    });
    socket.on("close", () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on("error", () => {});
  }

  static connect(port: number, host = "127.0.0.1"): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host, () => resolve(new RawClient(socket)));
      socket.once("error", reject);
    });
  }

  static connectPath(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(path, () => resolve(new RawClient(socket)));
      socket.once("error", reject);
    });
  }

  static connectTls(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false }, () =>
        resolve(new RawClient(socket)),
      );
      socket.once("error", reject);
    });
  }

  /**
   * After a 220 to STARTTLS: a TLS client on the same socket (certificates not verified).
   * This client stops reading; the plaintext it saw stays in `chunks`.
   */
  startTls(): Promise<RawClient> {
    this.socket.removeAllListeners("data");
    return new Promise((resolve, reject) => {
      const secure = tlsConnect({ socket: this.socket, rejectUnauthorized: false }, () =>
        resolve(new RawClient(secure)),
      );
      secure.once("error", reject);
    });
  }

  private split(): void {
    for (;;) {
      const end = this.text.indexOf("\r\n");
      if (end === -1) return;
      const line = this.text.slice(0, end);
      this.text = this.text.slice(end + 2);
      this.pendingLines.push(line);
      if (line.length <= 3 || line[3] !== "-") {
        this.replies.push(this.pendingLines.join("\n"));
        this.pendingLines = [];
      }
    }
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next `n` replies (waits for them); throws if the connection closes first. */
  async read(n = 1): Promise<ReplyText[]> {
    while (this.replies.length < n) {
      if (this.closed) {
        throw new Error(`closed after ${this.replies.length} of ${n} replies: ${this.replies}`);
      }
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
      this.waiter = null;
    }
    return this.replies.splice(0, n);
  }

  /** Sends `data` and returns the next `n` replies. */
  async send(data: string | Buffer, n = 1): Promise<ReplyText[]> {
    this.write(data);
    return this.read(n);
  }

  /** Resolves when the server has closed the connection. */
  async closedByServer(): Promise<void> {
    while (!this.closed) {
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
      this.waiter = null;
    }
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once("close", () => resolve());
      this.socket.destroy();
    });
  }
}

/** The first reply code of each reply. */
export function codes(replies: ReplyText[]): number[] {
  return replies.map((reply) => Number(reply.slice(0, 3)));
}

export function portOf(sink: Sink, index = 0): number {
  return sink.addresses[index].port;
}

/** Runs `fn` against a sink on an ephemeral loopback port and always closes the sink. */
export async function withSink(
  options: Omit<SinkOptions, "listen"> & { listen?: string[] },
  fn: (sink: Sink) => Promise<void>,
): Promise<void> {
  const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], ...options }));
  try {
    await fn(sink);
  } finally {
    await sink.close();
  }
}

/** A client that has read the banner and had its EHLO (or `hello`) answered. */
export async function greeted(sink: Sink, hello = "EHLO x\r\n"): Promise<RawClient> {
  const client = await RawClient.connect(portOf(sink));
  await client.read();
  await client.send(hello);
  return client;
}

/**
 * An in-memory stand-in for a net.Socket: the test emits 'data' chunks of its choosing and sees
 * every write the session makes, one entry per socket.write call.
 */
export class ScriptedSocket extends EventEmitter {
  readonly writes: Buffer[] = [];
  remoteAddress = "192.0.2.1";
  destroyed = false;
  writableEnded = false;
  ended = false;

  write(data: Buffer): boolean {
    this.writes.push(Buffer.from(data));
    return true;
  }

  end(data?: Buffer): this {
    if (data) this.write(data);
    this.ended = true;
    this.writableEnded = true;
    this.destroy();
    return this;
  }

  destroy(): this {
    if (!this.destroyed) {
      this.destroyed = true;
      queueMicrotask(() => this.emit("close"));
    }
    return this;
  }

  pause(): this {
    return this;
  }

  resume(): this {
    return this;
  }

  setTimeout(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  /** Feeds one chunk, as one read from the network. */
  feed(data: string | Buffer): void {
    this.emit("data", typeof data === "string" ? Buffer.from(data, "latin1") : data);
  }

  /** Everything written so far as text. */
  get output(): string {
    return Buffer.concat(this.writes).toString("latin1");
  }
}
