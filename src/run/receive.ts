/**
 * A run through a gateway (--receive): the run's built-in sink listens where the gateway
 * relays, the load goes to the gateway with trace ids in every message, and after the last
 * message the run waits (the drain) until every accepted message is accounted for or
 * --drain-timeout has passed, then keeps listening --late-window longer. The join
 * (stats/delivery.ts) puts each accepted message in one final state.
 */
import type { ReceiveConfig } from "../config/receive-options.js";
import type { RunConfig } from "../config/run-config.js";
import type { MessageWire } from "../messages/wire.js";
import { Receiver, type SinkOptions, startSink } from "../sink/index.js";
import {
  type AcceptLedgerJson,
  type AcceptRecords,
  acceptLedgerJson,
} from "../stats/accept-ledger.js";
import { epochMs } from "../stats/clock.js";
import { joinDeliveries } from "../stats/delivery.js";
import type { DeliveryResult } from "../stats/delivery-result.js";
import type { Result } from "../stats/result.js";
import { mark } from "../stats/timeline.js";
import type { Progress } from "./progress.js";

/** How often the drain looks whether every accepted message has arrived. */
const DRAIN_POLL_MS = 100;

/** What the load's merged snapshot holds for the join. */
export interface LoadRecords {
  accepts?: AcceptRecords;
  /** Epoch ms of the first connect. */
  firstEventMs: number;
}

export interface ReceivingSink {
  readonly receiver: Receiver;
  /** The progress hook with the messages still inside the gateway added. */
  progress(hook: ((p: Progress) => void) | undefined): ((p: Progress) => void) | undefined;
  /** Stops the sink without a join (the load failed). */
  close(): Promise<void>;
  /** After the load: drains, waits the late window, closes the sink and joins. */
  finish(
    result: Result,
    load: LoadRecords,
    config: RunConfig,
    wire: MessageWire,
  ): Promise<DeliveryResult>;
}

export async function startReceiving(
  receive: ReceiveConfig,
  runId: string,
  sinkOptions: Omit<Partial<SinkOptions>, "listen"> | undefined,
  /** Messages still inside the gateway, about once a second while draining; -1 at its end. */
  onDrain?: (inside: number) => void,
): Promise<ReceivingSink> {
  const receiver = new Receiver(runId);
  const sink = await startSink({ ...sinkOptions, listen: [receive.listen] }, receiver);
  mark("receiving sink listening");
  return {
    receiver,
    close: () => sink.close(),
    progress: (hook) =>
      hook && ((p) => hook({ ...p, insideGateway: Math.max(0, p.accepted - receiver.accounted) })),
    async finish(result, load, config, wire) {
      let timedOut = false;
      try {
        timedOut = !(await drain(receiver, result.messages.accepted, receive, onDrain));
        onDrain?.(-1);
        receiver.lateAfterMs = epochMs();
        if (receive.lateWindowMs > 0) await sleep(receive.lateWindowMs);
      } finally {
        await sink.close();
        mark("receiving sink closed");
      }
      return joinDeliveries({
        receiver: receive.listen,
        parts: [
          {
            runId,
            accepts: load.accepts ?? NO_ACCEPTS,
            arrivals: receiver.arrivals,
            lastArrivalMs: receiver.counts.lastArrivalMs,
            classOf: (seq) => wire.classOf(seq).index,
            recipientsOf: (seq) => wire.classOf(seq).recipients,
          },
        ],
        counts: receiver.counts,
        classNames: config.classes.map((c) => c.name),
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
  onDrain?: (inside: number) => void,
): Promise<boolean> {
  const deadline = Date.now() + receive.drainTimeoutMs;
  let lastShown = 0;
  while (receiver.accounted < accepted) {
    if (Date.now() >= deadline) return false;
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
