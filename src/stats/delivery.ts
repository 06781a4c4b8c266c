/**
 * The delivery join's verdict: each message the gateway accepted (AcceptRecords, from the
 * client) against what arrived at the receiving sink (ArrivalRecord, from sink/receive.ts), in
 * exactly one final state. The join itself streams (stats/delivery-join.ts);
 * stats/result-schema/delivery.ts holds the one definition of each figure.
 */
import type { AcceptRecords } from "./accept-ledger.js";
import { DeliveryJoin } from "./delivery-join.js";
import type { ArrivalCounts, ArrivalRecord, DeliveryResult } from "./delivery-result.js";

export { stateOf } from "./delivery-tally.js";

/** One run's side of the join (or one shard's): its accepted messages and what arrived. */
export interface JoinPart {
  runId: string;
  accepts: AcceptRecords;
  arrivals: ReadonlyMap<number, ArrivalRecord>;
  /** Epoch ms of this run's last arrival (not late); 0: none. */
  lastArrivalMs: number;
  /** The message's class, an index into JoinInputs.classNames. */
  classOf(seq: number): number;
  recipientsOf(seq: number): number;
}

export interface JoinInputs {
  receiver: string;
  /** One run's, or one per shard of a run sharded across machines. */
  parts: readonly JoinPart[];
  /** The receiving sink's counts (foreign mail, notices) beside the per-run records. */
  counts: Omit<ArrivalCounts, "lastArrivalMs">;
  classNames: readonly string[];
  firstConnectMs: number;
  drainTimedOut: boolean;
  /** The arrivals were timed by another host's clock (report --arrivals). */
  otherClock?: boolean;
}

/**
 * The join of whole runs at once: each part's accept records, then what arrived of its run.
 * Parts of one run (its shards) share its arrivals; the same streaming join a run's own
 * receiver feeds as the run goes.
 */
export function joinDeliveries(input: JoinInputs): DeliveryResult {
  const join = new DeliveryJoin({ classNames: input.classNames });
  const arrivalsOf = new Map<string, ReadonlyMap<number, ArrivalRecord>>();
  for (const part of input.parts) {
    join.addRun(part.runId, part);
    arrivalsOf.set(part.runId, part.arrivals);
    join.arrivedUntil(part.lastArrivalMs);
  }
  for (const part of input.parts) join.acceptAll(part.runId, part.accepts);
  for (const [runId, arrivals] of arrivalsOf) {
    for (const [seq, a] of arrivals) join.arrival(runId, seq, a);
  }
  return join.finish(input);
}

/** Lost, partial, bounced or duplicated messages fail the run, as a failed message does. */
export function deliveryFailed(d: DeliveryResult): boolean {
  return d.lost > 0 || d.partial > 0 || d.bounced > 0 || d.duplicated > 0;
}

/**
 * What limited the flow, in words: the accept rate is never shown as the gateway's throughput
 * when it relayed less.
 */
export function deliveryVerdict(d: DeliveryResult): string {
  const accept = Math.round(d.acceptedPerSecond);
  const relay = Math.round(d.relayedPerSecond);
  if (d.accepted === 0) return "the gateway accepted nothing";
  // Within a tenth, the gateway relayed as fast as it accepted: the client set the pace.
  if (relay >= accept * 0.9)
    return `the gateway accepts ${accept}/s and relays as fast (${relay}/s)`;
  return `the gateway accepts ${accept}/s and relays ${relay}/s; backlog +${Math.round(d.backlogPerSecond)}/s`;
}
