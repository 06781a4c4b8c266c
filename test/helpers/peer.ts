/**
 * What every test peer shares: the Peer shape, the skip-or-fail rule for a missing peer, a free
 * port, a readiness probe, and a stop that is safe to call twice. Each peer has a file of its own:
 * smtp-sink.ts, smtp-source.ts, swaks.ts, aiosmtpd.ts, smtp-server.ts, postfix-smtpd.ts.
 */
import { accessSync, constants } from "node:fs";
import net from "node:net";
import type { TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

export const HOST = "127.0.0.1";

export interface PeerCounts {
  /** Messages the peer accepted (its final reply to the data was 2xx). */
  messages: number;
  /** Sessions the peer saw end, not counting the helper's own readiness and stop probes. */
  sessions?: number;
}

export interface Peer {
  host: string;
  port: number;
  /** Stops the peer and returns its own counts. Safe to call twice. */
  stop(): Promise<PeerCounts>;
}

/** True when `path` exists and may be executed. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns true when the peer is available. When it is not, the test is skipped with a loud
 * reason, or fails when MAILVOLLEY_REQUIRE_PEERS=1 (CI, where a skip would hide a broken setup).
 *
 *   if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
 */
export function requirePeer(
  t: TestContext,
  name: string,
  available: boolean,
  install: string,
): boolean {
  if (available) return true;
  const reason = `${name} not installed: ${install}`;
  if (process.env.MAILVOLLEY_REQUIRE_PEERS === "1") {
    throw new Error(`${reason} (MAILVOLLEY_REQUIRE_PEERS=1 turns this skip into a failure)`);
  }
  process.stderr.write(`SKIPPED: ${reason}\n`);
  t.skip(reason);
  return false;
}

/** `run` on the first call; every later call gets the first call's promise (stop twice safely). */
export function once<T>(run: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | null = null;
  return () => {
    started ??= run();
    return started;
  };
}

/** A port that was free a moment ago: bind port 0 on loopback, read it, close. */
export function freePort(host = HOST): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `condition` until it holds (true) or `timeoutMs` passes (false). */
export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

/**
 * Opens a connection, reads the 220 banner, sends QUIT and waits for the server to close.
 * Resolves false when the connection fails (nobody listening yet) or no reply came.
 * `localAddress`: the loopback address to connect from (a gateway counts clients by it).
 */
export function quitProbe(
  port: number,
  host = HOST,
  timeoutMs = 5000,
  localAddress?: string,
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host, localAddress });
    let received = "";
    let sentQuit = false;
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (!sentQuit && /^220(?: .*)?\r?\n/m.test(received)) {
        sentQuit = true;
        socket.write("QUIT\r\n");
      }
    });
    socket.on("error", () => finish(false));
    // Any complete reply means the server is up, even a scripted 421 banner (smtp-sink -Q).
    socket.on("close", () => finish(received.includes("\n")));
  });
}
