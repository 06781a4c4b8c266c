/**
 * TLS benchmarks, against mailvolley's built-in sink in a process of its own (STARTTLS with its
 * self-signed certificate; session tickets on), so that the client, not the sink, is measured:
 * - `run --starttls --mode per-message` against bench/tls-floor.ts (the least Node.js can do per
 *   message over STARTTLS), with full handshakes and with resumed ones: goal ≥ 0.9× the floor;
 * - resumed against full handshakes in mailvolley: goal ≥ 1.3×;
 * - session reuse over TLS against plain reuse: messages per second and CPU per message.
 * Each round runs every case once, in turn, so a noisy neighbour hits them alike; medians.
 */
import { fileURLToPath } from "node:url";
import type { RawRunOptions } from "../src/config/run-config.js";
import { floorSample, runMailvolley, type Sample } from "./lib/contenders.js";
import { median, procCpuSeconds, runTimed } from "./lib/proc.js";
import { fmt, verdict } from "./lib/report.js";
import { type SinkProcess, startBuiltinSink } from "./lib/sinks.js";
import type { BenchOutput } from "./throughput.js";

const TLS_FLOOR = fileURLToPath(new URL("./tls-floor.js", import.meta.url));
const SESSION_PARSE = fileURLToPath(new URL("./tls-session-parse.js", import.meta.url));
const SESSIONS = 20;
const PER_MESSAGE = 4_000;
const REUSE = 40_000;

/** One run of bench/tls-floor.ts; rate and CPU per message measured from inside, as mailvolley's. */
async function runTlsFloor(sink: SinkProcess, resume: boolean): Promise<Sample> {
  const args = [TLS_FLOOR, "127.0.0.1", String(sink.port), String(SESSIONS), String(PER_MESSAGE)];
  if (resume) args.push("resume");
  let sinkBefore = 0;
  const exited = await runTimed(process.execPath, args, 120_000, () => {
    sinkBefore = procCpuSeconds(sink.pid);
  });
  const sinkCpu = procCpuSeconds(sink.pid) - sinkBefore;
  const line = exited.stdout.trim().split("\n").pop() ?? "";
  if (exited.code !== 0 || !line.startsWith("{")) {
    throw new Error(`tls-floor ${args.slice(1).join(" ")} failed: ${exited.stderr.trim()}`);
  }
  return floorSample(line, sinkCpu, exited.wallMs);
}

/**
 * What one setSession() costs (bench/tls-session-parse.ts): tls.connect given a session sets it
 * twice, in the floor and in mailvolley alike, so a resumed connection pays it twice.
 */
async function setSessionCost(sink: SinkProcess): Promise<string> {
  const exited = await runTimed(
    process.execPath,
    [SESSION_PARSE, "127.0.0.1", String(sink.port)],
    60_000,
  );
  const line = exited.stdout.trim().split("\n").pop() ?? "";
  if (exited.code !== 0 || !line.startsWith("{")) {
    throw new Error(`tls-session-parse failed: ${exited.stderr.trim()}`);
  }
  const f = JSON.parse(line) as { setSessionUs: number; sessionBytes: number };
  return `offering a session: one setSession() of its ${f.sessionBytes} bytes costs ${fmt(f.setSessionUs)} µs of CPU, and tls.connect({session}) makes two (Node 20), in the floor and mailvolley alike`;
}

const CASES = {
  "floor-full": (s: SinkProcess) => runTlsFloor(s, false),
  "floor-resumed": (s: SinkProcess) => runTlsFloor(s, true),
  "mailvolley-full": (s: SinkProcess) => mailvolley(s, { tlsResume: false }),
  "mailvolley-resumed": (s: SinkProcess) => mailvolley(s, {}),
  "reuse-tls": (s: SinkProcess) =>
    runMailvolley(s, { sessions: SESSIONS, messages: REUSE, starttls: true }),
  "reuse-plain": (s: SinkProcess) => runMailvolley(s, { sessions: SESSIONS, messages: REUSE }),
} as const;
type CaseName = keyof typeof CASES;

function mailvolley(sink: SinkProcess, extra: RawRunOptions): Promise<Sample> {
  const options = { sessions: SESSIONS, messages: PER_MESSAGE, mode: "per-message" as const };
  return runMailvolley(sink, { ...options, starttls: true, ...extra });
}

export async function tlsBench(rounds: number): Promise<BenchOutput> {
  const sink = await startBuiltinSink();
  let sessionCost = "";
  const samples = Object.fromEntries(Object.keys(CASES).map((k) => [k, [] as Sample[]])) as Record<
    CaseName,
    Sample[]
  >;
  try {
    sessionCost = await setSessionCost(sink);
    for (let round = 0; round < rounds; round++) {
      for (const [name, run] of Object.entries(CASES) as [
        CaseName,
        (s: SinkProcess) => Promise<Sample>,
      ][]) {
        samples[name].push(await run(sink));
      }
    }
  } finally {
    await sink.stop();
  }
  const rate = (name: CaseName) => median(samples[name].map((s) => s.messagesPerSecond));
  const cpu = (name: CaseName) => median(samples[name].map((s) => s.cpuUsPerMessage ?? 0));
  const busy = (name: CaseName) => median(samples[name].map((s) => s.sinkCpuFraction));
  const ratio = (a: CaseName, b: CaseName) => `${(rate(a) / rate(b)).toFixed(2)}×`;
  const pair = (a: CaseName, b: CaseName) =>
    `${fmt(rate(a))} vs ${fmt(rate(b))} msg/s; CPU ${fmt(cpu(a))} vs ${fmt(cpu(b))} µs a message; sink ${fmt(busy(a) * 100)}% vs ${fmt(busy(b) * 100)}% of a core`;
  const byRound = (a: CaseName, b: CaseName) =>
    samples[a]
      .map((s, i) => (s.messagesPerSecond / samples[b][i].messagesPerSecond).toFixed(2))
      .join(", ");
  // On a loaded machine a process waits for a CPU and its rate says so; CPU a message does not.
  const cpuRatio = (a: CaseName, b: CaseName) =>
    `${(cpu(b) / cpu(a)).toFixed(2)}× by CPU a message`;
  const versus = (target: string, a: CaseName, b: CaseName, bound: number) =>
    verdict(
      target,
      rate(a) / rate(b),
      ">=",
      bound,
      `${ratio(a, b)} by rate, ${cpuRatio(a, b)} (${pair(a, b)})`,
    );
  const verdicts = [
    versus(
      "STARTTLS per message, full handshakes, vs the TLS floor",
      "mailvolley-full",
      "floor-full",
      0.9,
    ),
    versus(
      "STARTTLS per message, resumed handshakes, vs the TLS floor resumed",
      "mailvolley-resumed",
      "floor-resumed",
      0.9,
    ),
    versus(
      "STARTTLS per message, resumed vs full handshakes",
      "mailvolley-resumed",
      "mailvolley-full",
      1.3,
    ),
  ];
  const notes = [
    `reuse, ${SESSIONS} sessions, TLS vs plain: ${ratio("reuse-tls", "reuse-plain")} the rate, ${(cpu("reuse-tls") / cpu("reuse-plain")).toFixed(2)}× the CPU a message (${pair("reuse-tls", "reuse-plain")})`,
    `the TLS floor resumed vs full: ${ratio("floor-resumed", "floor-full")} (${pair("floor-resumed", "floor-full")})`,
    // The cases of one round ran next to each other: on a loaded machine their ratios vary less.
    sessionCost,
    `round by round, mailvolley / floor: full ${byRound("mailvolley-full", "floor-full")}; resumed ${byRound("mailvolley-resumed", "floor-resumed")}`,
  ];
  return { verdicts, notes, raw: samples };
}
