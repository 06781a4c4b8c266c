/**
 * Sessions with nothing to do must cost nothing: the open model at 200 arrivals a second, held
 * by 10 sessions and by 3,000 (reuse) against Postfix smtp-sink, in one worker (the main
 * thread), against smtp-sink raised to hold them all (`-m`; at its default of 256 the rest
 * would time out connecting and reconnect every 10 s, and the bench would measure that). The
 * figure is the main thread's CPU seconds per steady second: the time series' whole intervals
 * from the 12th second to the one before -d ends (the 3,000 QUITs after it are not the steady
 * state). The first seconds are the settling, reported beside it but not judged: the 3,000
 * connections and their EHLO, V8 optimising the hot path (a second of 10 sessions costs about
 * twice as much in the first 10 s as later), and V8's memory reducer compacting the heap the
 * connects grew (two full collections at about 8 s, whose marking grows with the live heap).
 *
 * The two runs of a round (10 and 3,000 sessions) run side by side, both pinned to the first
 * core, the sink to the second. On a shared VM one run's CPU per second swings 2–3× over
 * phases of several seconds (the host's other tenants; no steal time is reported): run one
 * after the other, the two runs of a round met different phases and their ratio ranged
 * 0.4–1.7; side by side on one core, each phase falls on both. Each run takes about 3 % of the
 * core, so they seldom wait for each other. The figure judged is the median of the rounds'
 * ratios (3,000 over 10). Target: at most 1.1×.
 *
 * Beside it, the same pairs of the Node.js floor (bench/idle-floor.ts: sockets, EHLO, the idle
 * queue and the transactions, nothing else), so that the page shows how much of what 3,000
 * sessions add is Node's and the kernel's, and a second verdict on what is mailvolley's own:
 * its median ratio over the floor's, at most 1.1. With BENCH_BASELINE=<an older tree, built>
 * the same pairs of that build beside this one's, for the before and after.
 *
 *   BENCH_ROUNDS=5 node dist/bench/run-all.js idle
 */

import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { RawRunOptions } from "../src/config/run-config.js";
import { driveOf, runMailvolley, type Sample } from "./lib/contenders.js";
import { loadAverage, median, runTimed } from "./lib/proc.js";
import { fmt, type Verdict, verdict } from "./lib/report.js";
import { type SinkProcess, type SpawnWrap, startSmtpSink, wrapCommand } from "./lib/sinks.js";
import type { BenchOutput } from "./throughput.js";

const TARGET = 1.1;
const RATE = 200;
const SECONDS = 24;
/** Intervals left out at the start: the settling (see above). */
const SETTLE_INTERVALS = 12;
/** The settling's window, reported: after the connects, before the steady state. */
const SETTLING: readonly [number, number] = [4, 12];
const FEW = 10;
const MANY = 3000;

interface Run {
  sessions: number;
  /** The main thread's CPU seconds per steady second. */
  cpuPerSecond: number;
  /** The same, over the settling's window. */
  settlingCpuPerSecond: number;
  accepted: number;
  loadAverage: number;
}

/** The runs of one build: each round one of FEW and one of MANY sessions, side by side. */
interface Build {
  name: string;
  drive?: string;
  /** The Node.js floor (bench/idle-floor.ts), not mailvolley. */
  floor?: boolean;
  runs: Run[];
  /** Each round's MANY / FEW ratio of CPU per steady second. */
  ratios: number[];
  /** The same over the settling. */
  settlingRatios: number[];
}

const FLOOR = fileURLToPath(new URL("./idle-floor.js", import.meta.url));

/** Both runs of a pair on the first core, the sink on the second (one core: no pinning). */
const RUNS_ON: SpawnWrap = availableParallelism() > 1 ? { cpus: "0" } : {};
const SINK_ON: SpawnWrap = availableParallelism() > 1 ? { cpus: "1" } : {};

export async function idleBench(rounds: number): Promise<BenchOutput> {
  const newBuild = (name: string, how: { floor?: true; drive?: string } = {}): Build => ({
    name,
    ...how,
    runs: [],
    ratios: [],
    settlingRatios: [],
  });
  const builds = [newBuild("this tree"), newBuild("Node.js floor", { floor: true })];
  const tree = process.env.BENCH_BASELINE;
  if (tree) builds.push(newBuild(`before (${tree})`, { drive: driveOf(tree) }));
  // smtp-sink serves 256 sessions unless told more: the rest would time out and reconnect.
  const sink = await startSmtpSink(SINK_ON, MANY + FEW + 100);
  try {
    for (let i = 0; i < rounds; i++) {
      // Alternate the builds' order, so that none always follows another.
      const order = i % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const run = build.floor ? floorRun : idleRun;
        const [few, many] = await Promise.all([
          run(sink, FEW, build.drive),
          run(sink, MANY, build.drive),
        ]);
        build.runs.push(few, many);
        build.ratios.push(many.cpuPerSecond / few.cpuPerSecond);
        build.settlingRatios.push(many.settlingCpuPerSecond / few.settlingCpuPerSecond);
      }
    }
  } finally {
    await sink.stop();
  }
  const verdicts: Verdict[] = [];
  const notes: string[] = [];
  const ratios = new Map<Build, number>();
  for (const build of builds) {
    const ratio = median(build.ratios);
    ratios.set(build, ratio);
    const few = median(pick(build, FEW));
    const many = median(pick(build, MANY));
    const loads = build.runs.map((r) => r.loadAverage);
    const each = build.ratios.map((r) => r.toFixed(2)).join(", ");
    const detail = `${ratio.toFixed(2)}× (median of ${rounds} rounds: ${each}; CPU s a second, medians: ${many.toFixed(3)} vs ${few.toFixed(3)}; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`;
    const label = `${build.name}: main-thread CPU, ${fmt(MANY)} sessions / ${FEW} at ${RATE}/s`;
    if (build.drive || build.floor) notes.push(`${label}: ${detail}`);
    else verdicts.push(verdict(label, ratio, "<=", TARGET, detail));
    notes.push(
      `${label}, settling (seconds ${SETTLING[0]}–${SETTLING[1]}, not judged): ${median(build.settlingRatios).toFixed(2)}×`,
    );
  }
  const own = (ratios.get(builds[0]) ?? 0) / (ratios.get(builds[1]) ?? 1);
  verdicts.push(
    verdict(
      `this tree's ${fmt(MANY)}/${FEW} ratio over the Node.js floor's (what is mailvolley's own)`,
      own,
      "<=",
      TARGET,
      `${own.toFixed(2)}× (${(ratios.get(builds[0]) ?? 0).toFixed(2)}× against ${(ratios.get(builds[1]) ?? 0).toFixed(2)}×)`,
    ),
  );
  return { verdicts, notes, raw: { builds } };
}

/** The CPU a steady second of each of a build's runs of `sessions` sessions. */
function pick(build: Build, sessions: number): number[] {
  return build.runs.filter((r) => r.sessions === sessions).map((r) => r.cpuPerSecond);
}

/** One run of the floor: its main thread's CPU in the same windows as mailvolley's. */
async function floorRun(sink: SinkProcess, sessions: number): Promise<Run> {
  const load = loadAverage();
  const args = [FLOOR, "127.0.0.1", String(sink.port), String(sessions), String(RATE)];
  const [cmd, argv] = wrapCommand(process.execPath, [...args, String(SECONDS)], RUNS_ON);
  const exited = await runTimed(cmd, argv, 120_000);
  const line = exited.stdout.trim().split("\n").pop() ?? "";
  if (exited.code !== 0 || !line.startsWith("{")) {
    throw new Error(`idle-floor ${args.slice(1).join(" ")} failed: ${exited.stderr.trim()}`);
  }
  const f = JSON.parse(line) as {
    cpuSecondsPerInterval: number[];
    accepted: number;
    opened: number;
  };
  if (f.opened !== sessions) throw new Error(`idle-floor opened ${f.opened} of ${sessions}`);
  return {
    sessions,
    cpuPerSecond: perSecond(f.cpuSecondsPerInterval.slice(SETTLE_INTERVALS, SECONDS - 1), 1000),
    settlingCpuPerSecond: perSecond(f.cpuSecondsPerInterval.slice(...SETTLING), 1000),
    accepted: f.accepted,
    loadAverage: load,
  };
}

const perSecond = (intervals: readonly number[], intervalMs: number) =>
  intervals.reduce((a, b) => a + b, 0) / ((intervals.length * intervalMs) / 1000);

async function idleRun(sink: SinkProcess, sessions: number, drive?: string): Promise<Run> {
  const options: RawRunOptions = {
    sessions,
    rate: String(RATE),
    duration: `${SECONDS}s`,
    workers: 1,
    interval: "1s",
  };
  const load = loadAverage();
  const sample: Sample = await runMailvolley(sink, options, { drive, wrap: RUNS_ON });
  const main = sample.drive?.generator?.threads[0];
  if (!main?.cpuSecondsPerInterval) throw new Error(`no thread series from ${drive ?? "drive"}`);
  // Each session connects once: a reconnect means the peer did not hold them all, and the
  // figure would be the cost of failing sessions, not of idle ones.
  const opened = sample.drive?.connectionsOpened;
  if (opened !== sessions) {
    throw new Error(
      `${sessions} sessions opened ${opened} connections: the sink did not hold them`,
    );
  }
  // Interval 0 is partial (intervals are aligned to the clock); the one holding -d's end too.
  const steady = main.cpuSecondsPerInterval.slice(SETTLE_INTERVALS, SECONDS - 1);
  if (steady.length < 3) throw new Error(`too few steady intervals: ${steady.length}`);
  return {
    sessions,
    cpuPerSecond: perSecond(steady, main.intervalMs),
    settlingCpuPerSecond: perSecond(main.cpuSecondsPerInterval.slice(...SETTLING), main.intervalMs),
    accepted: sample.accepted,
    loadAverage: load,
  };
}
