/**
 * The sinks the benchmarks load, each its own process so that its CPU can be read from /proc
 * and kept apart from the generator's: Postfix smtp-sink, and mailvolley's built-in sink
 * (bench/sink-process.ts). Both on loopback, on a port of their own.
 */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { waitExit } from "../../test/helpers/child.js";

export const SMTP_SINK = "/usr/sbin/smtp-sink";
export const SMTP_SOURCE = "/usr/sbin/smtp-source";
const HOST = "127.0.0.1";

export interface SinkProcess {
  readonly name: "smtp-sink" | "builtin-sink";
  readonly port: number;
  readonly pid: number;
  /** False once the process has exited (a crashed or killed sink). */
  alive(): boolean;
  /** What the sink wrote on stderr so far. */
  stderr(): string;
  /** Messages the sink itself counted (built-in sink only; smtp-sink runs without -c). */
  stop(): Promise<number | null>;
}

/** Options for spawning a sink: CPU pinning and a raised descriptor limit. */
export interface SpawnWrap {
  /** `taskset -c CPUS`; undefined: no pinning. */
  cpus?: string;
  /** `ulimit -n N` in a bash wrapper before exec; undefined: inherit. */
  nofile?: number;
}

/**
 * The command line with the optional wrappers: bash for `ulimit -n` (the soft limit may be
 * raised up to the hard limit without privileges), taskset for pinning. Both exec, so the pid
 * is the program's own.
 */
export function wrapCommand(command: string, args: string[], wrap: SpawnWrap): [string, string[]] {
  let cmd = command;
  let argv = args;
  if (wrap.cpus !== undefined) {
    argv = ["-c", wrap.cpus, cmd, ...argv];
    cmd = "taskset";
  }
  if (wrap.nofile !== undefined) {
    argv = ["-c", `ulimit -n ${wrap.nofile} && exec "$@"`, "bash", cmd, ...argv];
    cmd = "bash";
  }
  return [cmd, argv];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Connects, waits for a 220 banner, sends QUIT. */
function bannerProbe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, HOST);
    let seen = "";
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), 2000);
    socket.on("data", (chunk) => {
      seen += chunk.toString("latin1");
      if (seen.includes("\n")) {
        socket.end("QUIT\r\n");
        finish(seen.startsWith("220"));
      }
    });
    socket.on("error", () => finish(false));
  });
}

/**
 * Postfix smtp-sink with a listen backlog of 1024, without `-c`: its counter costs a write per
 * message, which would tax the very process the benchmarks want saturated. It serves at most
 * `maxConnections` sessions at once (`-m`, 256 unless raised); the sessions beyond it stay in
 * the kernel's queues, unserved, and time out at the client's connect phase. A bench holding
 * more sessions must raise it, or it measures those timeouts and their reconnects.
 */
export async function startSmtpSink(
  wrap: SpawnWrap = {},
  maxConnections?: number,
): Promise<SinkProcess> {
  const port = await freePort();
  // smtp-sink refuses to run as root without -u.
  const user = process.getuid?.() === 0 ? ["-u", "nobody"] : [];
  const most = maxConnections ? ["-m", String(maxConnections)] : [];
  const [cmd, args] = wrapCommand(SMTP_SINK, [...user, ...most, `${HOST}:${port}`, "1024"], wrap);
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("latin1").on("data", (s: string) => {
    stderr += s;
  });
  await waitReady(child, port, () => stderr);
  return {
    name: "smtp-sink",
    port,
    pid: child.pid!,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      await waitExit(child);
      return null;
    },
  };
}

async function waitReady(child: ChildProcess, port: number, why: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await bannerProbe(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`sink on port ${port} did not start: ${why().trim()}`);
    }
    await sleep(20);
  }
}

const SINK_PROCESS = fileURLToPath(new URL("../sink-process.js", import.meta.url));

/** mailvolley's built-in sink in a process of its own (bench/sink-process.ts). */
export async function startBuiltinSink(wrap: SpawnWrap = {}): Promise<SinkProcess> {
  const [cmd, args] = wrapCommand(process.execPath, [SINK_PROCESS], wrap);
  const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  const lines: string[] = [];
  let waiting: ((line: string) => void) | null = null;
  let partial = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => {
    partial += s;
    for (let nl = partial.indexOf("\n"); nl !== -1; nl = partial.indexOf("\n")) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(line);
      } else lines.push(line);
    }
  });
  const nextLine = (timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      if (lines.length > 0) return resolve(lines.shift()!);
      const timer = setTimeout(
        () => reject(new Error(`built-in sink silent: ${stderr}`)),
        timeoutMs,
      );
      waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  const { port } = JSON.parse(await nextLine(10_000)) as { port: number };
  return {
    name: "builtin-sink",
    port,
    pid: child.pid!,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    stop: async () => {
      child.stdin!.end("stop\n");
      let accepted: number | null = null;
      try {
        accepted = (JSON.parse(await nextLine(15_000)) as { messagesAccepted: number })
          .messagesAccepted;
      } catch {
        // a sink that does not answer is killed below; its count is unknown
      }
      await waitExit(child, 5000);
      return accepted;
    },
  };
}
