/**
 * Real third-party SMTP servers for interop tests, each on a loopback port of its own:
 * Postfix smtp-sink (spawned), aiosmtpd (spawned under /usr/bin/python3) and the npm
 * smtp-server package (in-process). Every helper resolves only once the server accepts
 * connections, and `stop()` returns the server's own message count, so a test can check the
 * client's figures against the peer's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
} from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

export const SMTP_SINK = "/usr/sbin/smtp-sink";
export const SMTP_SOURCE = "/usr/sbin/smtp-source";
export const SWAKS = "/usr/bin/swaks";
/** Debian's interpreter: the `python3` on PATH may be a pyenv without python3-aiosmtpd. */
export const SYSTEM_PYTHON = "/usr/bin/python3";

const HOST = "127.0.0.1";

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

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let aiosmtpdPresent: boolean | undefined;

export function havePostfix(): boolean {
  return executable(SMTP_SINK);
}

export function haveSmtpSource(): boolean {
  return executable(SMTP_SOURCE);
}

export function haveSwaks(): boolean {
  return executable(SWAKS);
}

export async function haveAiosmtpd(): Promise<boolean> {
  if (aiosmtpdPresent === undefined) {
    aiosmtpdPresent =
      executable(SYSTEM_PYTHON) &&
      (await new Promise<boolean>((resolve) => {
        const child = spawn(SYSTEM_PYTHON, ["-c", "import aiosmtpd.smtp"], { stdio: "ignore" });
        child.on("error", () => resolve(false));
        child.on("exit", (code) => resolve(code === 0));
      }));
  }
  return aiosmtpdPresent;
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

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

/** Waits until a child exits (or has exited), killing it with SIGKILL after `graceMs`. */
function waitExit(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export interface SmtpSinkOptions {
  /** Extra smtp-sink flags (for example `["-p"]` for no PIPELINING, `["-Q", "MAIL"]`). */
  args?: string[];
  /** listen(2) backlog; default 1024. */
  backlog?: number;
}

interface SinkCounter {
  sess: number;
  quit: number;
  mesg: number;
}

// Only complete lines count: a read may catch a line half written.
const SINK_COUNTER = /sess=(\d+) quit=(\d+) mesg=(\d+)\r/g;

/** The last complete counter line in the tail of smtp-sink's output file. */
function readSinkCounter(fd: number): SinkCounter {
  const size = fstatSync(fd).size;
  const tail = Buffer.alloc(Math.min(size, 256));
  readSync(fd, tail, 0, tail.length, size - tail.length);
  return lastSinkCounter(tail.toString("latin1"));
}

function lastSinkCounter(output: string): SinkCounter {
  let last: SinkCounter = { sess: 0, quit: 0, mesg: 0 };
  for (const m of output.matchAll(SINK_COUNTER)) {
    last = { sess: Number(m[1]), quit: Number(m[2]), mesg: Number(m[3]) };
  }
  return last;
}

/**
 * Postfix smtp-sink on a free loopback port, with `-c`: it prints `sess=N quit=N mesg=N` then a
 * CR whenever a session ends, a QUIT is executed or a final dot is received. Its output goes to
 * a file, not a pipe: a pipe that the test process is too busy to drain would stall smtp-sink
 * (and with it the run under test) once 64 KiB of counter lines are queued. `stop()` first runs
 * a QUIT probe and waits for the line its session end produces, so every message acknowledged
 * before the stop is in the count, then terminates smtp-sink.
 */
export async function startPostfixSmtpSink(opts: SmtpSinkOptions = {}): Promise<Peer> {
  let lastError = "";
  for (let attempt = 0; attempt < 10; attempt++) {
    const port = await freePort();
    const started = await spawnSmtpSink(port, opts);
    if (typeof started !== "string") return started;
    lastError = started;
    if (!/in use/i.test(started)) break;
  }
  throw new Error(`smtp-sink did not start: ${lastError}`);
}

async function spawnSmtpSink(port: number, opts: SmtpSinkOptions): Promise<Peer | string> {
  // smtp-sink refuses to run as root without -u ("-u option is required if running as root").
  const user = process.getuid?.() === 0 ? ["-u", "nobody"] : [];
  const args = [
    ...user,
    "-c",
    ...(opts.args ?? []),
    `${HOST}:${port}`,
    String(opts.backlog ?? 1024),
  ];
  const dir = mkdtempSync(join(tmpdir(), "mailvolley-smtp-sink-"));
  const out = openSync(join(dir, "counter"), "w+");
  const cleanup = () => {
    closeSync(out);
    rmSync(dir, { recursive: true, force: true });
  };
  const counter = () => readSinkCounter(out);
  const child = spawn(SMTP_SINK, args, { stdio: ["ignore", out, "pipe"] });
  let stderr = "";
  let exited = false;
  child.stderr?.setEncoding("latin1").on("data", (s: string) => {
    stderr += s;
  });
  child.on("exit", () => {
    exited = true;
  });
  child.on("error", (err) => {
    exited = true;
    stderr += String(err);
  });
  let probes = 0;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) {
      cleanup();
      return stderr.trim() || "exited";
    }
    const ok = await quitProbe(port);
    if (ok) {
      probes++;
      break;
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await waitExit(child);
      cleanup();
      return `not accepting connections on port ${port}: ${stderr.trim()}`;
    }
    await sleep(20);
  }
  // The readiness probe's session end shows up as a counter line; wait for it so that it
  // cannot land after the baseline.
  await waitFor(() => counter().sess >= probes, 2000);

  const stop = async (): Promise<PeerCounts> => {
    if (!exited) {
      const before = counter().sess;
      if (await quitProbe(port)) {
        probes++;
        await waitFor(() => counter().sess > before, 2000);
      }
      child.kill("SIGTERM");
      await waitExit(child);
    }
    const last = counter();
    cleanup();
    return { messages: last.mesg, sessions: Math.max(0, last.sess - probes) };
  };
  return {
    host: HOST,
    port,
    stop: once(stop),
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

export interface AiosmtpdOptions {
  /** Use aiosmtpd's LMTP class (LHLO) instead of SMTP. */
  lmtp?: boolean;
  /** Keyword arguments for aiosmtpd.smtp.SMTP (`hostname`, `data_size_limit`, ...). */
  smtpKwargs?: Record<string, unknown>;
  /** Keep every envelope (from, recipients, size) and return it from stop(). */
  recordEnvelopes?: boolean;
  /** Reply to the final dot; default "250 2.0.0 Ok: queued". */
  dataReply?: string;
}

export interface AiosmtpdEnvelope {
  from: string;
  to: string[];
  size: number;
}

export interface AiosmtpdCounts extends PeerCounts {
  sessions: number;
  envelopes: AiosmtpdEnvelope[];
}

export interface AiosmtpdPeer extends Peer {
  stop(): Promise<AiosmtpdCounts>;
  /** Asks the running server for its counts without stopping it. */
  counts(): Promise<AiosmtpdCounts>;
}

/**
 * aiosmtpd's SMTP class on an ephemeral port, driven by a handler that counts messages.
 * Line protocol: it prints one JSON object `{"port": n}` when listening; each line on stdin
 * ("count" or "stop") gets one JSON line with the counts; "stop" or EOF ends the process.
 */
const AIOSMTPD_SINK = `
import asyncio, json, os, sys
from aiosmtpd.smtp import SMTP
from aiosmtpd.lmtp import LMTP

cfg = json.loads(sys.argv[1])
state = {"messages": 0, "sessions": 0, "envelopes": []}

class Handler:
    async def handle_DATA(self, server, session, envelope):
        state["messages"] += 1
        if cfg.get("record"):
            content = envelope.original_content or envelope.content or b""
            state["envelopes"].append(
                {"from": envelope.mail_from, "to": list(envelope.rcpt_tos), "size": len(content)})
        return cfg.get("dataReply") or "250 2.0.0 Ok: queued"

handler = Handler()
cls = LMTP if cfg.get("lmtp") else SMTP

def factory():
    state["sessions"] += 1
    return cls(handler, **cfg.get("kwargs", {}))

def emit():
    sys.stdout.write(json.dumps(state) + "\\n")
    sys.stdout.flush()

async def main():
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    server = await loop.create_server(factory, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sys.stdout.write(json.dumps({"port": port}) + "\\n")
    sys.stdout.flush()
    pending = b""
    def on_stdin():
        nonlocal pending
        data = os.read(0, 4096)
        if not data:
            if not done.done():
                done.set_result(None)
            return
        pending += data
        while b"\\n" in pending:
            line, pending = pending.split(b"\\n", 1)
            emit()
            if line.strip() == b"stop" and not done.done():
                done.set_result(None)
    loop.add_reader(0, on_stdin)
    await done
    loop.remove_reader(0)
    server.close()

asyncio.run(main())
`;

export async function startAiosmtpd(opts: AiosmtpdOptions = {}): Promise<AiosmtpdPeer> {
  const cfg = {
    lmtp: opts.lmtp ?? false,
    kwargs: opts.smtpKwargs ?? {},
    record: opts.recordEnvelopes ?? false,
    dataReply: opts.dataReply ?? "",
  };
  const child = spawn(SYSTEM_PYTHON, ["-c", AIOSMTPD_SINK, JSON.stringify(cfg)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  const lines: string[] = [];
  const waiters: ((line: string | null) => void)[] = [];
  let partial = "";
  let exited = false;
  child.stdout.setEncoding("utf8").on("data", (s: string) => {
    partial += s;
    let nl = partial.indexOf("\n");
    while (nl !== -1) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
      nl = partial.indexOf("\n");
    }
  });
  const onGone = () => {
    exited = true;
    for (const waiter of waiters.splice(0)) waiter(null);
  };
  child.on("exit", onGone);
  child.on("error", (err) => {
    stderr += String(err);
    onGone();
  });
  const nextLine = (): Promise<string | null> => {
    const line = lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (exited) return Promise.resolve(null);
    return new Promise((resolve) => waiters.push(resolve));
  };

  let startTimer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    nextLine(),
    new Promise<null>((resolve) => {
      startTimer = setTimeout(() => resolve(null), 15_000);
    }),
  ]);
  clearTimeout(startTimer);
  if (first === null) {
    child.kill("SIGKILL");
    throw new Error(`aiosmtpd did not start: ${stderr.trim() || "no port reported"}`);
  }
  const { port } = JSON.parse(first) as { port: number };

  const ask = async (command: "count" | "stop"): Promise<AiosmtpdCounts> => {
    if (exited) throw new Error(`aiosmtpd exited early: ${stderr.trim()}`);
    child.stdin.write(`${command}\n`);
    const line = await nextLine();
    if (line === null) throw new Error(`aiosmtpd exited early: ${stderr.trim()}`);
    return JSON.parse(line) as AiosmtpdCounts;
  };
  const stop = async () => {
    const counts = await ask("stop");
    child.stdin.end();
    await waitExit(child);
    return counts;
  };
  return {
    host: HOST,
    port,
    counts: () => ask("count"),
    stop: once(stop),
  };
}

export interface SmtpServerPeer extends Peer {
  /** Messages accepted so far. */
  messages(): number;
  /** Sessions opened so far. */
  sessions(): number;
  /** The SMTPServer instance, for tests that want to inspect it. */
  server: SMTPServer;
  stop(): Promise<PeerCounts & { sessions: number }>;
}

export interface SmtpServerPeerOptions extends SMTPServerOptions {
  /**
   * Decides the reply to each message's data: return an Error (its `responseCode` is used) to
   * reject it; the default accepts everything.
   */
  verdict?: (index: number) => Error | null;
}

/**
 * The npm smtp-server package in-process on an ephemeral loopback port. Defaults suit load
 * tests: no AUTH, no STARTTLS, no logging, a high client limit; any option passes through.
 */
export async function startSmtpServer(opts: SmtpServerPeerOptions = {}): Promise<SmtpServerPeer> {
  const { verdict, ...options } = opts;
  let messages = 0;
  let sessions = 0;
  let seen = 0;
  const server = new SMTPServer({
    disabledCommands: ["AUTH", "STARTTLS"],
    authOptional: true,
    logger: false,
    hideSTARTTLS: true,
    maxClients: 100_000,
    ...options,
    onConnect(session, callback) {
      sessions++;
      if (options.onConnect) options.onConnect(session, callback);
      else callback();
    },
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        const error = verdict ? verdict(seen++) : null;
        if (error) return callback(error);
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded) {
          const tooBig = Object.assign(new Error("Message exceeds fixed size limit"), {
            responseCode: 552,
          });
          return callback(tooBig);
        }
        messages++;
        callback(null, "Ok: queued");
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, HOST, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.server.address() as net.AddressInfo;
  const stop = async () => {
    // close() waits for open sessions (up to closeTimeout); end them now instead.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const connection of server.connections) {
      (connection as unknown as { _socket?: net.Socket })._socket?.destroy();
    }
    await closed;
    return { messages, sessions };
  };
  return {
    host: HOST,
    port,
    server,
    messages: () => messages,
    sessions: () => sessions,
    stop: once(stop),
  };
}
