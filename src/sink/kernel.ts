/**
 * What the Linux kernel says about the sink's listen queues. A connection that arrives while
 * the accept queue (the listen backlog, capped by net.core.somaxconn) is full is dropped or
 * left waiting by the kernel, unseen by the sink: the client waits for a banner that never
 * comes. The kernel counts those per machine, not per socket.
 */
import { readFileSync } from "node:fs";

/** The default backlog: thousands of sessions connecting at once, as Postfix smtp-sink allows. */
export const DEFAULT_BACKLOG = 4096;

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** net.core.somaxconn, the kernel's cap on any listen backlog; null where it cannot be read. */
export function somaxconn(path = "/proc/sys/net/core/somaxconn"): number | null {
  const text = readText(path)?.trim();
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : null;
}

/**
 * TcpExt ListenOverflows from /proc/net/netstat: connections this machine dropped because an
 * accept queue was full, on any listening socket. null where it cannot be read.
 */
export function listenOverflows(path = "/proc/net/netstat"): number | null {
  const lines = readText(path)?.split("\n") ?? [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i].startsWith("TcpExt:") || !lines[i + 1].startsWith("TcpExt:")) continue;
    const names = lines[i].trim().split(/\s+/);
    const values = lines[i + 1].trim().split(/\s+/);
    const at = names.indexOf("ListenOverflows");
    if (at > 0 && /^\d+$/.test(values[at] ?? "")) return Number(values[at]);
  }
  return null;
}
