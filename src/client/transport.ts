/**
 * Opening the byte stream a session speaks over. Kept apart from the session so that implicit
 * TLS and STARTTLS (node:tls over the same socket) slot in without touching the SMTP logic.
 */
import net from "node:net";
import tls from "node:tls";
import type { Failure } from "../stats/errors.js";
import type { Endpoint } from "./run-interfaces.js";
import { unnamed } from "./unnamed.js";

/**
 * One read buffer for every connection on this thread. Node reads into it and hands the bytes
 * to `onBytes` synchronously, before the next read, so sharing is safe as long as the consumer
 * copies what it keeps (the reply parser copies only a line split across reads). This skips the
 * Readable stream machinery and a Buffer allocation per read: about 1.5 µs a message.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * Takes the bytes read, `buf[0, length)`: from the shared buffer, without a Buffer made per
 * read, or a 'data' event's chunk whole. Bytes past `length` belong to no one.
 */
export type BytesHandler = (buf: Buffer, length: number) => void;

/**
 * A plain connection to `target`. With `onBytes` it reads through the shared buffer; with null
 * it keeps the stream interface ('data' events), which a later STARTTLS upgrade needs.
 */
export function openConnection(
  target: Endpoint,
  onBytes: BytesHandler | null,
  localAddress?: string,
): net.Socket {
  const onread = onBytes
    ? {
        buffer: READ_BUFFER,
        // true: keep reading (false would pause the socket).
        callback: unnamed((nread: number, buf: Buffer): boolean => {
          onBytes(buf, nread);
          return true;
        }),
      }
    : undefined;
  if (target.kind === "unix") return net.connect({ path: target.path, onread });
  // Pipelined groups are written whole; Nagle would only add delay between them. Given here,
  // TCP_NODELAY is set as the socket connects, without a call on the new socket.
  const { host, port } = target;
  return net.connect({ host, port, onread, localAddress, noDelay: true });
}

/**
 * The next connection to `target` on a Socket whose last one is closed: Node reconnects a
 * Socket after its 'close' (net docs, socket.connect()), with a new handle and the stream states
 * undone (initSocketHandle), keeping the listeners, the read buffer and its callback, and
 * TCP_NODELAY. Constructing a Socket costs more user CPU than the rest of a connection's
 * JavaScript: about 20 µs, mostly inline-cache misses in the constructors of Socket and its
 * stream states.
 */
export function reconnect(socket: net.Socket, target: Endpoint, localAddress?: string): net.Socket {
  if (target.kind === "unix") return socket.connect({ path: target.path });
  return socket.connect({ host: target.host, port: target.port, localAddress });
}

/**
 * Ends a connection whose QUIT was answered (RFC 5321 §4.1.1.10: the session is over) with a
 * reset, SO_LINGER 0, as Postfix smtp-source closes: the client keeps no TIME_WAIT. Closed with a
 * FIN, a connection per message at 1,000 a second from one address holds every ephemeral port
 * (28,232 on Linux) in TIME_WAIT within half a minute, and connects then fail with EADDRNOTAVAIL
 * or slow down searching for a port: the run's rate would be the client's, not the gateway's.
 * TLS and Unix-domain sockets, whose handles cannot reset, are destroyed. `target` says which
 * kind of socket this is: asking the socket (`remotePort`) costs a getpeername(2) per connection.
 * Returns whether the socket may carry a next connection (reconnect): not a TLS one, which wraps
 * its own, nor one that still holds writes.
 */
export function closeAnswered(socket: net.Socket, target: Endpoint): boolean {
  const secure = socket instanceof tls.TLSSocket;
  const reusable = !secure && socket.writableLength === 0;
  if (secure || target.kind === "unix") socket.destroy();
  else socket.resetAndDestroy();
  return reusable;
}

/**
 * Errors that are this machine's limits, not the network's or the server's: the one list the
 * run's sessions and the probe classify socket errors by (reply "local-limit").
 */
const LOCAL_LIMITS: Readonly<Record<string, string>> = {
  EMFILE: "this process is out of file descriptors; raise ulimit -n or give fewer sessions",
  ENFILE: "the system is out of file descriptors (fs.file-max); give fewer sessions",
  EADDRNOTAVAIL: "no local address or port free; check --source, or give fewer sessions",
  ENOBUFS: "the system is out of socket buffers; give fewer sessions",
  ENOMEM: "the system is out of memory for sockets; give fewer sessions",
};

/** The error row's text for a socket error: this machine's limits say so and how to fix them. */
export function socketErrorText(err: NodeJS.ErrnoException): string {
  const local = LOCAL_LIMITS[err.code ?? ""];
  return local ? `local limit, not the server: ${err.code} (${local})` : err.message;
}

/** The error row's `reply` for a socket error without an SMTP reply. */
export function transportFailure(code: string | undefined): Failure {
  if (code !== undefined && Object.hasOwn(LOCAL_LIMITS, code)) return "local-limit";
  switch (code) {
    case "ECONNREFUSED":
      return "refused";
    case "ECONNRESET":
    case "EPIPE":
      return "reset";
    case "ETIMEDOUT":
      return "timeout";
    default:
      return "socket";
  }
}
