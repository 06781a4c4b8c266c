/**
 * `npm run bench [-- NAME…]`: runs the benchmarks (all, or the named groups and cases), prints
 * one verdict line per target, and writes the raw runs to bench/results/NAME.json.
 *
 *   groups: throughput (cases reuse-20 reuse-1 reuse-100 per-message-20 cpu floor workers
 *           pinned),
 *           sink, chunking, memory, micro,
 *           tls (STARTTLS per message against the TLS floor, full and resumed; reuse TLS vs plain),
 *           fixed-cost (process start → first connect, last reply → exit; bench/fixed-cost.ts),
 *           idle (3,000 sessions against 10 at 200 arrivals/s: main-thread CPU a steady second;
 *           bench/idle.ts; with BENCH_BASELINE=<an older tree, built> that build's too),
 *           before-after (only by name: this build against BENCH_BASELINE=<an older tree,
 *           built>, reuse and per-message, with smtp-source; bench/before-after.ts)
 *   BENCH_ROUNDS=N   alternated rounds per comparison (default 5)
 *
 * A whole group writes bench/results/NAME.json (the figures docs/performance.md quotes); some cases of
 * the throughput group write bench/results/NAME.partial.json instead (not committed), so that
 * trying one case leaves the full results as they were.
 */
import { fileURLToPath } from "node:url";
import { beforeAfterBench } from "./before-after.js";
import { chunkingBench } from "./chunking.js";
import { fixedCostBench } from "./fixed-cost.js";
import { idleBench } from "./idle.js";
import type { MicroResult } from "./lib/measure.js";
import { loadAverage, runTimed } from "./lib/proc.js";
import { commit, fmt, machine, type Verdict, verdictLine, writeResults } from "./lib/report.js";
import { memoryBench } from "./memory.js";
import { sinkBench } from "./sink.js";
import { type BenchOutput, throughputBench } from "./throughput.js";
import { tlsBench } from "./tls.js";

const THROUGHPUT_CASES = [
  "reuse-20",
  "reuse-1",
  "reuse-100",
  "per-message-20",
  "cpu",
  "floor",
  "workers",
  "pinned",
];
const GROUPS = [
  "throughput",
  "sink",
  "chunking",
  "memory",
  "micro",
  "fixed-cost",
  "tls",
  "idle",
  "before-after",
];

const args = process.argv.slice(2);
for (const a of args) {
  if (!GROUPS.includes(a) && !THROUGHPUT_CASES.includes(a)) {
    process.stderr.write(
      `unknown benchmark "${a}"; give any of ${[...GROUPS, ...THROUGHPUT_CASES].join(", ")}\n`,
    );
    process.exit(2);
  }
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const cases = new Set(args.filter((a) => THROUGHPUT_CASES.includes(a)));
const runGroup = (g: string) =>
  args.length === 0 || args.includes(g) || (g === "throughput" && cases.size > 0);

const all: Verdict[] = [];
const startedAt = new Date().toISOString();

async function group(name: string, run: () => Promise<BenchOutput>): Promise<void> {
  process.stderr.write(`# ${name} (load average ${loadAverage()})\n`);
  const out = await run();
  for (const v of out.verdicts) process.stdout.write(`${verdictLine(v)}\n`);
  for (const n of out.notes) process.stdout.write(`info  ${n}\n`);
  const partial = name === "throughput" && cases.size > 0;
  const path = writeResults(partial ? `${name}.partial` : name, {
    benchmark: name,
    startedAt,
    finishedAt: new Date().toISOString(),
    commit: commit(),
    machine: machine(),
    loadAverageAtEnd: loadAverage(),
    rounds,
    verdicts: out.verdicts,
    notes: out.notes,
    raw: out.raw,
  });
  process.stderr.write(`# raw runs: ${path}\n`);
  all.push(...out.verdicts);
}

async function micro(): Promise<BenchOutput> {
  const entry = fileURLToPath(new URL("./micro-main.js", import.meta.url));
  const exited = await runTimed(
    process.execPath,
    ["--expose-gc", "--min-semi-space-size=64", "--max-semi-space-size=64", entry],
    120_000,
  );
  if (exited.code !== 0) throw new Error(`micro-benchmarks failed: ${exited.stderr}`);
  const results = JSON.parse(exited.stdout) as MicroResult[];
  const notes = results.map(
    (r) =>
      `${r.name}: ${fmt(r.bytesPerSecond / 1e6)} MB/s, ${fmt(r.opsPerSecond)} ops/s, ${r.heapBytesPerOp === null ? "?" : fmt(r.heapBytesPerOp)} heap bytes/op`,
  );
  return { verdicts: [], notes, raw: { results } };
}

if (runGroup("throughput")) await group("throughput", () => throughputBench(rounds, cases));
if (runGroup("sink")) await group("sink", () => sinkBench(rounds));
if (runGroup("chunking")) await group("chunking", () => chunkingBench(rounds));
if (runGroup("memory")) await group("memory", () => memoryBench());
if (runGroup("micro")) await group("micro", micro);
if (runGroup("fixed-cost")) await group("fixed-cost", () => fixedCostBench(rounds));
if (runGroup("tls")) await group("tls", () => tlsBench(rounds));
if (runGroup("idle")) await group("idle", () => idleBench(rounds));
// Only when asked for by name: it needs an older build to compare with.
if (args.includes("before-after")) await group("before-after", () => beforeAfterBench(rounds));

const missed = all.filter((v) => !v.pass).length;
process.stdout.write(`${all.length - missed} of ${all.length} targets met\n`);
