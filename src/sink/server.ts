/**
 * The sink's listeners (TCP, implicit TLS, unix sockets), session bookkeeping, the emulated
 * connection limits at accept time, exit conditions and a clean close.
 */
import { rmSync } from "node:fs";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type SecureContext } from "node:tls";
import { UsageError } from "../usage/usage-error.js";
import type { ArrivalListener } from "./arrival-listener.js";
import { ChunkClock } from "./chunk-clock.js";
import { ClassCounter, type SinkCounters, type SinkStats, zeroSinkCounters } from "./counters.js";
import { MessageDumper } from "./dump.js";
import { EnvelopeLog } from "./envelope-log.js";
import { FaultInjector } from "./faults.js";
import type { FilledSinkOptions, ListenSpec } from "./filled-options.js";
import { HEADER_WINDOW } from "./headers.js";
import { listenOverflows } from "./kernel.js";
import { GatewayLimits } from "./limits.js";
import { buildReplies } from "./replies.js";
import type { SinkContext } from "./server-context.js";
import { SinkSession } from "./server-session.js";
import {
  SessionIdCache,
  secureContextOf,
  type TlsMaterial,
  tlsServerOptions,
} from "./tls-material.js";

/** Why `finished` resolved. */
export type SinkStopReason = "messages" | "sessions" | "idle";

export interface SinkAddress {
  host: string;
  port: number;
  path?: string;
}

/** How long close() lets sessions read their 421 before it destroys their sockets. */
const CLOSE_GRACE_MS = 500;

export class SinkServer {
  readonly addresses: SinkAddress[] = [];
  readonly finished: Promise<SinkStopReason>;
  private resolveFinished: (reason: SinkStopReason) => void = () => {};
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<SinkSession>();
  private readonly counters: SinkCounters = zeroSinkCounters();
  private readonly ctx: SinkContext;
  private readonly dumper: MessageDumper | null;
  private readonly envelopes: EnvelopeLog | null;
  private readonly limits: GatewayLimits;
  private readonly limitConnections: boolean;
  private sessionsEnded = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private closing: Promise<void> | null = null;
  private overflowsAtListen: number | null = null;

  constructor(
    private readonly options: FilledSinkOptions,
    private readonly tlsMaterial: TlsMaterial | null,
    private readonly receiver: ArrivalListener | null = null,
  ) {
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
    this.limits = new GatewayLimits(options);
    this.limitConnections =
      options.maxConnections > 0 ||
      options.maxConnectionsPerClient > 0 ||
      options.maxConnectionRate !== undefined;
    this.dumper = options.dump === undefined ? null : new MessageDumper(options.dump);
    this.envelopes =
      options.logEnvelopes === undefined ? null : openEnvelopeLog(options.logEnvelopes);
    this.ctx = this.context(
      tlsMaterial === null ? null : secureContextOf(tlsMaterial, options.tlsResume),
    );
  }

  private context(secureContext: SecureContext | null): SinkContext {
    const o = this.options;
    const dumper = this.dumper;
    return {
      options: o,
      replies: buildReplies(o),
      counters: this.counters,
      faults: new FaultInjector(o.faults, o.seed, o.enhancedStatusCodes),
      limits: this.limits,
      classes: o.classes ? new ClassCounter() : null,
      secureContext,
      tlsSessions: secureContext !== null && o.tlsResume ? new SessionIdCache() : null,
      keepBytes:
        dumper !== null
          ? Number.POSITIVE_INFINITY
          : o.classes || this.receiver !== null
            ? HEADER_WINDOW
            : 0,
      receiver: this.receiver,
      dump: (content, stuffed) => dumper?.write(content, stuffed),
      envelopes: this.envelopes,
      clock: new ChunkClock(),
      progress: () => this.progress(),
    };
  }

  stats(): SinkStats {
    return { ...this.counters, classes: this.ctx.classes?.snapshot() ?? {} };
  }

  /** Binds every listener; rejects (after closing what was bound) when one fails. */
  async listen(): Promise<void> {
    try {
      for (const spec of this.options.listen) await this.listenOne(spec);
    } catch (error) {
      await this.close();
      throw error;
    }
    if (this.options.idleExitMs > 0) this.watchIdle(this.options.idleExitMs);
    this.overflowsAtListen = listenOverflows();
  }

  /** Connections the kernel dropped on a full accept queue since listen(), machine-wide. */
  listenOverflows(): number | null {
    const now = listenOverflows();
    if (now === null || this.overflowsAtListen === null) return null;
    return now - this.overflowsAtListen;
  }

  private listenOne(spec: ListenSpec): Promise<void> {
    const server =
      spec.kind === "tls"
        ? createTlsServer(tlsServerOptions(this.tlsMaterial!, this.options.tlsResume))
        : createServer({ noDelay: true });
    if (spec.kind === "tls") this.ctx.tlsSessions?.serve(server);
    server.on("connection", (socket: Socket) => this.track(socket));
    server.on(spec.kind === "tls" ? "secureConnection" : "connection", this.acceptSession);
    if (spec.kind === "tls") server.on("tlsClientError", () => {});
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      const done = () => {
        server.removeListener("error", reject);
        const address = server.address();
        if (typeof address === "string" || address === null) {
          this.addresses.push({ host: "", port: 0, path: spec.path });
        } else {
          const info = address as AddressInfo;
          this.addresses.push({ host: info.address, port: info.port });
        }
        resolve();
      };
      const backlog = this.options.backlog;
      if (spec.kind === "unix") {
        rmSync(spec.path!, { force: true }); // a stale socket file from a killed sink
        server.listen(spec.path, backlog, done);
      } else server.listen(spec.port, spec.host, backlog, done);
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
  }

  /** Starts a session on a connected socket (listeners call it; tests pass scripted sockets). */
  readonly acceptSession = (socket: Socket): void => {
    socket.setNoDelay(true);
    socket.on("error", noop);
    if (this.counters.firstConnectMs === 0) this.counters.firstConnectMs = Date.now();
    if (this.closing !== null) {
      socket.destroy();
      return;
    }
    const client = socket.remoteAddress ?? "unix";
    if (this.limitConnections) {
      const refusal = this.limits.admit(client, Date.now());
      if (refusal !== null) {
        this.counters.connectionsRefused++;
        socket.end(refusal);
        setTimeout(() => socket.destroy(), 2000).unref();
        return;
      }
    }
    const session = new SinkSession(this.ctx, socket, client);
    this.sessions.add(session);
    this.counters.sessions++;
    this.counters.sessionsActive++;
    socket.once("close", () => {
      this.sessions.delete(session);
      session.dispose();
      this.counters.sessionsActive--;
      if (this.limitConnections) this.limits.release(client);
      this.sessionsEnded++;
      this.progress();
    });
    session.start();
  };

  private progress(): void {
    const o = this.options;
    if (o.exitAfterMessages > 0 && this.counters.messagesAccepted >= o.exitAfterMessages) {
      this.resolveFinished("messages");
    }
    if (o.exitAfterSessions > 0 && this.sessionsEnded >= o.exitAfterSessions) {
      this.resolveFinished("sessions");
    }
  }

  /** Resolves `finished` once nothing (sessions, commands, content) has happened for `ms`. */
  private watchIdle(ms: number): void {
    const c = this.counters;
    const fingerprint = () =>
      `${c.sessions}/${this.sessionsEnded}/${c.bytes}/${c.mailRejected}/${c.recipients}/${c.connectionsRefused}`;
    let last = fingerprint();
    let since = Date.now();
    this.idleTimer = setInterval(
      () => {
        const now = fingerprint();
        if (now !== last) {
          last = now;
          since = Date.now();
        } else if (Date.now() - since >= ms) {
          this.resolveFinished("idle");
        }
      },
      Math.max(10, Math.min(1000, ms / 4)),
    );
    this.idleTimer.unref();
  }

  /** Stops listening, says 421 to open sessions, resolves when every socket has closed. */
  dumpFailures(): { count: number; first: string } {
    return { count: this.dumper?.errors ?? 0, first: this.dumper?.firstError ?? "" };
  }

  /** --log-envelopes lines the file did not take (a full disk). */
  envelopeLogFailures(): { count: number; first: string } {
    return { count: this.envelopes?.errors ?? 0, first: this.envelopes?.firstError ?? "" };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.idleTimer !== null) clearInterval(this.idleTimer);
    const stopped = this.servers.map(
      (server) => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    for (const session of this.sessions) session.shutdown();
    const grace = setTimeout(() => {
      for (const socket of this.sockets) socket.destroy();
    }, CLOSE_GRACE_MS);
    const closed = [...this.sockets].map(
      (socket) => new Promise((resolve) => socket.once("close", resolve)),
    );
    await Promise.all([...stopped, ...closed]);
    clearTimeout(grace);
    await this.dumper?.settle();
    await this.envelopes?.close();
  }
}

function noop(): void {}

/** Opens the --log-envelopes file now: a path that cannot be written stops the sink's start. */
function openEnvelopeLog(path: string): EnvelopeLog {
  try {
    return new EnvelopeLog(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(
      "--log-envelopes",
      `cannot write "${path}" (${reason}); give a writable file path`,
    );
  }
}
