/**
 * Splits a run's sessions and messages across worker threads and merges what they count.
 * One worker runs in-process (no thread); more use a piscina pool, one task per worker.
 */
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { RunConfig } from "../config/run-config.js";
import { mergeSnapshots, type StatsSnapshot } from "../stats/collector.js";
import { type LoadShare, runLoad } from "./load.js";
import type { FromWorker, ToWorker, WorkerTask } from "./worker.js";

export interface ShardedLoad {
  result: Promise<StatsSnapshot>;
  stop: () => void;
}

/**
 * Shares as even as whole numbers allow: worker i gets floor or ceil of sessions/N and of
 * messages/N, and a disjoint range of sequence numbers. Workers without a session get nothing.
 */
export function splitShares(sessions: number, messages: number, workers: number): LoadShare[] {
  const n = Math.max(1, Math.min(workers, sessions, messages));
  const shares: LoadShare[] = [];
  let seqBase = 0;
  for (let i = 0; i < n; i++) {
    const s = Math.floor(sessions / n) + (i < sessions % n ? 1 : 0);
    const m = Math.floor(messages / n) + (i < messages % n ? 1 : 0);
    shares.push({ sessions: s, messages: m, seqBase });
    seqBase += m;
  }
  return shares;
}

export function runSharded(
  config: RunConfig,
  workers: number,
  trace?: (line: string) => void,
): ShardedLoad {
  const shares = splitShares(config.sessions, config.messages, workers);
  if (shares.length === 1) return runLoad(config, shares[0], { trace });
  const pool = new Piscina({
    filename: new URL("./worker.js", import.meta.url).href,
    minThreads: shares.length,
    maxThreads: shares.length,
    // The task keeps its event loop busy with sockets; never block it waiting for tasks.
    atomics: "disabled",
    idleTimeout: 1000,
  });
  const ports = shares.map((share, i) => {
    const { port1, port2 } = new MessageChannel();
    port1.on("message", (message: FromWorker) => {
      if (message.type === "trace") trace?.(message.line);
    });
    const task: WorkerTask = { config, share, port: port2, trace: i === 0 && trace !== undefined };
    return {
      port: port1,
      done: pool.run(task, { transferList: [port2] }) as Promise<StatsSnapshot>,
    };
  });
  const result = Promise.all(ports.map((p) => p.done))
    .then((parts) => mergeSnapshots(parts))
    .finally(async () => {
      for (const p of ports) p.port.close();
      await pool.destroy();
    });
  return {
    result,
    stop: () => {
      for (const p of ports) p.port.postMessage({ type: "stop" } satisfies ToWorker);
    },
  };
}
