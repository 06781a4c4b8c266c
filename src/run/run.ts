/**
 * One `mailvolley run`: against a target, or (no target) against the built-in sink started
 * in-process, with the sink's own count beside the client's.
 */

import type { Target } from "../config/parse.js";
import { formatTarget } from "../config/parse.js";
import type { ReceiveConfig } from "../config/receive-options.js";
import type { RunConfig } from "../config/run-config.js";
import { parseListen, type SinkSettings, withSinkDefaults } from "../config/sink-config.js";
import { deliveryFailed } from "../delivery/delivery-verdict.js";
import { type LoadRecords, ledgerOf, startReceiving } from "../delivery/gateway-run.js";
import { MessageWire } from "../messages/wire.js";
import { sinkAgrees } from "../result/accounting.js";
import { annotateSeries, generatorResult } from "../result/generator-verdict.js";
import { applyOutcome } from "../result/outcome-verdict.js";
import type { Result, RunRecord } from "../result/result.js";
import { buildResult } from "../result/summarise.js";
import { type FaultRule, longestDelayMs, type Sink, startSink } from "../sink/index.js";
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
  // Load the message files here, before any traffic: a bad file fails the run at once, and the
  // result reports what was loaded. An in-process run sends from this copy; each worker thread
  // loads its own.
  const wire = await MessageWire.create(config);
  const sources = wire.sources();
  const withSources = (result: Result) => {
    if (sources.length > 0) result.sources = sources;
    return result;
  };
  if (config.target !== null && extras.receive) {
    return throughGateway(config, config.target, extras.receive, io, extras);
  }
  if (config.target !== null) {
    const label = formatTarget(config.target);
    const result = withSources(await loadAgainst(config, config.target, label, io, extras, wire));
    return { result, exitCode: verdict(result) };
  }
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
    const result = withSources(
      await loadAgainst({ ...config, target }, target, "embedded-sink", io, extras, wire),
    );
    await sinkSettled(sink, result, extras.sink?.faults ?? []);
    const counted = sink.stats();
    result.sink = {
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
    return { result, exitCode: verdict(result) };
  } finally {
    await sink.close();
    mark("sink closed");
  }
}

/**
 * A reply the sink still holds (a fault's delay) may yet take messages the client gave up on
 * (unconfirmed): the sink's count waits for its sessions to end, at most the longest delay
 * (10 s at most), unless this client cut the run (a second signal: the user wants out now).
 */
async function sinkSettled(sink: Sink, result: Result, faults: readonly (FaultRule | string)[]) {
  if ((result.messages.unconfirmed ?? 0) === 0) return;
  if (result.errors.some((e) => e.reply === "stopped")) return;
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
  given: RunConfig,
  target: Target,
  receive: ReceiveConfig,
  io: RunIo,
  extras: RunExtras,
): Promise<RunOutcome> {
  const config: RunConfig = { ...given, traceIds: true, tagRecipients: receive.tagRecipients };
  const wire = await MessageWire.create(config);
  if (receive.elsewhere) return keepingLedger(config, target, io, extras, wire);
  const receiving = await startReceiving(receive, config, wire, extras.sink, extras.onDrain);
  const records: LoadRecords = { firstEventMs: 0, stream: receiving.stream };
  const withInside = { ...io, progress: receiving.progress(io.progress) };
  let result: Result;
  try {
    result = await loadAgainst(
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
  const sources = wire.sources();
  if (sources.length > 0) result.sources = sources;
  io.onDrainStart?.(() => receiving.interrupt());
  const delivery = await receiving.finish(result, records);
  result.delivery = delivery;
  const failed = deliveryFailed(delivery) ? 1 : 0;
  return { result, exitCode: Math.max(verdict(result), failed) };
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
  const result = await loadAgainst(config, target, label, io, extras, wire, records);
  const sources = wire.sources();
  if (sources.length > 0) result.sources = sources;
  result.acceptLedger = [ledgerOf(config, records, wire)];
  return { result, exitCode: verdict(result) };
}

async function loadAgainst(
  config: RunConfig,
  target: Target,
  label: string,
  io: RunIo,
  extras: RunExtras,
  wire: MessageWire,
  records?: LoadRecords,
): Promise<Result> {
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
  markEpoch("first connect", outcome.stats.firstEventMs);
  markEpoch("last reply", outcome.stats.lastEventMs);
  const result = buildResult(outcome.stats, {
    mode: config.mode,
    target: label,
    runId: config.runId,
    // A shard's own sessions: merged shards add up to the run's.
    sessions: shardShare(config.sessions, config.messages, config.shard ?? WHOLE_RUN).sessions,
    apdexMs: extras.apdexMs,
    run: extras.run?.(),
  });
  result.generator = generatorOf(config, outcome, result.messages.dropped);
  applyOutcome(result);
  annotateSeries(result);
  const { firstEventMs, lastEventMs } = outcome.stats;
  const shard = shardHeader(config, firstEventMs, lastEventMs);
  if (shard) result.shard = shard;
  mark("result built");
  return result;
}

/** The Result's generator section: the threads' own load and, open model, start lateness. */
function generatorOf(config: RunConfig, outcome: ThreadOutcome, dropped: number) {
  const { rate } = config.load;
  const open =
    rate && outcome.lateness
      ? {
          // The tightest interval of the run: at its highest rate.
          arrivalIntervalMs: 1000 / Math.max(...rate.map((p) => p.value)),
          lateness: outcome.lateness,
          dropped,
        }
      : null;
  return generatorResult(outcome.threads, open);
}

/** The exit code a finished run earns (see RunOutcome). */
export function verdict(result: Result): number {
  const m = result.messages;
  if (m.accepted !== m.attempted) return 1;
  // The open model asked for more than was sent: the target (or the generator) fell behind.
  if (m.dropped > 0) return 1;
  if (!sinkAgrees(result)) return 1;
  // This machine ran out of descriptors or ports: the load asked for was not offered.
  if (result.errors.some((e) => e.reply === "local-limit")) return 1;
  return 0;
}
