/**
 * The built-in sink against Postfix smtp-sink with the same client (mailvolley, reuse, 20
 * sessions), alternated: smtp-sink, built-in, smtp-sink, … Each sink runs in its own process.
 */
import { runMailvolley, type Sample } from "./lib/contenders.js";
import { loadAverage, median } from "./lib/proc.js";
import { fmt, verdict } from "./lib/report.js";
import { startBuiltinSink, startSmtpSink } from "./lib/sinks.js";
import type { BenchOutput } from "./throughput.js";

export async function sinkBench(rounds: number): Promise<BenchOutput> {
  const postfix = await startSmtpSink();
  const builtin = await startBuiltinSink();
  const options = { sessions: 20, messages: 50_000 };
  const runs: { postfix: Sample[]; builtin: Sample[]; loadAverages: number[] } = {
    postfix: [],
    builtin: [],
    loadAverages: [],
  };
  let counted: number | null = null;
  try {
    for (let i = 0; i < rounds; i++) {
      runs.loadAverages.push(loadAverage());
      runs.postfix.push(await runMailvolley(postfix, options));
      runs.builtin.push(await runMailvolley(builtin, options));
    }
  } finally {
    await postfix.stop();
    counted = await builtin.stop();
  }
  const p = median(runs.postfix.map((s) => s.messagesPerSecond));
  const b = median(runs.builtin.map((s) => s.messagesPerSecond));
  const busy = (xs: Sample[]) => fmt(median(xs.map((s) => s.sinkCpuFraction)) * 100);
  const sent = runs.builtin.reduce((n, s) => n + s.accepted, 0);
  return {
    verdicts: [
      verdict(
        "built-in sink vs smtp-sink, same client (mailvolley reuse 20 sessions)",
        b / p,
        ">=",
        1.0,
        `${(b / p).toFixed(2)}× (${fmt(b)} vs ${fmt(p)} msg/s)`,
      ),
    ],
    notes: [
      `sink CPU: built-in ${busy(runs.builtin)}% of a core, smtp-sink ${busy(runs.postfix)}%`,
      `built-in sink counted ${counted ?? "?"} messages of ${sent} the client saw accepted`,
    ],
    raw: { ...runs, builtinCounted: counted, clientAccepted: sent },
  };
}
