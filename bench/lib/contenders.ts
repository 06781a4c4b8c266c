/**
 * The two generators the benchmarks alternate: Postfix smtp-source (timed from outside, since it
 * prints no timing) and mailvolley (bench/drive.ts, measured from inside). Each run reads the
 * sink's CPU from /proc over its window, so every sample says how busy the sink was.
 */
import { fileURLToPath } from "node:url";
import type { RawRunOptions } from "../../src/config/run-config.js";
import type { DriveOutcome, DriveSpec } from "../drive.js";
import { procCpuSeconds, runTimed } from "./proc.js";
import { type SinkProcess, SMTP_SOURCE, type SpawnWrap, wrapCommand } from "./sinks.js";

/** One timed run of either generator. */
export interface Sample {
  generator: "smtp-source" | "mailvolley" | "floor";
  messages: number;
  /** Messages the generator saw accepted (smtp-source: all of them when it exits 0). */
  accepted: number;
  messagesPerSecond: number;
  /** The interval the rate is computed over, seconds. */
  seconds: number;
  /** The sink's CPU over that interval: 1.0 is one core saturated. */
  sinkCpuFraction: number;
  /** mailvolley and floor: own CPU (user + system, every thread) per accepted message, µs. */
  cpuUsPerMessage?: number;
  cpuUserUsPerMessage?: number;
  cpuSystemUsPerMessage?: number;
  /** mailvolley only: the whole process's CPU (start-up included) per accepted message, µs. */
  cpuProcessUsPerMessage?: number;
  /** mailvolley only: from spawn to exit, including Node's start-up. */
  processWallSeconds?: number;
  maxRssBytes?: number;
  drive?: DriveOutcome;
}

/** A run that takes longer than this is killed and the benchmark fails loudly. */
const RUN_TIMEOUT_MS = 120_000;

/**
 * `smtp-source [-d] -s S -m M host:port`. `-d`: keep the connection for all of a session's
 * messages (reuse); without it, a connection per message. Rate = M / wall time of the process.
 */
export async function runSmtpSource(
  sink: SinkProcess,
  opts: { sessions: number; messages: number; reuse: boolean; wrap?: SpawnWrap },
): Promise<Sample> {
  const args = [
    ...(opts.reuse ? ["-d"] : []),
    "-s",
    String(opts.sessions),
    "-m",
    String(opts.messages),
    `127.0.0.1:${sink.port}`,
  ];
  const [cmd, argv] = wrapCommand(SMTP_SOURCE, args, opts.wrap ?? {});
  let sinkBefore = 0;
  const exited = await runTimed(cmd, argv, RUN_TIMEOUT_MS, () => {
    sinkBefore = procCpuSeconds(sink.pid);
  });
  const sinkCpu = procCpuSeconds(sink.pid) - sinkBefore;
  if (exited.code !== 0) {
    throw new Error(
      `smtp-source ${args.join(" ")} failed (${exited.timedOut ? "timed out" : `exit ${exited.code}`}): ${exited.stderr.trim()}`,
    );
  }
  const seconds = exited.wallMs / 1000;
  return {
    generator: "smtp-source",
    messages: opts.messages,
    accepted: opts.messages,
    messagesPerSecond: opts.messages / seconds,
    seconds,
    sinkCpuFraction: sinkCpu / seconds,
  };
}

// bench/drive.ts as scripts/bundle.mjs bundles it, the way the users' bundle is made: the
// bench measures minified, bundled code, as `mailvolley run` runs it.
const DRIVE = fileURLToPath(new URL("../bundle/drive.js", import.meta.url));

/** The bundled bench driver of another built tree (an export of an older commit, built). */
export function driveOf(tree: string): string {
  return `${tree.replace(/\/$/, "")}/dist/bench/bundle/drive.js`;
}

/**
 * One mailvolley run against the sink. Rate = accepted / the run's own elapsedSeconds (first
 * connect to last reply), the figure `mailvolley run` reports; Node's start-up (≈ 0.1–0.2 s) is
 * outside it and recorded separately as processWallSeconds.
 */
export async function runMailvolley(
  sink: SinkProcess | null,
  options: RawRunOptions,
  extra: { wrap?: SpawnWrap; checkpoints?: number[]; nodeFlags?: string[]; drive?: string } = {},
): Promise<Sample> {
  const spec: DriveSpec = {
    options: { ...options, target: sink ? `127.0.0.1:${sink.port}` : options.target },
    watchPid: sink?.pid,
    checkpoints: extra.checkpoints,
  };
  const [cmd, argv] = wrapCommand(
    process.execPath,
    [...(extra.nodeFlags ?? []), extra.drive ?? DRIVE, JSON.stringify(spec)],
    extra.wrap ?? {},
  );
  const exited = await runTimed(cmd, argv, RUN_TIMEOUT_MS);
  const line = exited.stdout.trim().split("\n").pop() ?? "";
  if (exited.code !== 0 || !line.startsWith("{")) {
    throw new Error(
      `mailvolley ${JSON.stringify(options)} failed (${exited.timedOut ? "timed out" : `exit ${exited.code}`}): ${exited.stderr.trim()}`,
    );
  }
  const d = JSON.parse(line) as DriveOutcome;
  if (d.accepted !== d.attempted) {
    throw new Error(`mailvolley run lost messages: ${JSON.stringify(d)}`);
  }
  const perMessage = (us: number) => us / Math.max(d.accepted, 1);
  return {
    generator: "mailvolley",
    messages: d.attempted,
    accepted: d.accepted,
    messagesPerSecond: d.messagesPerSecond,
    seconds: d.elapsedSeconds,
    sinkCpuFraction: d.watchedCpuSeconds === null ? 0 : d.watchedCpuSeconds / d.elapsedSeconds,
    cpuUsPerMessage: perMessage(d.cpuUserUs + d.cpuSystemUs),
    cpuUserUsPerMessage: perMessage(d.cpuUserUs),
    cpuSystemUsPerMessage: perMessage(d.cpuSystemUs),
    cpuProcessUsPerMessage: perMessage(d.cpuProcessUs),
    processWallSeconds: exited.wallMs / 1000,
    maxRssBytes: d.maxRssBytes,
    drive: d,
  };
}

const FLOOR = fileURLToPath(new URL("../floor.js", import.meta.url));

/**
 * One run of bench/floor.ts, the least a Node.js pipelined DATA client can do (with
 * `perMessage`, a connection per message), against the sink: its rate and CPU per message,
 * measured from inside like mailvolley's.
 */
export async function runFloor(
  sink: SinkProcess,
  opts: { sessions: number; messages: number; perMessage?: boolean },
): Promise<Sample> {
  let sinkBefore = 0;
  const args = [
    FLOOR,
    "127.0.0.1",
    String(sink.port),
    String(opts.sessions),
    String(opts.messages),
    ...(opts.perMessage ? ["per-message"] : []),
  ];
  const exited = await runTimed(process.execPath, args, RUN_TIMEOUT_MS, () => {
    sinkBefore = procCpuSeconds(sink.pid);
  });
  const sinkCpu = procCpuSeconds(sink.pid) - sinkBefore;
  const line = exited.stdout.trim().split("\n").pop() ?? "";
  if (exited.code !== 0 || !line.startsWith("{")) {
    throw new Error(`floor ${args.slice(1).join(" ")} failed: ${exited.stderr.trim()}`);
  }
  const f = JSON.parse(line) as {
    messages: number;
    seconds: number;
    cpuUserUs: number;
    cpuSystemUs: number;
  };
  return {
    generator: "floor",
    messages: f.messages,
    accepted: f.messages,
    messagesPerSecond: f.messages / f.seconds,
    seconds: f.seconds,
    // Over the process's life (Node's start-up is about 0.05 s of it), so a slight underestimate.
    sinkCpuFraction: sinkCpu / (exited.wallMs / 1000),
    cpuUsPerMessage: (f.cpuUserUs + f.cpuSystemUs) / f.messages,
    cpuUserUsPerMessage: f.cpuUserUs / f.messages,
    cpuSystemUsPerMessage: f.cpuSystemUs / f.messages,
  };
}
