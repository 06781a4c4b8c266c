/**
 * Postfix smtp-sink, spawned on a loopback port of its own; `stop()` returns smtp-sink's own
 * message and session counts, so a test can check the client's figures against the peer's.
 */
import { spawn } from "node:child_process";
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitExit } from "./child.js";
import {
  executable,
  freePort,
  HOST,
  once,
  type Peer,
  type PeerCounts,
  quitProbe,
  waitFor,
} from "./peer.js";

export const SMTP_SINK = "/usr/sbin/smtp-sink";

export function havePostfix(): boolean {
  return executable(SMTP_SINK);
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
export async function startPostfixSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSinkPeer> {
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

/**
 * A running smtp-sink; `log()` is what it wrote to stderr (with -v: each command it read), all
 * of it once stop() has returned.
 */
export interface SmtpSinkPeer extends Peer {
  log(): Promise<string>;
}

async function spawnSmtpSink(port: number, opts: SmtpSinkOptions): Promise<SmtpSinkPeer | string> {
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
  const stderrEnded = new Promise<void>((resolve) => child.stderr?.once("close", resolve));
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
    log: async () => {
      if (exited) await stderrEnded;
      return stderr;
    },
  };
}
