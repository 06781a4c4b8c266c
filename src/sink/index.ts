/**
 * The built-in sink: an SMTP/LMTP server that counts what it receives, fast enough never to be
 * the bottleneck of a self-test, and able to play a gateway under limits or faults.
 */

import type { ArrivalListener } from "./arrival-listener.js";
import type { FilledSinkOptions } from "./filled-options.js";
import type { SinkAddress, SinkStopReason } from "./server.js";
import { loadTlsMaterial } from "./tls-material.js";

export type { SinkClassStats, SinkStats } from "./counters.js";
export type { FaultRule } from "./faults.js";
export { longestDelayMs } from "./faults.js";
export type { BareLfPolicy, FilledSinkOptions, ListenSpec, Rate } from "./filled-options.js";
export { DEFAULT_BACKLOG, somaxconn } from "./kernel.js";
export type { SinkAddress, SinkStopReason } from "./server.js";
export { TLS_INPUTS } from "./tls-material.js";

export interface Sink {
  /** The bound addresses, port 0 resolved; unix listeners carry `path`. */
  readonly addresses: SinkAddress[];
  /** Resolves when an exit condition (--exit-after-*, --idle-exit) is met; never otherwise. */
  readonly finished: Promise<SinkStopReason>;
  /** A copy of the counts. */
  stats(): import("./counters.js").SinkStats;
  /** --dump files that could not be written (an existing name is never written through). */
  dumpFailures(): { count: number; first: string };
  /** --log-envelopes lines the file did not take. */
  envelopeLogFailures(): { count: number; first: string };
  /**
   * Connections the kernel dropped because an accept queue was full since the sink started
   * listening: TcpExt ListenOverflows of /proc/net/netstat, counted for the whole machine, not
   * for this sink alone. null where the kernel does not say.
   */
  listenOverflows(): number | null;
  /** Stops listening, ends open sessions with 421, resolves when every socket has closed. */
  close(): Promise<void>;
}

/**
 * Makes TLS material if needed and binds every listener. The options come checked and filled
 * (config/sink-config.ts fillSinkOptions): the sink parses none of them again.
 */
export async function startSink(
  filled: FilledSinkOptions,
  receiver?: ArrivalListener,
): Promise<Sink> {
  const needTls = filled.starttls || filled.listen.some((spec) => spec.kind === "tls");
  const material = needTls ? await loadTlsMaterial(filled) : null;
  // The server and its sessions load with the first sink, not with every command line that
  // names this module: a run against a target never starts one.
  const { SinkServer } = await import("./server.js");
  const server = new SinkServer(filled, material, receiver ?? null);
  await server.listen();
  return server;
}
