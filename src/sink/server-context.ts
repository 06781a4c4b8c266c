/** What every session of one sink shares: checked options, prebuilt replies, counters, limits. */
import type { SecureContext } from "node:tls";
import type { ArrivalListener } from "./arrival-listener.js";
import type { ChunkClock } from "./chunk-clock.js";
import type { ClassCounter, SinkCounters } from "./counters.js";
import type { EnvelopeLog } from "./envelope-log.js";
import type { FaultInjector } from "./faults.js";
import type { FilledSinkOptions } from "./filled-options.js";
import type { GatewayLimits } from "./limits.js";
import type { Replies } from "./replies.js";
import type { SessionIdCache } from "./tls-material.js";

export interface SinkContext {
  readonly options: FilledSinkOptions;
  readonly replies: Replies;
  readonly counters: SinkCounters;
  readonly faults: FaultInjector;
  readonly limits: GatewayLimits;
  /** Null when per-class counting is off. */
  readonly classes: ClassCounter | null;
  /** For STARTTLS; null when STARTTLS is off and no TLS listener exists. */
  readonly secureContext: SecureContext | null;
  /** Sessions resumed by ID; null when TLS is off or the sink refuses resumption. */
  readonly tlsSessions: SessionIdCache | null;
  /** Octets of each message start to keep for inspection: 0, a header window, or all. */
  readonly keepBytes: number;
  /** An accepted message's content (dot-stuffed as received when `stuffed`), for --dump. */
  dump(content: Buffer[], stuffed: boolean): void;
  /** --log-envelopes; null when off (sessions then keep no addresses). */
  readonly envelopes: EnvelopeLog | null;
  /** The time as of the read chunk being processed; sessions tick it for each chunk. */
  readonly clock: ChunkClock;
  /** The run's delivery join (--receive); null for a sink on its own. */
  readonly receiver: ArrivalListener | null;
  /** Called after every accepted message and every ended session (exit-after-N checks). */
  progress(): void;
}
