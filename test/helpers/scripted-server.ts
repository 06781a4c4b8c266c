/**
 * A raw SMTP server whose every byte is decided by the test: for byte-exact edge cases of the
 * client (split replies, held replies, 421 anywhere, close during DATA, silence). It records
 * what the client sent, chunk by chunk as TCP delivered it, so a test can assert that MAIL,
 * RCPT and DATA of a pipelined group arrived in one write (RFC 2920 §3.1).
 *
 * Command mode splits input at LF; pipelined commands in one chunk are answered in order.
 * After a 354 reply the server is in DATA mode until `CRLF.CRLF` (RFC 5321 §4.1.1.4), then
 * answers the dot and parses what follows in the same chunk as commands again. `BDAT n [LAST]`
 * (RFC 3030) is answered once its n octets have arrived; a LAST chunk completes a message.
 */
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** What to do in answer to a command, the banner, or the end of a message's data. */
export type Action = string | Buffer | null | ReplySpec;

export interface ReplySpec {
  /**
   * Bytes to send. A string without a trailing LF gets CRLF appended; a Buffer is sent as-is.
   * Omitted or null: send nothing (combine with `close`, or never answer).
   */
  reply?: string | Buffer | null;
  /** Wait this long before sending (later replies queue behind it, in order). */
  delayMs?: number;
  /** Send only once this settles (a reply held back until the test releases it). */
  after?: Promise<unknown>;
  /** Byte offsets at which the reply is cut into separate writes, `splitDelayMs` apart. */
  split?: number[];
  /** Pause between the pieces of a split reply; default 5 ms (time enough for separate reads). */
  splitDelayMs?: number;
  /** Do not send yet: these bytes go out together with the next reply that is sent. */
  hold?: boolean;
  /** After sending, half-close (FIN) and stop reading. */
  close?: boolean;
  /** After sending, reset the connection (RST). */
  reset?: boolean;
}

export interface ScriptedSession {
  /** 0-based connection number. */
  readonly index: number;
  /** Command lines received so far in this connection, without line end (not DATA content). */
  readonly commands: string[];
  /** Messages completed so far in this connection. */
  readonly messages: number;
  /** Free space for scripts that keep state across commands. */
  readonly state: Record<string, unknown>;
  readonly socket: net.Socket;
  /** Sends bytes now, outside the reply order (injected bytes). */
  inject(bytes: string | Buffer): void;
}

export interface Script {
  /** The greeting; default "220 scripted ESMTP". null: say nothing (a silent server). */
  banner?: Action | ((session: ScriptedSession) => Action);
  /**
   * The reply to one command line (without its line end). Return undefined for the default
   * reply (see `defaultReply`), null to never answer it.
   */
  onCommand?(line: string, session: ScriptedSession): Action | undefined;
  /**
   * Called with each chunk of DATA content as it arrives; return an action (for example
   * `{ close: true }`) to act in the middle of the data, or undefined to keep reading.
   */
  onDataChunk?(chunk: Buffer, session: ScriptedSession): Action | undefined;
  /**
   * The reply to the final dot; `content` is the data as received (still dot-stuffed, without
   * the final `.CRLF`). Return undefined for "250 2.0.0 Ok: queued".
   */
  onMessage?(content: Buffer, session: ScriptedSession): Action | undefined;
  /** EHLO keywords of the default EHLO reply; default PIPELINING, 8BITMIME, ENHANCEDSTATUSCODES. */
  capabilities?: string[];
  /**
   * Batch replies per read chunk: every reply produced while reading one chunk goes out in one
   * write at the chunk's end, like a server that flushes before it waits for more input.
   */
  batch?: boolean;
}

export interface ConnectionRecord {
  readonly index: number;
  /** Every chunk received, as TCP delivered it. */
  readonly chunks: Buffer[];
  /** For each received chunk, the command lines that were completed in it. */
  readonly commandChunks: string[][];
  /** All command lines, in order (DATA content excluded). */
  readonly commands: string[];
  /** The content of each message (dot-stuffed as received, without the final `.CRLF`). */
  readonly messages: Buffer[];
  /** Every write the server made, in order. */
  readonly writes: Buffer[];
  /** True once the socket has closed. */
  closed: boolean;
  /** Resolves when the socket has closed. */
  readonly done: Promise<void>;
  /** All bytes received, concatenated. */
  received(): Buffer;
}

export interface ScriptedServer {
  host: string;
  port: number;
  readonly connections: ConnectionRecord[];
  /** Resolves once at least `count` connections have been accepted. */
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

const DEFAULT_CAPABILITIES = ["PIPELINING", "8BITMIME", "ENHANCEDSTATUSCODES"];
const CRLF_DOT_CRLF = Buffer.from("\r\n.\r\n", "latin1");

/** The reply a plain, accepting ESMTP server gives to `line`. */
export function defaultReply(line: string, capabilities = DEFAULT_CAPABILITIES): ReplySpec {
  const verb = line.split(" ", 1)[0].toUpperCase();
  switch (verb) {
    case "EHLO":
    case "LHLO": {
      const lines = ["scripted", ...capabilities];
      const text = lines.map((l, i) => `250${i === lines.length - 1 ? " " : "-"}${l}`);
      return { reply: text.join("\r\n") };
    }
    case "HELO":
      return { reply: "250 scripted" };
    case "MAIL":
      return { reply: "250 2.1.0 Ok" };
    case "RCPT":
      return { reply: "250 2.1.5 Ok" };
    case "DATA":
      return { reply: "354 End data with <CR><LF>.<CR><LF>" };
    case "RSET":
    case "NOOP":
      return { reply: "250 2.0.0 Ok" };
    case "QUIT":
      return { reply: "221 2.0.0 Bye", close: true };
    default:
      return { reply: "502 5.5.2 Error: command not recognized" };
  }
}

function toSpec(action: Action | undefined, fallback: () => ReplySpec): ReplySpec {
  if (action === undefined) return fallback();
  if (action === null) return {};
  if (typeof action === "string" || Buffer.isBuffer(action)) return { reply: action };
  return action;
}

function replyBytes(reply: string | Buffer | null | undefined): Buffer {
  if (reply === null || reply === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(reply)) return reply;
  return Buffer.from(reply.endsWith("\n") ? reply : `${reply}\r\n`, "latin1");
}

class ScriptedConnection implements ScriptedSession {
  readonly commands: string[] = [];
  readonly state: Record<string, unknown> = {};
  messages = 0;
  private input: Buffer = Buffer.alloc(0);
  private inData = false;
  private dataStart = 0;
  private finished = false;
  private held: Buffer[] = [];
  private batched: Buffer[] = [];
  private chunkCommands: string[] = [];
  /** A BDAT line whose chunk is still arriving, the octets still due, and the message so far. */
  private bdatLine = "";
  private bdatLeft = 0;
  private bdatContent: Buffer[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly index: number,
    readonly socket: net.Socket,
    private readonly script: Script,
    private readonly record: ConnectionRecord,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onChunk(chunk));
    socket.on("error", () => {});
    const banner = typeof script.banner === "function" ? script.banner(this) : script.banner;
    this.act(toSpec(banner, () => ({ reply: "220 scripted ESMTP" })));
    this.flushBatch();
  }

  inject(bytes: string | Buffer): void {
    const buf = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes;
    this.write(buf);
  }

  private write(buf: Buffer): void {
    if (buf.length === 0 || this.socket.destroyed) return;
    this.record.writes.push(buf);
    this.socket.write(buf);
  }

  private onChunk(chunk: Buffer): void {
    this.record.chunks.push(chunk);
    this.chunkCommands = [];
    this.record.commandChunks.push(this.chunkCommands);
    if (this.finished) return;
    const dataBefore = this.inData ? this.input.length : -1;
    this.input = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    if (dataBefore >= 0) this.dataChunk(this.input.subarray(dataBefore));
    this.drain();
    this.flushBatch();
  }

  private drain(): void {
    while (!this.finished) {
      if (this.bdatLine !== "") {
        if (!this.takeChunk()) return;
        continue;
      }
      if (this.inData) {
        // The terminator's CRLF may be the one that ended the DATA line (an empty message).
        const from = Math.max(this.dataStart - 2, 0);
        const end = this.input.indexOf(CRLF_DOT_CRLF, from);
        if (end === -1) return;
        const contentEnd = Math.max(end + 2, this.dataStart);
        const content = Buffer.from(this.input.subarray(this.dataStart, contentEnd));
        this.input = this.input.subarray(end + CRLF_DOT_CRLF.length);
        this.inData = false;
        this.messages++;
        this.record.messages.push(content);
        this.act(
          toSpec(this.script.onMessage?.(content, this), () => ({
            reply: "250 2.0.0 Ok: queued",
          })),
        );
        continue;
      }
      const lf = this.input.indexOf(10);
      if (lf === -1) return;
      const end = lf > 0 && this.input[lf - 1] === 13 ? lf - 1 : lf;
      const line = this.input.toString("latin1", 0, end);
      this.input = this.input.subarray(lf + 1);
      this.commands.push(line);
      this.record.commands.push(line);
      this.chunkCommands.push(line);
      const bdat = /^BDAT (\d+)( LAST)?\s*$/i.exec(line);
      if (bdat) {
        this.bdatLine = line;
        this.bdatLeft = Number(bdat[1]);
        continue;
      }
      const spec = toSpec(this.script.onCommand?.(line, this), () =>
        defaultReply(line, this.script.capabilities),
      );
      this.act(spec);
      const bytes = replyBytes(spec.reply);
      if (
        /^DATA\s*$/i.test(line) &&
        bytes.length >= 3 &&
        bytes.toString("latin1", 0, 3) === "354"
      ) {
        this.inData = true;
        // Content starts right after the DATA line; CRLF.CRLF may use the DATA line's CRLF.
        this.input = Buffer.concat([Buffer.from("\r\n"), this.input]);
        this.dataStart = 2;
        if (this.input.length > 2) this.dataChunk(this.input.subarray(2));
      }
    }
  }

  /** Reads BDAT chunk octets; once all are in, answers the BDAT line. False: more to come. */
  private takeChunk(): boolean {
    const take = Math.min(this.bdatLeft, this.input.length);
    this.bdatContent.push(Buffer.from(this.input.subarray(0, take)));
    this.input = this.input.subarray(take);
    this.bdatLeft -= take;
    if (this.bdatLeft > 0) return false;
    const line = this.bdatLine;
    this.bdatLine = "";
    const last = / LAST\s*$/i.test(line);
    const spec = toSpec(this.script.onCommand?.(line, this), () => {
      if (!last) return { reply: "250 2.0.0 chunk ok" };
      this.messages++;
      this.record.messages.push(Buffer.concat(this.bdatContent));
      return { reply: "250 2.0.0 Ok: queued" };
    });
    if (last) this.bdatContent = [];
    this.act(spec);
    return true;
  }

  /** Offers newly arrived DATA content to the script (only while still in DATA mode). */
  private dataChunk(bytes: Buffer): void {
    if (!this.inData || !this.script.onDataChunk || bytes.length === 0) return;
    const action = this.script.onDataChunk(bytes, this);
    if (action !== undefined) this.act(toSpec(action, () => ({})));
  }

  private act(spec: ReplySpec): void {
    let bytes = replyBytes(spec.reply);
    if (spec.hold) {
      this.held.push(bytes);
      return;
    }
    if (this.held.length > 0) {
      bytes = Buffer.concat([...this.held, bytes]);
      this.held = [];
    }
    if (spec.close || spec.reset) this.finished = true;
    const simple =
      !spec.delayMs && !spec.after && !spec.split?.length && !spec.close && !spec.reset;
    if (simple && this.script.batch) {
      this.batched.push(bytes);
      return;
    }
    this.flushBatch();
    this.queue = this.queue.then(() => this.perform(bytes, spec));
  }

  private flushBatch(): void {
    if (this.batched.length === 0) return;
    const bytes = Buffer.concat(this.batched);
    this.batched = [];
    this.queue = this.queue.then(() => this.write(bytes));
  }

  private async perform(bytes: Buffer, spec: ReplySpec): Promise<void> {
    if (spec.after) await spec.after.catch(() => {});
    if (spec.delayMs) await sleep(spec.delayMs);
    let at = 0;
    for (const cut of spec.split ?? []) {
      if (cut <= at || cut >= bytes.length) continue;
      this.write(bytes.subarray(at, cut));
      at = cut;
      await sleep(spec.splitDelayMs ?? 5);
    }
    this.write(bytes.subarray(at));
    if (spec.reset) this.socket.resetAndDestroy();
    else if (spec.close) this.socket.end();
  }
}

/** Starts a scripted server on 127.0.0.1 and an ephemeral port. */
export async function startScriptedServer(script: Script = {}): Promise<ScriptedServer> {
  const connections: ConnectionRecord[] = [];
  const sockets = new Set<net.Socket>();
  const arrivals: (() => void)[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let markDone = () => {};
    const record: ConnectionRecord = {
      index: connections.length,
      chunks: [],
      commandChunks: [],
      commands: [],
      messages: [],
      writes: [],
      closed: false,
      done: new Promise<void>((resolve) => {
        markDone = resolve;
      }),
      received() {
        return Buffer.concat(this.chunks);
      },
    };
    socket.on("close", () => {
      sockets.delete(socket);
      record.closed = true;
      markDone();
    });
    connections.push(record);
    new ScriptedConnection(record.index, socket, script, record);
    for (const wake of arrivals.splice(0)) wake();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    host: "127.0.0.1",
    port,
    connections,
    async waitForConnections(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (connections.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} connections, got ${connections.length}`);
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          arrivals.push(resolve);
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
      }
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs `body` against a scripted server on an ephemeral loopback port and always closes it. */
export async function withServer<T>(
  script: Script,
  body: (server: ScriptedServer) => Promise<T>,
): Promise<T> {
  const server = await startScriptedServer(script);
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}
