/**
 * A run through a gateway (--receive): the run's built-in sink listens where the gateway
 * relays, the load goes to the gateway with trace ids in every message, and after the last
 * message the run waits (the drain) until every accepted message is accounted for or
 * --drain-timeout has passed, then keeps listening --late-window longer. The join
 * (stats/delivery-join.ts) runs as the run goes: the threads stream their accept records to it
 * and the receiver its arrivals, and it keeps only the messages in flight.
 */
import type { ReceiveConfig } from "../config/receive-options.js";
import type { RunConfig } from "../config/run-config.js";
import { parseListen, type SinkSettings, withSinkDefaults } from "../config/sink-config.js";
import type { MessageWire } from "../messages/wire.js";
import { Receiver, startSink } from "../sink/index.js";
import {
  type AcceptChunk,
  type AcceptLedgerJson,
  type AcceptRecords,
  acceptLedgerJson,
} from "../stats/accept-ledger.js";
import { epochMs } from "../stats/clock.js";
import { DeliveryJoin } from "../stats/delivery-join.js";
import type { DeliveryResult } from "../stats/delivery-result.js";
import type { Result } from "../stats/result.js";
import { mark } from "../stats/timeline.js";
import type { Progress } from "./progress.js";

/** How often the drain looks whether every accepted message has arrived. */
const DRAIN_POLL_MS = 100;

/**
 * How far the join's timeline stays behind the threads' last reports: the threads' clocks
 * (each its own performance.timeOrigin) may differ by a little.
 */
const CLOCK_SLACK_MS = 100;

/** How long a run waits for its threads' last accept records, at most. */
const LAST_ACCEPTS_MS = 10_000;

/** What the load's merged snapshot holds for the join. */
export interface LoadRecords {
  accepts?: AcceptRecords;
  /** Epoch ms of the first connect. */
  firstEventMs: number;
  /** Takes the threads' accept records as they come (--receive ADDR). */
  stream?: (chunk: AcceptChunk, thread: number, threads: number) => void;
}

export interface ReceivingSink {
  readonly receiver: Receiver;
  /** The streaming join the receiver and the threads' accept records feed. */
  readonly join: DeliveryJoin;
  /** Takes the threads' accept records as they come. */
  stream(chunk: AcceptChunk, thread: number, threads: number): void;
  /** The progress hook with the messages still inside the gateway added. */
  progress(hook: ((p: Progress) => void) | undefined): ((p: Progress) => void) | undefined;
  /** Stops the sink without a join (the load failed). */
  close(): Promise<void>;
  /** After the load: drains, waits the late window, closes the sink and joins. */
  finish(result: Result, load: LoadRecords): Promise<DeliveryResult>;
}

/**
 * The threads' accept records into the join, and what they tell of time: the run's first
 * connect (once every thread has connected or ended) and the horizon before which no more
 * 250s can come (the oldest of the threads' last reports).
 */
class AcceptFeed {
  private through: number[] = [];
  private first: number[] = [];
  private final: boolean[] = [];

  constructor(
    private readonly join: DeliveryJoin,
    private readonly runId: string,
  ) {}

  chunk(chunk: AcceptChunk, thread: number, threads: number): void {
    if (this.through.length !== threads) {
      this.through = Array.from({ length: threads }, () => Number.NEGATIVE_INFINITY);
      this.first = Array.from({ length: threads }, () => 0);
      this.final = Array.from({ length: threads }, () => false);
    }
    this.join.acceptAll(this.runId, chunk.records);
    this.through[thread] = chunk.final ? Number.POSITIVE_INFINITY : chunk.throughMs;
    this.first[thread] = chunk.firstEventMs;
    this.final[thread] ||= chunk.final;
    if (this.first.every((ms, i) => ms > 0 || this.final[i])) {
      const connects = this.first.filter((ms) => ms > 0);
      if (connects.length > 0) this.join.timeline.setOrigin(Math.min(...connects));
    }
    this.advance();
  }

  /** Moves the join's timeline on to what every thread and the receiver have reported. */
  advance(): void {
    if (this.through.length === 0) return;
    this.join.advance(Math.min(epochMs(), ...this.through) - CLOCK_SLACK_MS);
  }

  get allFinal(): boolean {
    return this.final.length > 0 && this.final.every(Boolean);
  }
}

export async function startReceiving(
  receive: ReceiveConfig,
  config: RunConfig,
  wire: MessageWire,
  sinkOptions: SinkSettings | undefined,
  /** Messages still inside the gateway, about once a second while draining; -1 at its end. */
  onDrain?: (inside: number) => void,
): Promise<ReceivingSink> {
  const { runId } = config;
  const join = new DeliveryJoin({ classNames: config.classes.map((c) => c.name) });
  join.addRun(runId, {
    classOf: (seq) => wire.classOf(seq).index,
    recipientsOf: (seq) => wire.classOf(seq).recipients,
  });
  const feed = new AcceptFeed(join, runId);
  const receiver = new Receiver(runId, join);
  const listen = [parseListen(receive.listen, "--receive")];
  const sink = await startSink(withSinkDefaults({ ...sinkOptions, listen }), receiver);
  mark("receiving sink listening");
  return {
    receiver,
    join,
    stream: (chunk, thread, threads) => feed.chunk(chunk, thread, threads),
    close: () => sink.close(),
    progress: (hook) =>
      hook && ((p) => hook({ ...p, insideGateway: Math.max(0, p.accepted - receiver.accounted) })),
    async finish(result, load) {
      let timedOut = false;
      try {
        const accepted = result.messages.accepted;
        timedOut = !(await drain(receiver, accepted, receive, () => feed.advance(), onDrain));
        onDrain?.(-1);
        receiver.lateAfterMs = epochMs();
        if (receive.lateWindowMs > 0) await sleep(receive.lateWindowMs);
      } finally {
        await sink.close();
        mark("receiving sink closed");
      }
      // A worker's last records cross on its own port: they may come after its result.
      for (let waited = 0; !feed.allFinal && waited < LAST_ACCEPTS_MS; waited += DRAIN_POLL_MS) {
        await sleep(DRAIN_POLL_MS);
      }
      join.acceptAll(runId, load.accepts ?? NO_ACCEPTS);
      return join.finish({
        receiver: receive.listen,
        counts: receiver.counts,
        firstConnectMs: load.firstEventMs,
        drainTimedOut: timedOut,
      });
    },
  };
}

const NO_ACCEPTS: AcceptRecords = { seq: [], intendedMs: [], acceptedMs: [], queueId: [] };

/** The run's accepted messages for its result (--receive elsewhere). */
export function ledgerOf(
  config: RunConfig,
  load: LoadRecords,
  wire: MessageWire,
): AcceptLedgerJson {
  return acceptLedgerJson(
    config.runId,
    load.firstEventMs,
    config.classes.map((c) => c.name),
    load.accepts ?? NO_ACCEPTS,
    (seq) => wire.classOf(seq),
  );
}

/** Waits until `accepted` messages are accounted for; false when the timeout came first. */
async function drain(
  receiver: Receiver,
  accepted: number,
  receive: ReceiveConfig,
  tick: () => void,
  onDrain?: (inside: number) => void,
): Promise<boolean> {
  const deadline = Date.now() + receive.drainTimeoutMs;
  let lastShown = 0;
  while (receiver.accounted < accepted) {
    if (Date.now() >= deadline) return false;
    tick();
    if (onDrain && Date.now() - lastShown >= 1000) {
      lastShown = Date.now();
      onDrain(accepted - receiver.accounted);
    }
    await sleep(DRAIN_POLL_MS);
  }
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
