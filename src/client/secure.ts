/**
 * TLS and AUTH for the client: implicit TLS (port 465 style), the STARTTLS upgrade of a plain
 * connection (RFC 3207), and the AUTH exchanges (RFC 4954: PLAIN with an initial response, one
 * round trip; LOGIN, three). The session decides when; this module knows how.
 */
import type net from "node:net";
import tls from "node:tls";
import type { Capabilities } from "../smtp/capabilities.js";
import type { Endpoint, SecurityOptions, TlsSettings } from "./options.js";
import { type BytesHandler, openConnection } from "./transport.js";

export type { TlsSettings } from "./options.js";

/**
 * The connection a session starts with. Plain sessions read through the shared buffer; sessions
 * that will speak TLS use the stream interface, which node:tls needs to take the socket over.
 */
export function openTransport(
  config: TlsSettings,
  onBytes: BytesHandler,
  localAddress?: string,
  resumption?: TlsResumption,
): net.Socket {
  const target = config.target!;
  if (config.tls === "none") return openConnection(target, onBytes, localAddress);
  const socket =
    config.tls === "implicit"
      ? // node:tls hands localAddress on to net.connect; its type does not list it.
        tls.connect({
          ...tcpOrPath(target),
          ...tlsOptions(config, resumption?.offer),
          localAddress,
        } as tls.ConnectionOptions)
      : openConnection(target, null, localAddress);
  if (socket instanceof tls.TLSSocket) resumption?.watch(socket);
  socket.setNoDelay(true);
  socket.on("data", (chunk: Buffer) => onBytes(chunk, chunk.length));
  return socket;
}

function tcpOrPath(target: Endpoint): { host?: string; port?: number; path?: string } {
  return target.kind === "unix" ? { path: target.path } : { host: target.host, port: target.port };
}

/**
 * The client's TLS context, made once per thread and shared by every connection. Given no
 * context, tls.connect builds one per connection (parsing options, loading the root store into
 * a new OpenSSL SSL_CTX): about 200 µs of CPU, a sixth of what a connection per message costs
 * over STARTTLS. A bulk MTA sets up its TLS context once per process. The run's TLS options
 * (name checking, SNI, the session offered) are per connection and need nothing in the context.
 */
let clientContext: tls.SecureContext | null = null;

function tlsOptions(config: TlsSettings, session?: Buffer): tls.ConnectionOptions {
  const target = config.target!;
  const host = target.kind === "tcp" ? target.host : undefined;
  const servername = config.tlsServername ?? (host && !/^[\d.:]+$/.test(host) ? host : undefined);
  clientContext ??= tls.createSecureContext();
  return {
    secureContext: clientContext,
    servername,
    rejectUnauthorized: config.tlsVerify,
    session,
  };
}

/**
 * Wraps a plain connection after the 220 to STARTTLS. Whatever the server sent before the
 * handshake has already been dropped by the reply parser (RFC 3207 §5).
 */
export function upgradeToTls(
  raw: net.Socket,
  config: TlsSettings,
  onBytes: BytesHandler,
  resumption?: TlsResumption,
): tls.TLSSocket {
  raw.removeAllListeners("data");
  const secure = tls.connect({ socket: raw, ...tlsOptions(config, resumption?.offer) });
  resumption?.watch(secure);
  // No setNoDelay here: the plain socket connected with TCP_NODELAY, and the TLS socket, not
  // knowing that, would set it again, one setsockopt(2) a connection.
  secure.on("data", (chunk: Buffer) => onBytes(chunk, chunk.length));
  return secure;
}

/**
 * The TLS session a connection slot offers on its next connection: a bulk MTA's session cache,
 * one per session of the run (and so per target, per worker thread, per shard). Kept per
 * session, not shared by the thread's sessions, so that the counts do not depend on timing: each
 * session's first connection is a full handshake and every later one offers the ticket its
 * previous connection received. TLS 1.3 tickets arrive after the handshake (RFC 8446 §4.6.1);
 * servers send them before their first reply (OpenSSL, Node), so by the time the previous
 * connection's QUIT is answered its ticket is here, whatever the load.
 */
export class TlsResumption {
  private ticket: Buffer | undefined;

  constructor(private readonly enabled: boolean) {}

  /** What to offer now: the last ticket, or nothing (a full handshake). */
  get offer(): Buffer | undefined {
    return this.ticket;
  }

  /** Keeps every ticket or session the server gives this connection; the newest wins. */
  watch(socket: tls.TLSSocket): void {
    if (this.enabled) socket.on("session", (session: Buffer) => (this.ticket = session));
  }
}

export type AuthMechanism = "PLAIN" | "LOGIN";

/** The mechanism asked for, or PLAIN when offered (one round trip), else LOGIN; null: none fits. */
export function chooseMechanism(config: SecurityOptions, caps: Capabilities): AuthMechanism | null {
  const wanted = config.auth?.mechanism;
  if (wanted) return caps.auth.includes(wanted) ? wanted : null;
  if (caps.auth.includes("PLAIN")) return "PLAIN";
  if (caps.auth.includes("LOGIN")) return "LOGIN";
  return null;
}

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** RFC 4616: authorization identity (empty), authentication identity and password, NUL-separated. */
export function authPlainLine(user: string, pass: string): string {
  return `AUTH PLAIN ${b64(`\u0000${user}\u0000${pass}`)}\r\n`;
}

/** The two LOGIN answers, username then password, each base64 on its own line. */
export function authLoginAnswer(value: string): string {
  return `${b64(value)}\r\n`;
}
