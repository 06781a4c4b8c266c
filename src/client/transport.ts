/**
 * Opening the byte stream a session speaks over. Kept apart from the session so that implicit
 * TLS and STARTTLS (node:tls over the same socket) slot in without touching the SMTP logic.
 */
import net from "node:net";
import type { Target } from "../config/parse.js";

export function openConnection(target: Target): net.Socket {
  const socket =
    target.kind === "unix"
      ? net.connect({ path: target.path })
      : net.connect({ host: target.host, port: target.port });
  // Pipelined groups are written whole; Nagle would only add delay between them.
  socket.setNoDelay(true);
  return socket;
}

/** The error row's `reply` for a socket error without an SMTP reply. */
export function transportFailure(code: string | undefined): string {
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
