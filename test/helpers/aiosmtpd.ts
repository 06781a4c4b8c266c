/**
 * aiosmtpd (Debian's python3-aiosmtpd) spawned under the system Python on an ephemeral loopback
 * port, as an SMTP or LMTP server whose handler counts (and may record) what it accepts.
 */
import { spawn } from "node:child_process";
import { waitExit } from "./child.js";
import { executable, HOST, once, type Peer, type PeerCounts } from "./peer.js";

/** Debian's interpreter: the `python3` on PATH may be a pyenv without python3-aiosmtpd. */
export const SYSTEM_PYTHON = "/usr/bin/python3";

let aiosmtpdPresent: boolean | undefined;

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
