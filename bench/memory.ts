/**
 * Memory of the generator: peak RSS with 10,000 sessions open at once to the built-in sink, and
 * RSS after 1,000,000 messages against RSS after 100,000 in the same run (a leak shows as
 * growth). 10,000 sessions need more descriptors than the usual soft limit of 1024 (or 4096):
 * both processes run under `bash -c 'ulimit -n 20000 && exec …'`.
 */
import { defaultWorkers } from "../src/config/run-config.js";
import { runMailvolley, type Sample } from "./lib/contenders.js";
import { fmt, type Verdict, verdict } from "./lib/report.js";
import { startBuiltinSink, startSmtpSink } from "./lib/sinks.js";
import type { BenchOutput } from "./throughput.js";

const MIB = 1024 * 1024;
const NOFILE = 20_000;

export async function memoryBench(): Promise<BenchOutput> {
  const verdicts: Verdict[] = [];
  const notes: string[] = [];
  const raw: Record<string, Sample> = {};
  const wrap = { nofile: NOFILE };
  const builtin = await startBuiltinSink(wrap);
  try {
    // The target is judged at the default worker count; the other count is reported beside it.
    const byDefault = defaultWorkers();
    for (const workers of [byDefault, byDefault === 1 ? 2 : 1]) {
      const s = await runMailvolley(
        builtin,
        { sessions: 10_000, messages: 100_000, workers },
        { wrap },
      );
      raw[`sessions-10000-workers-${workers}`] = s;
      const mib = s.maxRssBytes! / MIB;
      const which =
        workers === byDefault ? `--workers ${workers}, the default here` : `--workers ${workers}`;
      const line = `${fmt(mib)} MiB peak RSS (${which}; ${fmt(s.messagesPerSecond)} msg/s, ${s.drive!.connectionsOpened} connections)`;
      if (workers === byDefault) {
        verdicts.push(verdict("RSS with 10,000 concurrent sessions", mib, "<=", 200, line));
      } else notes.push(`10,000 sessions: ${line}`);
    }
  } finally {
    await builtin.stop();
  }
  // Against smtp-sink, the faster peer; one worker so the checkpoint counter sees every message.
  const postfix = await startSmtpSink();
  try {
    const s = await runMailvolley(
      postfix,
      { sessions: 20, messages: 1_000_000, workers: 1 },
      { checkpoints: Array.from({ length: 10 }, (_, i) => (i + 1) * 100_000) },
    );
    raw["messages-1000000"] = s;
    const marks = s.drive!.checkpoints;
    const at100k = marks[0];
    const at1m = marks[marks.length - 1];
    const growth = at1m.rssBytes / at100k.rssBytes - 1;
    verdicts.push(
      verdict(
        "RSS growth from 100,000 to 1,000,000 messages",
        growth * 100,
        "<=",
        10,
        `${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)}% (${fmt(at100k.rssBytes / MIB, 1)} → ${fmt(at1m.rssBytes / MIB, 1)} MiB; heap ${fmt(at100k.heapUsedBytes / MIB, 1)} → ${fmt(at1m.heapUsedBytes / MIB, 1)} MiB)`,
      ),
    );
    notes.push(
      `RSS every 100,000 messages (MiB): ${marks.map((m) => fmt(m.rssBytes / MIB, 1)).join(", ")}; V8 heap reserved: ${marks.map((m) => fmt(m.heapTotalBytes / MIB, 1)).join(", ")}`,
    );
  } finally {
    await postfix.stop();
  }
  return { verdicts, notes, raw };
}
