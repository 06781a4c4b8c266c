/**
 * `--chunking` (BDAT, RFC 3030: whole transactions pipelined, a window per session) against
 * DATA mode, the same client and sessions, alternated against one built-in sink in its own
 * process: DATA, BDAT, DATA, … The figures are the ratio of the median rates and the median
 * BDAT rate itself: what the built-in sink takes from mailvolley. Postfix smtp-sink offers no
 * CHUNKING, so there is no smtp-source reference here.
 */
import type { RawRunOptions } from "../src/config/run-config.js";
import { runMailvolley, type Sample } from "./lib/contenders.js";
import { median } from "./lib/proc.js";
import { fmt, verdict } from "./lib/report.js";
import { startBuiltinSink } from "./lib/sinks.js";
import { type Alternation, alternate, type BenchOutput } from "./throughput.js";

/**
 * What a user would run on two cores: the default --workers (1), ten sessions, the default
 * --window. Large enough runs that Node's warm-up (0.1–0.2 s below speed) is a small part.
 */
const SESSIONS = 10;
const MESSAGES = 200_000;
export const CHUNKING_RUN: RawRunOptions = { sessions: SESSIONS, messages: MESSAGES, workers: 1 };

/** Issue 14 §2: BDAT at least twice DATA, and the built-in sink taking ≥ 120,000 msg/s. */
const RATIO_BOUND = 2;
const RATE_BOUND = 120_000;

export async function chunkingBench(rounds: number): Promise<BenchOutput> {
  const sink = await startBuiltinSink();
  let alt: Alternation;
  let counted: number | null = null;
  try {
    alt = await alternate(
      sink,
      rounds,
      (s) => runMailvolley(s, CHUNKING_RUN),
      (s) => runMailvolley(s, { ...CHUNKING_RUN, chunking: true }),
    );
  } finally {
    counted = await sink.stop();
  }
  const runs = { data: alt.a, bdat: alt.b, loadAverages: alt.loadAverages };
  const data = alt.medianA;
  const bdat = alt.medianB;
  const sent = [...runs.data, ...runs.bdat].reduce((n, s) => n + s.accepted, 0);
  const label = `${SESSIONS} sessions, default --window, ${fmt(MESSAGES)} messages`;
  return {
    verdicts: [
      verdict(
        `--chunking vs DATA, built-in sink, ${label}`,
        bdat / data,
        ">=",
        RATIO_BOUND,
        `${(bdat / data).toFixed(2)}× (${fmt(bdat)} vs ${fmt(data)} msg/s)`,
      ),
      verdict(
        `built-in sink taking BDAT from mailvolley, ${label}`,
        bdat,
        ">=",
        RATE_BOUND,
        `${fmt(bdat)} msg/s`,
      ),
    ],
    notes: [
      "Postfix smtp-sink offers no CHUNKING, so --chunking has no smtp-source reference ratio",
      `chunking: ${cpuNote("BDAT", runs.bdat)}; ${cpuNote("DATA", runs.data)}`,
      `chunking: built-in sink counted ${counted ?? "?"} messages of ${sent} the client saw accepted`,
    ],
    raw: { options: CHUNKING_RUN, ...runs, builtinCounted: counted, clientAccepted: sent },
  };
}

/** Medians of both sides' CPU: which one set the rate. */
function cpuNote(name: string, xs: Sample[]): string {
  const client = median(xs.map((s) => s.cpuUsPerMessage!));
  const sinkUs = median(xs.map((s) => (s.sinkCpuFraction * s.seconds * 1e6) / s.accepted));
  const busy = median(xs.map((s) => s.sinkCpuFraction));
  return `${name} client ${client.toFixed(1)} µs CPU a message, sink ${sinkUs.toFixed(1)} µs (${fmt(busy * 100)}% of a core)`;
}
