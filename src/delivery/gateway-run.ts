/**
 * A run through a gateway (--receive): the run's built-in sink listens where the gateway
 * relays, the load goes to the gateway with trace ids in every message, and after the last
 * message the run waits (the drain) until every accepted message is accounted for or
 * --drain-timeout has passed, then keeps listening --late-window longer. The join
 * (delivery/join.ts) runs as the run goes: the threads stream their accept records to it
 * and the receiver its arrivals, and it keeps only the messages in flight.
 */
import type { ReceiveConfig } from "../config/receive-options.js";
import type { RunConfig } from "../config/run-config.js";
import { parseListen, type SinkSettings, withSinkDefaults } from "../config/sink-config.js";
import type { MessageWire } from "../messages/message-wire.js";
import { startSink } from "../sink/index.js";
import type { AcceptRecords } from "../stats/accept-records.js";
import { epochMs } from "../stats/clock.js";
import { mark } from "../stats/timeline.js";
import { type AcceptChunk, type AcceptLedgerJson, acceptLedgerJson } from "./accept-ledger.js";
import { DeliveryJoin, type DrainOutcome } from "./join.js";
import { listenFailure, Receiver } from "./receiver.js";
import type { DeliveryResult } from "./records.js";

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

/**
 * What the drain reads of a run's progress report and adds to it (run/progress.ts's Progress
 * is one): the messages accepted so far, and of them those still inside the gateway.
 */
export interface GatewayProgress {
  readonly accepted: number;
  insideGateway?: number;
}

export interface ReceivingSink {
  readonly receiver: Receiver;
  /** The streaming join the receiver and the threads' accept records feed. */
  readonly join: DeliveryJoin;
  /** Takes the threads' accept records as they come. */
  stream(chunk: AcceptChunk, thread: number, threads: number): void;
  /** The progress hook with the messages still inside the gateway added. */
  progress<P extends GatewayProgress>(
    hook: ((p: P) => void) | undefined,
  ): ((p: P) => void) | undefined;
  /** Stops the sink without a join (the load failed). */
  close(): Promise<void>;
  /**
   * Ends the drain and the late window at once (Ctrl-C): what has not arrived is reported as
   * not waited for. Before the drain began, it is not waited for at all.
   */
  interrupt(): void;
  /** After the load: drains, waits the late window, closes the sink and joins. */
  finish(accepted: number, load: LoadRecords): Promise<DeliveryResult>;
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
  const wait = new Interruptible();
  const listen = [parseListen(receive.listen, "--receive")];
  const sink = await startSink(withSinkDefaults({ ...sinkOptions, listen }), receiver).catch(
    (error: NodeJS.ErrnoException) => {
      // Before any traffic: an address this host cannot listen on is the user's to change.
      throw listenFailure("--receive", receive.listen, error);
    },
  );
  mark("receiving sink listening");
  return {
    receiver,
    join,
    stream: (chunk, thread, threads) => feed.chunk(chunk, thread, threads),
    close: () => sink.close(),
    progress: (hook) =>
      hook && ((p) => hook({ ...p, insideGateway: Math.max(0, p.accepted - receiver.accounted) })),
    interrupt() {
      wait.interrupt();
    },
    async finish(accepted, load) {
      const ends = { receiver, sink, feed, wait };
      const drained = await drainThenClose(ends, accepted, receive, onDrain);
      // A worker's last records cross on its own port: they may come after its result.
      for (let waited = 0; !feed.allFinal && waited < LAST_ACCEPTS_MS; waited += DRAIN_POLL_MS) {
        if (wait.interrupted) break;
        await sleep(DRAIN_POLL_MS);
      }
      join.acceptAll(runId, load.accepts ?? NO_ACCEPTS);
      return join.finish({
        receiver: receive.listen,
        counts: receiver.counts,
        firstConnectMs: load.firstEventMs,
        drain: drained,
      });
    },
  };
}

/**
 * The drain, the late window after it, and the receiving sink closed: how the drain ended,
 * how long the run waited and for how many messages still missing.
 */
async function drainThenClose(
  at: {
    receiver: Receiver;
    sink: { close(): Promise<void> };
    feed: AcceptFeed;
    wait: Interruptible;
  },
  accepted: number,
  receive: ReceiveConfig,
  onDrain?: (inside: number) => void,
): Promise<DrainOutcome> {
  const { receiver, feed, wait } = at;
  const started = Date.now();
  let end: DrainOutcome["end"] = "arrived";
  try {
    if (receive.drainTimeoutMs === 0) end = receiver.accounted >= accepted ? "arrived" : "skipped";
    else end = await drain(receiver, accepted, receive, wait, () => feed.advance(), onDrain);
    onDrain?.(-1);
    receiver.lateAfterMs = epochMs();
    if (receive.lateWindowMs > 0 && end !== "interrupted") await wait.sleep(receive.lateWindowMs);
  } finally {
    await at.sink.close();
    mark("receiving sink closed");
  }
  const missing = Math.max(0, accepted - receiver.accounted);
  return { end, waitedMs: Date.now() - started, missing };
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

/** Waits until `accepted` messages are accounted for, the timeout, or an interruption. */
async function drain(
  receiver: Receiver,
  accepted: number,
  receive: ReceiveConfig,
  wait: Interruptible,
  tick: () => void,
  onDrain?: (inside: number) => void,
): Promise<DrainOutcome["end"]> {
  const deadline = Date.now() + receive.drainTimeoutMs;
  let lastShown = 0;
  while (receiver.accounted < accepted) {
    if (wait.interrupted) return "interrupted";
    if (Date.now() >= deadline) return "timedOut";
    tick();
    if (onDrain && Date.now() - lastShown >= 1000) {
      lastShown = Date.now();
      onDrain(accepted - receiver.accounted);
    }
    await wait.sleep(DRAIN_POLL_MS);
  }
  return "arrived";
}

/** Sleeps that an interruption (Ctrl-C) ends at once, and every later one at once too. */
class Interruptible {
  interrupted = false;
  private wake: (() => void) | null = null;

  interrupt(): void {
    this.interrupted = true;
    this.wake?.();
  }

  sleep(ms: number): Promise<void> {
    if (this.interrupted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
