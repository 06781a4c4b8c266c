/**
 * This tree's mailvolley beside an older build of it, and Postfix smtp-source beside both, in
 * one run against one Postfix smtp-sink: for a change that must keep the hot path's figures (a
 * refactor), "within N% of before" measured where it can be believed on a shared machine. Each
 * round runs smtp-source, then the two builds in an order that swaps every round (so that
 * neither always follows smtp-source), for reuse (20 sessions) and connection per message (20
 * sessions); the figures are ratios of medians: after/before, and each against smtp-source.
 *
 *   BENCH_BASELINE=<tree> BENCH_ROUNDS=7 npm run bench -- before-after
 *
 * where <tree> is an export of the older commit, built:
 *
 *   git archive main | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ &&
 *   (cd /tmp/base && npm run build)
 */
import type { RawRunOptions } from "../src/config/run-config.js";
import { driveOf, runMailvolley, runSmtpSource, type Sample } from "./lib/contenders.js";
import { loadAverage, median } from "./lib/proc.js";
import { fmt, type Verdict, verdict } from "./lib/report.js";
import { startSmtpSink } from "./lib/sinks.js";
import type { BenchOutput } from "./throughput.js";

/** After/before may not fall below this (a refactor's "within 3% of before"). */
const WITHIN = 0.97;

interface Case {
  key: string;
  label: string;
  options: RawRunOptions;
  reuse: boolean;
}

const CASES: Case[] = [
  {
    key: "reuse-20",
    label: "reuse, 20 sessions, 50,000 messages",
    options: { sessions: 20, messages: 50_000 },
    reuse: true,
  },
  {
    key: "per-message-20",
    label: "connection per message, 20 sessions, 20,000 messages",
    options: { sessions: 20, messages: 20_000, mode: "per-message" },
    reuse: false,
  },
];

interface Rounds {
  source: Sample[];
  before: Sample[];
  after: Sample[];
  loadAverages: number[];
}

export async function beforeAfterBench(rounds: number): Promise<BenchOutput> {
  const tree = process.env.BENCH_BASELINE;
  if (!tree) {
    throw new Error(
      "before-after needs BENCH_BASELINE=<an older tree, built> (see bench/before-after.ts)",
    );
  }
  const before = driveOf(tree);
  const verdicts: Verdict[] = [];
  const notes: string[] = [`before: ${tree}; after: this tree`];
  const raw: Record<string, Rounds> = {};
  const sink = await startSmtpSink();
  try {
    for (const c of CASES) {
      const r: Rounds = { source: [], before: [], after: [], loadAverages: [] };
      const sessions = c.options.sessions as number;
      const messages = c.options.messages as number;
      for (let i = 0; i < rounds; i++) {
        r.loadAverages.push(loadAverage());
        r.source.push(await runSmtpSource(sink, { sessions, messages, reuse: c.reuse }));
        const runBefore = async () =>
          r.before.push(await runMailvolley(sink, c.options, { drive: before }));
        const runAfter = async () => r.after.push(await runMailvolley(sink, c.options));
        if (i % 2 === 0) {
          await runBefore();
          await runAfter();
        } else {
          await runAfter();
          await runBefore();
        }
      }
      raw[c.key] = r;
      judge(c, r, verdicts, notes);
    }
  } finally {
    await sink.stop();
  }
  return { verdicts, notes, raw };
}

function judge(c: Case, r: Rounds, verdicts: Verdict[], notes: string[]): void {
  const rate = (xs: Sample[]) => median(xs.map((s) => s.messagesPerSecond));
  const cpu = (xs: Sample[]) => median(xs.map((s) => s.cpuUsPerMessage!));
  const [source, before, after] = [rate(r.source), rate(r.before), rate(r.after)];
  const ratio = after / before;
  verdicts.push(
    verdict(
      `${c.label}: after / before`,
      ratio,
      ">=",
      WITHIN,
      `${ratio.toFixed(3)}× (${fmt(after)} vs ${fmt(before)} msg/s, medians of ${r.after.length})`,
    ),
  );
  const loads = r.loadAverages;
  notes.push(
    `${c.key}: vs smtp-source ${(after / source).toFixed(2)}× after, ${(before / source).toFixed(2)}× before (smtp-source ${fmt(source)} msg/s); CPU a message ${cpu(r.after).toFixed(1)} µs after, ${cpu(r.before).toFixed(1)} µs before (${(cpu(r.after) / cpu(r.before)).toFixed(3)}×); load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  );
}
