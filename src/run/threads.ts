/**
 * Splits a run's sessions and messages across worker threads and merges what they count.
 * One worker runs in-process (no thread); more use a piscina pool, one task per worker.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { RunConfig } from "../config/run-config.js";
import type { AcceptChunk } from "../delivery/accept-ledger.js";
import type { MessageWire } from "../messages/message-wire.js";
import { mergeSnapshots } from "../result/merge-snapshots.js";
import { summariseMerged } from "../stats/collector.js";
import { RunOrdinals } from "../stats/first-errors.js";
import {
  GeneratorLoadSampler,
  type ThreadLoad,
  workerThreadName,
} from "../stats/generator-load.js";
import { SeriesJoin, type SeriesPoint } from "../stats/series.js";
import { mergeStartLateness } from "../stats/start-lateness.js";
import { zeroProgressCounts } from "./progress.js";
import { StartGate } from "./start-at.js";
import { threadShares, WHOLE_RUN } from "./thread-plan.js";
import {
  PROGRESS_INTERVAL_MS,
  type Progress,
  type ProgressCounts,
  type RunningLoad,
  runThreadShare,
  type ThreadOutcome,
  type ThreadProgress,
  type ThreadShare,
} from "./thread-run.js";
import type { FromWorker, ToWorker, WorkerTask } from "./worker.js";

export { splitOverThreads } from "./thread-plan.js";

export interface RunHooks {
  /** Prints the conversation of the first session (-v). */
  readonly trace?: (line: string) => void;
  /** The run's running totals, once per PROGRESS_INTERVAL_MS. */
  readonly progress?: (progress: Progress) => void;
  /**
   * Message files already loaded on this thread: a run on this thread sends from them; worker
   * threads load their own (a MessageWire does not cross threads).
   */
  readonly wire?: MessageWire;
  /**
   * The accept records as the threads take them (--receive ADDR): `thread` of `threads` sent
   * `chunk`.
   */
  readonly accepts?: (chunk: AcceptChunk, thread: number, threads: number) => void;
}

export function runOnThreads(
  config: RunConfig,
  workers: number,
  hooks: RunHooks = {},
): RunningLoad {
  const { trace } = hooks;
  const shares = threadShares(config.sessions, config.messages, config.shard ?? WHOLE_RUN, workers);
  if (shares.length === 1) {
    const { progress, accepts } = hooks;
    return runThreadShare(config, shares[0], {
      trace,
      progress: progress ? (p) => progress(sumProgress([p], p.points)) : undefined,
      wire: hooks.wire,
      accepts: accepts ? (chunk) => accepts(chunk, 0, 1) : undefined,
    });
  }
  return runWorkers(config, shares, hooks);
}

/** How long a finished load waits for its workers' last accept records, at most. */
const LAST_ACCEPTS_MS = 10_000;

/**
 * A worker's last accept records cross on its port after its result: the ports stay open until
 * each has brought its final chunk (--receive ADDR), or LAST_ACCEPTS_MS if a worker failed.
 */
class LastAccepts {
  private readonly finals: boolean[];
  private allFinal: () => void = () => {};
  private readonly all = new Promise<void>((resolve) => {
    this.allFinal = resolve;
  });

  constructor(
    private readonly workers: number,
    private readonly hook: RunHooks["accepts"],
  ) {
    this.finals = Array.from({ length: workers }, () => hook === undefined);
  }

  /** Worker `worker`'s chunk of accept records: to the hook, and counted if it is its last. */
  take(chunk: AcceptChunk, worker: number): void {
    this.hook?.(chunk, worker, this.workers);
    this.finals[worker] ||= chunk.final;
    if (this.finals.every(Boolean)) this.allFinal();
  }

  /** Closes the workers' ports once each brought its last records (at most LAST_ACCEPTS_MS). */
  async thenClose(ports: readonly MessagePort[]): Promise<void> {
    if (!this.finals.every(Boolean)) {
      // An unreferenced timer: it never keeps the process alive once the records came.
      await Promise.race([this.all, sleep(LAST_ACCEPTS_MS, undefined, { ref: false })]);
    }
    for (const port of ports) port.close();
  }
}

/** Runs each share on a worker thread of its own, the main thread coordinating. */
function runWorkers(config: RunConfig, shares: ThreadShare[], hooks: RunHooks): RunningLoad {
  const { trace } = hooks;
  // The main thread only coordinates, but it is a thread of the generator: it is sampled too,
  // from the load's start on (--start-at), as the workers sample themselves.
  const gate = new StartGate(config.startAt);
  const sampling = gate
    .wait()
    .then(() => new GeneratorLoadSampler("main", config.intervalMs).start().drive());
  const { report, ticker } = progressTicker(shares.length, hooks.progress);
  // Loaded here, not with every run: one worker runs in-process without it.
  const pool = import("piscina").then(
    ({ Piscina }) =>
      new Piscina({
        filename: new URL("./worker.js", import.meta.url).href,
        minThreads: shares.length,
        maxThreads: shares.length,
        // The task keeps its event loop busy with sockets; never block it waiting for tasks.
        atomics: "disabled",
        idleTimeout: 1000,
      }),
  );
  // One count of connections and messages for all threads: where an error first came.
  const ordinals = RunOrdinals.shared();
  const lastAccepts = new LastAccepts(shares.length, hooks.accepts);
  const ports = shares.map((share, i) => {
    const { port1, port2 } = new MessageChannel();
    port1.on("message", (message: FromWorker) => {
      if (message.type === "trace") trace?.(message.line);
      else if (message.type === "progress") report(i, message.progress);
      else if (message.type === "accepts") lastAccepts.take(message.chunk, i);
    });
    const task: WorkerTask = {
      config,
      share,
      port: port2,
      trace: i === 0 && trace !== undefined,
      threadName: workerThreadName(i),
      ordinals,
      streamAccepts: hooks.accepts !== undefined,
    };
    return {
      port: port1,
      done: pool.then((p) => p.run(task, { transferList: [port2] }) as Promise<ThreadOutcome>),
    };
  });
  const result = Promise.all(ports.map((p) => p.done))
    .then(async (parts) => mergeOutcomes((await sampling).stop(), parts))
    .finally(async () => {
      gate.open();
      (await sampling).stop(); // already stopped unless a worker failed
      if (ticker) clearInterval(ticker);
      await lastAccepts.thenClose(ports.map((p) => p.port));
      await (await pool).destroy();
    });
  const tell = (type: ToWorker["type"]) => () => {
    gate.open();
    for (const p of ports) p.port.postMessage({ type } satisfies ToWorker);
  };
  return { result, stop: tell("stop"), drain: tell("drain") };
}

/**
 * Each worker reports its own running totals; the sum is the run's, reported once a second from
 * the main thread, whatever order the workers report in.
 */
function progressTicker(workers: number, progress: RunHooks["progress"]) {
  const latest: (ThreadProgress | null)[] = Array.from({ length: workers }, () => null);
  const series = new SeriesJoin(workers);
  const report = (i: number, p: ThreadProgress) => {
    latest[i] = p;
    series.add(i, p.points);
  };
  const ticker = progress
    ? setInterval(() => {
        if (latest.some((p) => p !== null)) progress(sumProgress(latest, series.take()));
      }, PROGRESS_INTERVAL_MS)
    : null;
  return { report, ticker };
}

/** The workers' outcomes as the run's: counts merge, thread rows line up after the main's. */
function mergeOutcomes(main: ThreadLoad, parts: readonly ThreadOutcome[]): ThreadOutcome {
  const lateness = parts.flatMap((p) => (p.lateness ? [p.lateness] : []));
  return {
    stats: mergeSnapshots(parts.map((p) => p.stats)),
    threads: [main, ...parts.flatMap((p) => p.threads)],
    lateness: lateness.length > 0 ? mergeStartLateness(lateness) : null,
  };
}

/**
 * The run's totals from its shares': counts add, latencies merge as histograms first; `points`
 * are the intervals complete across the shares.
 */
function sumProgress(parts: readonly (ThreadProgress | null)[], points: SeriesPoint[]): Progress {
  const total = zeroProgressCounts();
  const keys = Object.keys(total) as (keyof ProgressCounts)[];
  for (const part of parts) {
    if (!part) continue;
    for (const key of keys) total[key] += part[key];
  }
  return {
    ...total,
    recentP99Ms: summariseMerged(parts.map((p) => p?.recentHistogram ?? null)).p99,
    transactionMs: summariseMerged(parts.map((p) => p?.transactionHistogram ?? null)),
    points,
  };
}
