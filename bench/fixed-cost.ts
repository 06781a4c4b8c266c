/**
 * The fixed cost of a run, timed from outside: `node bin/mailvolley.js run …`
 * spawned again and again, small runs so that the part outside the messages dominates.
 *
 *   start → first connect   the parent's spawn() to the run's first connect attempt
 *   last reply → exit       the run's last reply to the parent seeing the process exit
 *   CPU                     the whole process (every thread, start-up and exit included): the
 *                           parent's cutime + cstime from /proc/self/stat across the child's life
 *
 * The first connect and the last reply come from the run's own counters, printed on stderr by
 * MAILVOLLEY_TIMELINE=1 (src/stats/timeline.ts) as ms since the child's time origin, with that
 * origin as an epoch time; parent and child read the same clock. Two cases: the self-test (`run`,
 * what `npm start` runs after its build: 10,000 messages against the sink started in-process)
 * and a tiny run (`run TARGET -m 1000`) against Postfix smtp-sink.
 *
 * The targets are halving each figure against BASELINE, measured before any change to the
 * fixed cost (see its comment). One tree cannot alternate old and new code; given
 * FIXED_COST_BASELINE=path/to/bin/mailvolley.js (an export of the baseline commit, built), the
 * runs alternate baseline, current, baseline, … and the baseline's own medians replace the
 * constants, which is the fairer figure on a busy machine. An export of the baseline:
 *
 *   git archive 6dce8d5 | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ &&
 *   (cd /tmp/base && npx tsc -p tsconfig.json)
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadAverage, median } from "./lib/proc.js";
import { fmt, type Verdict, verdict } from "./lib/report.js";
import { type SinkProcess, startSmtpSink } from "./lib/sinks.js";
import type { BenchOutput } from "./throughput.js";

const BIN = fileURLToPath(new URL("../../bin/mailvolley.js", import.meta.url));
const RUN_TIMEOUT_MS = 60_000;

interface Figures {
  startToFirstConnectMs: number;
  lastReplyToExitMs: number;
  cpuSeconds: number;
}

/**
 * The code before any change to the fixed cost: 6dce8d5 (main 818334b with the timeline alone).
 * Medians of 12 runs of each case, alternated with 34ec577's runs in one
 * `FIXED_COST_BASELINE=<6dce8d5 built>/bin/mailvolley.js BENCH_ROUNDS=6 npm run bench --
 * fixed-cost`, load average 2.9–3.6 (two other engineers' benchmarks on the 2 vCPUs). On another
 * machine or load, give FIXED_COST_BASELINE instead: these constants are this machine's.
 */
const BASELINE: { commit: string; selfTest: Figures; tiny: Figures } = {
  commit: "6dce8d5",
  selfTest: { startToFirstConnectMs: 451, lastReplyToExitMs: 108, cpuSeconds: 1.02 },
  tiny: { startToFirstConnectMs: 449, lastReplyToExitMs: 81, cpuSeconds: 0.63 },
};

interface FixedCostSample extends Figures {
  /** spawn() to the child's time origin: exec and Node's earliest start-up. */
  spawnToOriginMs: number;
  /** First connect to last reply: the messages. */
  messagesMs: number;
  wallMs: number;
  loadAverage: number;
  /** The child's own marks, ms since its time origin. */
  marks: Record<string, number>;
}

interface Case {
  key: "selfTest" | "tiny";
  label: string;
  args: (sink: SinkProcess) => string[];
}

const CASES: Case[] = [
  { key: "selfTest", label: "self-test (run, 10,000 messages, in-process sink)", args: () => [] },
  {
    key: "tiny",
    label: "tiny run (run -m 1000 against smtp-sink)",
    args: (sink) => [`127.0.0.1:${sink.port}`, "-m", "1000"],
  },
];

/** The children's CPU seconds reaped so far: cutime + cstime of /proc/self/stat. */
function reapedChildCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // cutime and cstime are fields 16 and 17 of the whole line, 14 and 15 after the name.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const epochNow = () => performance.timeOrigin + performance.now();

/** One run of `bin` with these arguments, timed from outside and read from its timeline. */
function runOnce(bin: string, args: string[]): Promise<FixedCostSample> {
  return new Promise((resolve, reject) => {
    const load = loadAverage();
    const cpuBefore = reapedChildCpuSeconds();
    const spawnedAt = epochNow();
    const child = spawn(process.execPath, [bin, "run", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MAILVOLLEY_TIMELINE: "1" },
    });
    let stderr = "";
    child.stdout!.resume();
    child.stderr!.setEncoding("utf8").on("data", (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    let exitedAt = 0;
    child.on("error", reject);
    child.on("exit", () => {
      exitedAt = epochNow();
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const cpuSeconds = reapedChildCpuSeconds() - cpuBefore;
      if (code !== 0) return reject(new Error(`mailvolley run ${args.join(" ")}: exit ${code}`));
      try {
        resolve(sampleOf(stderr, spawnedAt, exitedAt, cpuSeconds, load));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function sampleOf(
  stderr: string,
  spawnedAt: number,
  exitedAt: number,
  cpuSeconds: number,
  load: number,
): FixedCostSample {
  const marks: Record<string, number> = {};
  let origin = Number.NaN;
  for (const m of stderr.matchAll(/^mailvolley timeline: +([\d.]+) ms {2}(.*)$/gm)) {
    const epoch = /^process start \(epoch ([\d.]+) ms\)/.exec(m[2]);
    if (epoch) origin = Number(epoch[1]);
    else marks[m[2].replace(/ \(.*/, "")] = Number(m[1]);
  }
  const first = marks["first connect"];
  const last = marks["last reply"];
  if (!(origin > 0) || first === undefined || last === undefined) {
    throw new Error(`no timeline on stderr (MAILVOLLEY_TIMELINE=1): ${stderr.slice(-400)}`);
  }
  return {
    startToFirstConnectMs: origin + first - spawnedAt,
    lastReplyToExitMs: exitedAt - (origin + last),
    cpuSeconds,
    spawnToOriginMs: origin - spawnedAt,
    messagesMs: last - first,
    wallMs: exitedAt - spawnedAt,
    loadAverage: load,
    marks,
  };
}

const medianOf = (samples: readonly FixedCostSample[]): Figures => ({
  startToFirstConnectMs: median(samples.map((s) => s.startToFirstConnectMs)),
  lastReplyToExitMs: median(samples.map((s) => s.lastReplyToExitMs)),
  cpuSeconds: median(samples.map((s) => s.cpuSeconds)),
});

/** The two halving verdicts of one case and a note on its CPU. */
function judge(c: Case, now: Figures, base: Figures, baseName: string, out: BenchOutput): void {
  const halved = (what: string, key: "startToFirstConnectMs" | "lastReplyToExitMs"): Verdict => {
    const ratio = now[key] / base[key];
    const figure = `${ratio.toFixed(2)}× (${fmt(now[key])} vs ${fmt(base[key])} ms at ${baseName})`;
    return verdict(`fixed cost, ${c.label}: ${what}`, ratio, "<=", 0.5, figure);
  };
  out.verdicts.push(halved("start → first connect", "startToFirstConnectMs"));
  out.verdicts.push(halved("last reply → exit", "lastReplyToExitMs"));
  out.notes.push(
    `${c.label}: CPU of the whole process ${now.cpuSeconds.toFixed(2)} s vs ${base.cpuSeconds.toFixed(2)} s at ${baseName}`,
  );
}

export async function fixedCostBench(rounds: number): Promise<BenchOutput> {
  const baselineBin = process.env.FIXED_COST_BASELINE;
  const runs = rounds * 2;
  const out: BenchOutput = { verdicts: [], notes: [], raw: {} };
  const samples = new Map<string, { current: FixedCostSample[]; baseline: FixedCostSample[] }>(
    CASES.map((c) => [c.key, { current: [], baseline: [] }]),
  );
  const sink = await startSmtpSink();
  try {
    for (let i = 0; i < runs; i++) {
      for (const c of CASES) {
        const s = samples.get(c.key)!;
        if (baselineBin) s.baseline.push(await runOnce(baselineBin, c.args(sink)));
        s.current.push(await runOnce(BIN, c.args(sink)));
      }
    }
  } finally {
    await sink.stop();
  }
  for (const c of CASES) {
    const s = samples.get(c.key)!;
    const now = medianOf(s.current);
    const base = baselineBin ? medianOf(s.baseline) : BASELINE[c.key];
    judge(c, now, base, baselineBin ? "the baseline run beside it" : BASELINE.commit, out);
    const messages = median(s.current.map((x) => x.messagesMs));
    const origin = median(s.current.map((x) => x.spawnToOriginMs));
    out.notes.push(
      `${c.label}: ${fmt(messages)} ms first connect → last reply; spawn → Node's time origin ${fmt(origin, 1)} ms (medians of ${runs})`,
    );
  }
  out.raw = {
    runs,
    baselineBin: baselineBin ?? null,
    baseline: BASELINE,
    ...Object.fromEntries(samples),
  };
  return out;
}
