/**
 * TLS and AUTH for the client: implicit TLS (port 465 style), the STARTTLS upgrade of a plain
 * connection (RFC 3207), and the AUTH exchanges (RFC 4954: PLAIN with an initial response, one
 * round trip; LOGIN, three). The session decides when; this module knows how.
 */
import type net from "node:net";
import tls from "node:tls";
import type { Capabilities } from "../smtp/capabilities.js";
import type { Endpoint, SecurityOptions, TlsSettings } from "./run-interfaces.js";
import { type BytesHandler, openConnection } from "./transport.js";
import { unnamed } from "./unnamed.js";

export type { TlsSettings } from "./run-interfaces.js";

/**
 * The connection a session starts with. Plain sessions read through the shared buffer; sessions
 * that will speak TLS use the stream interface, which node:tls needs to take the socket over.
 * `resumption`: the session's TLS options, worked out once, and its ticket; without it (the
 * probe's one connection) they are worked out here.
 */
export function openTransport(
  config: TlsSettings,
  onBytes: BytesHandler,
  localAddress?: string,
  resumption?: TlsResumption,
): net.Socket {
  const target = config.target!;
  if (config.tls === "none") return openConnection(target, onBytes, localAddress);
  let socket: net.Socket;
  if (config.tls === "implicit") {
    const options = resumption?.options() ?? tlsOptions(config);
    // node:tls hands localAddress on to net.connect; its type does not list it.
    Object.assign(options, tcpOrPath(target), { localAddress });
    const secure = tls.connect(options);
    resumption?.watch(secure);
    socket = secure;
  } else {
    socket = openConnection(target, null, localAddress);
  }
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

function secureContext(): tls.SecureContext {
  clientContext ??= tls.createSecureContext();
  return clientContext;
}

/** The name sent (SNI) and checked: --tls-servername, or the target's host name; none for an IP. */
function servernameOf(config: TlsSettings): string | undefined {
  const target = config.target!;
  const host = target.kind === "tcp" ? target.host : undefined;
  return config.tlsServername ?? (host && !/^[\d.:]+$/.test(host) ? host : undefined);
}

/** tls.connect's options: the shared context, the name, whether to verify, a session to offer. */
function connectOptions(
  servername: string | undefined,
  verify: boolean,
  session?: Buffer,
): tls.ConnectionOptions {
  return { secureContext: secureContext(), servername, rejectUnauthorized: verify, session };
}

function tlsOptions(config: TlsSettings): tls.ConnectionOptions {
  return connectOptions(servernameOf(config), config.tlsVerify);
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
  const options = resumption?.options() ?? tlsOptions(config);
  options.socket = raw;
  const secure = tls.connect(options);
  resumption?.watch(secure);
  // No setNoDelay here: the plain socket connected with TCP_NODELAY, and the TLS socket, not
  // knowing that, would set it again, one setsockopt(2) a connection.
  secure.on("data", (chunk: Buffer) => onBytes(chunk, chunk.length));
  return secure;
}

/**
 * A session's TLS client side: the options its connections give tls.connect, worked out once
 * (the name to send and check, the shared context), and the TLS session it offers on its next
 * connection: a bulk MTA's session cache, one per session of the run (and so per target, per
 * worker thread, per shard). Kept per session, not shared by the thread's sessions, so that the
 * counts do not depend on timing: each session's first connection is a full handshake and every
 * later one offers the ticket its previous connection received. TLS 1.3 tickets arrive after
 * the handshake (RFC 8446 §4.6.1); servers send them before their first reply (OpenSSL, Node),
 * so by the time the previous connection's QUIT is answered its ticket is here, whatever the
 * load.
 */
export class TlsResumption {
  private ticket: Buffer | undefined;
  private readonly servername: string | undefined;
  private readonly verify: boolean;
  /** The 'session' listener, one for all of the session's connections. */
  private readonly keep = unnamed((session: Buffer): void => {
    this.ticket = session;
  });

  constructor(
    config: TlsSettings,
    private readonly enabled: boolean,
  ) {
    this.servername = config.tls === "none" ? undefined : servernameOf(config);
    this.verify = config.tlsVerify;
  }

  /** tls.connect's options for the next connection: the last ticket offered, or none (full). */
  options(): tls.ConnectionOptions {
    return connectOptions(this.servername, this.verify, this.ticket);
  }

  /** Keeps every ticket or session the server gives this connection; the newest wins. */
  watch(socket: tls.TLSSocket): void {
    if (this.enabled) socket.on("session", this.keep);
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
