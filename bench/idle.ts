/**
 * Sessions with nothing to do must cost nothing: the open model at 200 arrivals a second, held
 * by 10 sessions and by 3,000 (reuse) against Postfix smtp-sink, in one worker (the main
 * thread). The figure is the main thread's CPU seconds per steady second: the time series'
 * whole intervals after the 3,000 sessions have connected and before -d ends (the 3,000
 * QUITs after it are not the steady state). Target:
 * 3,000 sessions cost at most 1.1× what 10 cost (median of rounds; the runs of a round
 * alternate their order). With BENCH_BASELINE=<an older tree, built> the same runs of that
 * build beside this one's, for the before and after.
 *
 *   BENCH_ROUNDS=3 node dist/bench/run-all.js idle
 */
import type { RawRunOptions } from "../src/config/run-config.js";
import { driveOf, runMailvolley, type Sample } from "./lib/contenders.js";
import { loadAverage, median } from "./lib/proc.js";
import { fmt, type Verdict, verdict } from "./lib/report.js";
import { type SinkProcess, startSmtpSink } from "./lib/sinks.js";
import type { BenchOutput } from "./throughput.js";

const TARGET = 1.1;
const RATE = 200;
const SECONDS = 12;
/** Intervals left out at the start: the 3,000 connections and their EHLO. */
const SETTLE_INTERVALS = 4;
const FEW = 10;
const MANY = 3000;

interface Run {
  sessions: number;
  /** The main thread's CPU seconds per steady second. */
  cpuPerSecond: number;
  accepted: number;
  loadAverage: number;
}

/** The runs of one build: each round one of FEW and one of MANY sessions. */
interface Build {
  name: string;
  drive?: string;
  runs: Run[];
}

export async function idleBench(rounds: number): Promise<BenchOutput> {
  const builds: Build[] = [{ name: "this tree", runs: [] }];
  const tree = process.env.BENCH_BASELINE;
  if (tree) builds.push({ name: `before (${tree})`, drive: driveOf(tree), runs: [] });
  const sink = await startSmtpSink();
  try {
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first, so that neither always follows the other.
      const order = i % 2 === 0 ? [FEW, MANY] : [MANY, FEW];
      for (const build of builds) {
        for (const sessions of order) build.runs.push(await idleRun(sink, sessions, build.drive));
      }
    }
  } finally {
    await sink.stop();
  }
  const verdicts: Verdict[] = [];
  const notes: string[] = [];
  for (const build of builds) {
    const few = median(pick(build, FEW));
    const many = median(pick(build, MANY));
    const ratio = many / few;
    const loads = build.runs.map((r) => r.loadAverage);
    const detail = `${ratio.toFixed(2)}× (${many.toFixed(3)} vs ${few.toFixed(3)} CPU s a second, medians of ${rounds}; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`;
    const label = `${build.name}: main-thread CPU, ${fmt(MANY)} sessions / ${FEW} at ${RATE}/s`;
    if (build.drive) notes.push(`${label}: ${detail}`);
    else verdicts.push(verdict(label, ratio, "<=", TARGET, detail));
  }
  return { verdicts, notes, raw: { builds } };
}

function pick(build: Build, sessions: number): number[] {
  return build.runs.filter((r) => r.sessions === sessions).map((r) => r.cpuPerSecond);
}

async function idleRun(sink: SinkProcess, sessions: number, drive?: string): Promise<Run> {
  const options: RawRunOptions = {
    sessions,
    rate: String(RATE),
    duration: `${SECONDS}s`,
    workers: 1,
    interval: "1s",
  };
  const load = loadAverage();
  const sample: Sample = await runMailvolley(sink, options, { drive });
  const main = sample.drive?.generator?.threads[0];
  if (!main?.cpuSecondsPerInterval) throw new Error(`no thread series from ${drive ?? "drive"}`);
  // Interval 0 is partial (intervals are aligned to the clock); the one holding -d's end too.
  const steady = main.cpuSecondsPerInterval.slice(SETTLE_INTERVALS, SECONDS - 1);
  if (steady.length < 3) throw new Error(`too few steady intervals: ${steady.length}`);
  const seconds = (steady.length * main.intervalMs) / 1000;
  return {
    sessions,
    cpuPerSecond: steady.reduce((a, b) => a + b, 0) / seconds,
    accepted: sample.accepted,
    loadAverage: load,
  };
}
