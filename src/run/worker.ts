/**
 * The piscina task: one worker thread drives its share of the sessions on its own event loop.
 * It is stopped by a message on its port, never by abort (abort kills the thread and its
 * partial counts), and it resolves only after every socket it opened has closed.
 */
import type { MessagePort } from "node:worker_threads";
import type { RunConfig } from "../config/run-config.js";
import type { AcceptChunk } from "../delivery/accept-ledger.js";
import {
  runThreadShare,
  type ThreadOutcome,
  type ThreadProgress,
  type ThreadShare,
} from "./thread-run.js";

export interface WorkerTask {
  config: RunConfig;
  share: ThreadShare;
  /** Carries `stop` from the main thread and the conversation lines (-v) back to it. */
  port: MessagePort;
  trace: boolean;
  /** The thread's name in the Result's generator section ("worker 1", …). */
  threadName: string;
  /** The run's connection and message counters (RunOrdinals.shared()), one for all threads. */
  ordinals: Uint32Array;
  /** Stream the accept records to the main thread's join as they come (--receive ADDR). */
  streamAccepts: boolean;
}

/** Messages on a worker's port. */
export type ToWorker = { type: "stop" } | { type: "drain" };
export type FromWorker =
  | { type: "trace"; line: string }
  | { type: "progress"; progress: ThreadProgress }
  | { type: "accepts"; chunk: AcceptChunk };

export default async function runWorkerTask(task: WorkerTask): Promise<ThreadOutcome> {
  const { port } = task;
  const trace = task.trace
    ? (line: string) => port.postMessage({ type: "trace", line } satisfies FromWorker)
    : undefined;
  const progress = (p: ThreadProgress) =>
    port.postMessage({ type: "progress", progress: p } satisfies FromWorker);
  const accepts = task.streamAccepts
    ? (chunk: AcceptChunk) => port.postMessage({ type: "accepts", chunk } satisfies FromWorker)
    : undefined;
  const load = runThreadShare(task.config, task.share, {
    trace,
    progress,
    accepts,
    threadName: task.threadName,
    ordinals: task.ordinals,
  });
  port.on("message", (message: ToWorker) => {
    if (message.type === "stop") load.stop();
    else if (message.type === "drain") load.drain();
  });
  try {
    return await load.result;
  } finally {
    port.close();
  }
}
