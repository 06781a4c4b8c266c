/**
 * One lock-step SMTP connection for `mailvolley probe`: a command, its reply, the next. Probes
 * measure where a gateway starts refusing, not speed, so nothing is pipelined: a refused MAIL
 * then costs the gateway one error, not three (the 503s to a pipelined RCPT and DATA count
 * against Postfix's smtpd_hard_error_limit).
 */
import type net from "node:net";
import type { Phase } from "../smtp/phases.js";
import { enhancedCode, ReplyParser } from "../smtp/reply-parser.js";
import { openTransport, type TlsSettings, upgradeToTls } from "./secure.js";
import { transportFailure } from "./transport.js";

/** A reply, or a failure without one: `code` 0 and `reply` naming it (refused, timeout, …). */
export interface ProbeReply {
  code: number;
  /**
   * The code as text ("421"), or the failure: "refused", "reset", "timeout", "closed",
   * "local-limit" (this machine ran out of file descriptors or ports), or "interrupted" (a signal
   * ended the wait; the connection stays open for its QUIT).
   */
  reply: string;
  enhanced: string;
  /** The first line's text without code and enhanced code. */
  text: string;
  /** Every line's text (after the code and separator): an EHLO reply's capabilities. */
  lines: string[];
}

export class ProbeConnection {
  private readonly parser: ReplyParser;
  private waiting: ((reply: ProbeReply) => void) | null = null;
  private queued: ProbeReply[] = [];
  private ended: ProbeReply | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** How far the connection got: connect, the TLS handshake (implicit TLS), then the banner. */
  private reached: "connect" | "tls" | "banner" = "connect";
  /** A reply came: the banner at least, so a QUIT is no early talk (RFC 5321 §4.3.1). */
  private heard = false;

  private constructor(
    private socket: net.Socket,
    private readonly timeoutMs: number,
  ) {
    this.parser = new ReplyParser({
      onReply: (code, lines) => {
        this.heard = true;
        const first = lines?.[0] ?? "";
        const enhanced = enhancedCode(first);
        const text = (enhanced ? first.slice(enhanced.length) : first).trim();
        this.deliver({ code, reply: String(code), enhanced, text, lines: lines ?? [] });
      },
      onProtocolError: (reason) => this.end(failure("protocol", reason)),
    });
    this.parser.keepText(true);
    this.watch(socket);
  }

  /**
   * Connects (with `tls: "implicit"`, through the TLS handshake) and reads the banner; the
   * connection is open when the banner is a 220. `opened` gets the connection before its
   * banner, so that a hard stop can close it while it waits.
   */
  static async open(
    settings: TlsSettings,
    timeoutMs: number,
    opened: (connection: ProbeConnection) => void = () => {},
  ): Promise<{ connection: ProbeConnection; banner: ProbeReply; phase: Phase }> {
    let connection: ProbeConnection | null = null;
    const socket = openTransport(settings, (buf, length) => connection?.parser.push(buf, length));
    const conn = new ProbeConnection(socket, timeoutMs);
    connection = conn;
    opened(conn);
    const implicit = settings.tls === "implicit";
    socket.once("connect", () => {
      conn.reached = implicit ? "tls" : "banner";
    });
    if (implicit) {
      socket.once("secureConnect", () => {
        conn.reached = "banner";
      });
    }
    const banner = await conn.next();
    // A reply, or a failure once connected (a banner timeout, an over-long banner), is the
    // banner's; a failure before is the connect's (or the TLS handshake's).
    const phase: Phase = banner.code !== 0 ? "banner" : conn.reached;
    return { connection: conn, banner, phase };
  }

  /**
   * STARTTLS (RFC 3207): its reply, and on a 220 the handshake; a handshake that fails or does
   * not finish in time is a reply "tls". Whatever the server sent before it is dropped (§5).
   */
  async startTls(security: TlsSettings): Promise<ProbeReply> {
    const reply = await this.command("STARTTLS");
    if (reply.code !== 220) return reply;
    this.parser.reset();
    this.queued = [];
    const secure = upgradeToTls(this.socket, security, (buf, length) =>
      this.parser.push(buf, length),
    );
    this.socket = secure;
    this.watch(secure);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(failure("tls", `no TLS handshake within ${this.timeoutMs} ms`));
        this.close();
      }, this.timeoutMs);
      secure.once("secureConnect", () => {
        clearTimeout(timer);
        resolve(reply);
      });
      secure.once("error", (error) => {
        clearTimeout(timer);
        resolve(failure("tls", error.message));
      });
    });
  }

  /** Writes one command line (CRLF added) and waits for its reply. */
  command(line: string): Promise<ProbeReply> {
    return this.send(Buffer.from(`${line}\r\n`, "latin1"));
  }

  /** Writes raw bytes (a message and its final dot) and waits for one reply. */
  send(bytes: Buffer): Promise<ProbeReply> {
    if (this.queued.length > 0) {
      // Lock-step: a reply that came before this was written answers nothing (a server that
      // says 250 to a message it has not seen): the connection is out of step.
      const early = this.queued[0];
      this.queued = [];
      this.end(failure("protocol", `reply ${early.reply} came before the command it would answer`));
    }
    if (this.ended === null) this.socket.write(bytes);
    return this.next();
  }

  /**
   * QUIT, its reply (or none within the timeout), then the connection is closed. Before the
   * banner nothing may be sent: the connection is only closed.
   */
  async quit(): Promise<void> {
    if (this.ended === null && this.heard) await this.command("QUIT");
    this.close();
  }

  /** Ends a wait for a reply now with the failure "interrupted"; the connection stays open. */
  interrupt(): void {
    if (this.waiting) this.deliver(failure("interrupted", "stopped by a signal"));
  }

  close(): void {
    this.end(failure("closed", "closed by the probe"));
    this.socket.destroy();
  }

  private watch(socket: net.Socket): void {
    socket.on("error", (error: NodeJS.ErrnoException) =>
      // This machine's own limits (out of descriptors or ports) come back as "local-limit",
      // the same name a run's error rows use, not as the gateway's refusal.
      this.end(failure(transportFailure(error.code), error.message)),
    );
    socket.on("close", () => this.end(failure("closed", "the server closed the connection")));
  }

  private next(): Promise<ProbeReply> {
    const ready = this.queued.shift() ?? this.ended;
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.timer = setTimeout(
        () => this.end(failure("timeout", `no reply within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
  }

  private deliver(reply: ProbeReply): void {
    const waiting = this.waiting;
    if (!waiting) {
      this.queued.push(reply);
      return;
    }
    this.waiting = null;
    if (this.timer) clearTimeout(this.timer);
    waiting(reply);
  }

  /** From now on every wait gets `reason`; the first one waiting gets it now. */
  private end(reason: ProbeReply): void {
    if (this.ended !== null) return;
    this.ended = reason;
    if (this.waiting) this.deliver(reason);
    this.socket.destroy();
  }
}

function failure(reply: string, text: string): ProbeReply {
  return { code: 0, reply, enhanced: "", text, lines: [] };
}
