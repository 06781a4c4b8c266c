/**
 * One `mailvolley run`: against a target, or (no target) against the built-in sink started
 * in-process, with the sink's own count beside the client's.
 */

import type { Target } from "../config/parse.js";
import { formatTarget } from "../config/parse.js";
import type { ReceiveConfig } from "../config/receive-options.js";
import type { RunConfig } from "../config/run-config.js";
import { parseListen, type SinkSettings, withSinkDefaults } from "../config/sink-config.js";
import { type LoadRecords, ledgerOf, startReceiving } from "../delivery/gateway-run.js";
import { MessageWire } from "../messages/message-wire.js";
import { assembleResult, type ResultParts } from "../result/assemble.js";
import { deliveryFailed, exitCodeOf } from "../result/exit-code.js";
import type { Result, RunRecord } from "../result/result.js";
import type { RunMeta } from "../result/summarise.js";
import { type FaultRule, longestDelayMs, type Sink, startSink } from "../sink/index.js";
import type { StatsSnapshot } from "../stats/collector.js";
import { outcomesOf } from "../stats/counts.js";
import { mark, markEpoch } from "../stats/timeline.js";
import { shardHeader, shardShare, WHOLE_RUN } from "./thread-plan.js";
import type { Progress, ThreadOutcome } from "./thread-run.js";
import { runOnThreads } from "./threads.js";

/** Whether a run through a gateway lost, split, bounced or doubled a message (exit code 1). */
export { deliveryFailed };

export interface RunIo {
  /** Conversation lines of the first session (-v). */
  trace?: (line: string) => void;
  /**
   * Called once the load is running: `stop` ends every session now, `drain` starts no more
   * messages and lets in-flight ones finish within the grace period (Ctrl-C).
   */
  onStart?: (stop: () => void, drain: () => void) => void;
  /** Running totals once a second. */
  progress?: (progress: Progress) => void;
  /** --receive: the load is over and the drain begins; `end` ends it at once (Ctrl-C). */
  onDrainStart?: (end: () => void) => void;
}

/** What shapes a run besides its RunConfig. */
export interface RunExtras {
  /** Options of the embedded sink (no target): gateway emulation for self-tests and compare. */
  sink?: SinkSettings;
  /** Apdex T in ms for the Result's per-class Apdex. */
  apdexMs?: number;
  /**
   * What was run (config/run-record.ts), recorded in the Result: called once the load has ended,
   * so that the record's work (the host name, the options copied as JSON, the load described)
   * does not come before the first connect.
   */
  run?: () => RunRecord;
  /** Through the gateway: receive what the target relays (--receive) and join it. */
  receive?: ReceiveConfig | null;
  /** Called about once a second while the run waits for messages inside the gateway. */
  onDrain?: (inside: number) => void;
}

export interface RunOutcome {
  result: Result;
  /**
   * 0: every message accepted, no arrival dropped (and, in a self-test, the sink agrees), and no
   * connection failed on this machine's own limits (reply `local-limit`); 1 otherwise.
   */
  exitCode: number;
}

export async function executeRun(
  config: RunConfig,
  io: RunIo = {},
  extras: RunExtras = {},
): Promise<RunOutcome> {
  const receiver = receiverOf(config, extras.receive ?? null);
  // Through a gateway every message carries its trace ids (and, if asked, tagged recipients).
  const sending: RunConfig = receiver.receive
    ? { ...config, traceIds: true, tagRecipients: receiver.receive.tagRecipients }
    : config;
  // Load the message files here, once, before any traffic: a bad file fails the run at once,
  // and the result reports what was loaded. An in-process run sends from this copy; each
  // worker thread loads its own.
  const wire = await MessageWire.create(sending);
  switch (receiver.kind) {
    case "none": {
      const target = receiver.target;
      return finished(await loadAgainst(sending, target, formatTarget(target), io, extras, wire));
    }
    case "embedded-sink":
      return againstSink(sending, io, extras, wire);
    case "receive":
      return throughGateway(sending, receiver.target, receiver.receive, io, extras, wire);
    case "elsewhere":
      return keepingLedger(sending, receiver.target, io, extras, wire);
  }
}

/**
 * Who receives what the target relays, one strategy per run: nobody (a target, no --receive),
 * the embedded sink that is the target (no target: a self-test), this run's own receiving sink
 * that joins the arrivals (--receive), or a sink on another host (--receive elsewhere).
 */
type ReceiverStrategy =
  | { kind: "none"; target: Target; receive?: undefined }
  | { kind: "embedded-sink"; receive?: undefined }
  | { kind: "receive" | "elsewhere"; target: Target; receive: ReceiveConfig };

function receiverOf(config: RunConfig, receive: ReceiveConfig | null): ReceiverStrategy {
  if (config.target === null) return { kind: "embedded-sink" };
  if (!receive) return { kind: "none", target: config.target };
  return { kind: receive.elsewhere ? "elsewhere" : "receive", target: config.target, receive };
}

/** A load's parts and meta, waiting for what the receiver adds before the one assembly. */
interface Loaded {
  parts: ResultParts;
  meta: RunMeta;
}

/** The Result assembled once from the load and what its receiver adds, with its exit code. */
function finished(loaded: Loaded, added: Partial<ResultParts> = {}): RunOutcome {
  const result = assembleResult({ ...loaded.parts, ...added }, loaded.meta);
  mark("result built");
  return { result, exitCode: exitCodeOf(result) };
}

/** No target: the built-in sink started in-process, with its own count beside the client's. */
async function againstSink(
  config: RunConfig,
  io: RunIo,
  extras: RunExtras,
  wire: MessageWire,
): Promise<RunOutcome> {
  // The sink offers what the run asks for, and no more: its certificate costs startup.
  const sink = await startSink(
    withSinkDefaults({
      starttls: config.tls === "starttls",
      lmtp: config.lmtp,
      auth: config.auth ?? undefined,
      ...extras.sink,
      listen: [parseListen(config.tls === "implicit" ? "tls://127.0.0.1:0" : "127.0.0.1:0")],
    }),
  );
  mark("sink listening");
  try {
    const { host, port } = sink.addresses[0];
    const target: Target = { kind: "tcp", host, port };
    const loaded = await loadAgainst(
      { ...config, target },
      target,
      "embedded-sink",
      io,
      extras,
      wire,
    );
    await sinkSettled(sink, loaded.parts.stats, extras.sink?.faults ?? []);
    return finished(loaded, { sink: sinkCount(sink) });
  } finally {
    await sink.close();
    mark("sink closed");
  }
}

/** The embedded sink's own count, for the Result's sink section. */
function sinkCount(sink: Sink): NonNullable<Result["sink"]> {
  const counted = sink.stats();
  return {
    messagesAccepted: counted.messagesAccepted,
    sessions: counted.sessions,
    connectionsRefused: counted.connectionsRefused,
    classes: Object.fromEntries(
      Object.entries(counted.classes).map(([name, c]) => [
        name,
        { accepted: c.accepted, rejected: c.rejected, endToEndP99Ms: c.latencyMs.p99 },
      ]),
    ),
  };
}

/**
 * A reply the sink still holds (a fault's delay) may yet take messages the client gave up on
 * (unconfirmed): the sink's count waits for its sessions to end, at most the longest delay
 * (10 s at most), unless this client cut the run (a second signal: the user wants out now).
 */
async function sinkSettled(sink: Sink, stats: StatsSnapshot, faults: readonly FaultRule[]) {
  if (outcomesOf(stats.counters).unconfirmed === 0) return;
  if (stats.errors.some((e) => e.reply === "stopped")) return;
  const until = Date.now() + Math.min(longestDelayMs(faults), 10_000) + 100;
  while (sink.stats().sessionsActive > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * --receive: the load goes to the gateway with trace ids in every message, the run's sink
 * receives what the gateway relays, and the Result gets its delivery section.
 */
async function throughGateway(
  config: RunConfig,
  target: Target,
  receive: ReceiveConfig,
  io: RunIo,
  extras: RunExtras,
  wire: MessageWire,
): Promise<RunOutcome> {
  const receiving = await startReceiving(receive, config, wire, extras.sink, extras.onDrain);
  const records: LoadRecords = { firstEventMs: 0, stream: receiving.stream };
  const withInside = { ...io, progress: receiving.progress(io.progress) };
  let loaded: Loaded;
  try {
    loaded = await loadAgainst(
      config,
      target,
      formatTarget(target),
      withInside,
      extras,
      wire,
      records,
    );
  } catch (error) {
    await receiving.close();
    throw error;
  }
  io.onDrainStart?.(() => receiving.interrupt());
  const accepted = outcomesOf(loaded.parts.stats.counters).accepted;
  const delivery = await receiving.finish(accepted, records);
  return finished(loaded, { delivery });
}

/**
 * --receive elsewhere: a sink on another host receives; the run sends with trace ids and keeps
 * each accepted message in its result, for `report --arrivals` to join offline.
 */
async function keepingLedger(
  config: RunConfig,
  target: Target,
  io: RunIo,
  extras: RunExtras,
  wire: MessageWire,
): Promise<RunOutcome> {
  const records: LoadRecords = { firstEventMs: 0 };
  const label = formatTarget(target);
  const loaded = await loadAgainst(config, target, label, io, extras, wire, records);
  return finished(loaded, { acceptLedger: [ledgerOf(config, records, wire)] });
}

async function loadAgainst(
  config: RunConfig,
  target: Target,
  label: string,
  io: RunIo,
  extras: RunExtras,
  wire: MessageWire,
  records?: LoadRecords,
): Promise<Loaded> {
  const frozen: RunConfig = Object.freeze({ ...config, target });
  const load = runOnThreads(frozen, config.workers, {
    trace: io.trace,
    progress: io.progress,
    wire,
    accepts: records?.stream,
  });
  io.onStart?.(load.stop, load.drain);
  const outcome = await load.result;
  mark("load settled");
  if (records) {
    records.accepts = outcome.stats.accepts;
    records.firstEventMs = outcome.stats.firstEventMs;
  }
  const { firstEventMs, lastEventMs } = outcome.stats;
  markEpoch("first connect", firstEventMs);
  markEpoch("last reply", lastEventMs);
  return {
    parts: {
      stats: outcome.stats,
      generator: { threads: outcome.threads, open: openLoad(config, outcome) },
      shard: shardHeader(config, firstEventMs, lastEventMs),
      sources: wire.sources(),
    },
    meta: {
      mode: config.mode,
      target: label,
      runId: config.runId,
      // A shard's own sessions: merged shards add up to the run's.
      sessions: shardShare(config.sessions, config.messages, config.shard ?? WHOLE_RUN).sessions,
      apdexMs: extras.apdexMs,
      run: extras.run?.(),
    },
  };
}

/** The open model's start lateness, with the tightest interval of the run (at its highest rate). */
function openLoad(config: RunConfig, outcome: ThreadOutcome) {
  const { rate } = config.load;
  if (!rate || !outcome.lateness) return null;
  return {
    arrivalIntervalMs: 1000 / Math.max(...rate.map((p) => p.value)),
    lateness: outcome.lateness,
  };
}
