/**
 * The delivery join's verdict: each message the gateway accepted (AcceptRecords, from the
 * client) against what arrived at the receiving sink (ArrivalRecord, from delivery/receiver.ts), in
 * exactly one final state. The join itself streams (delivery/join.ts);
 * result/schema/delivery.ts holds the one definition of each figure.
 */
import type { AcceptRecords } from "../stats/accept-records.js";
import { DeliveryJoin, type DrainOutcome } from "./join.js";
import type { ArrivalCounts, ArrivalRecord, DeliveryResult } from "./records.js";

export { stateOf } from "./tally.js";

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
  /** How the run's drain ended; none for an offline join. */
  drain?: DrainOutcome;
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

/** Whether the delivery fails the run: defined with the run's exit code (result/exit-code.ts). */
export { deliveryFailed } from "../result/exit-code.js";

/** Seconds of steady accepting a backlog's trend is judged over, at least. */
const PLATEAU_SECONDS = 3;

/**
 * What limited the flow, in words: the relay rate against the accept rate over the plateau,
 * and whether the backlog inside the gateway grew, held or shrank meanwhile (whole-run means
 * hide a queue that grew all along and drained at the end).
 */
export function deliveryVerdict(d: DeliveryResult): string {
  if (d.accepted === 0) return "the gateway accepted nothing";
  if (keysStripped(d)) {
    return `nothing that arrived carried this run's keys (${d.foreign} foreign): the gateway stripped them; run with --tag-recipients`;
  }
  if (d.plateau.toSecond - d.plateau.fromSecond < PLATEAU_SECONDS) {
    const accepted = Math.round(d.acceptedPerSecond);
    return `the gateway accepted ${accepted}/s and relayed ${Math.round(d.relayedPerSecond)}/s over the run, too short to judge its backlog's trend`;
  }
  const accept = Math.round(d.plateau.acceptedPerSecond);
  const relay = Math.round(d.plateau.relayedPerSecond);
  const t = d.backlogTrend;
  const slope = Math.round(Math.abs(t.perSecond));
  if (t.trend === "growing") {
    return `the gateway accepts ${accept}/s and relays ${relay}/s: its backlog grew by ${slope}/s`;
  }
  if (t.trend === "shrinking") {
    return `the gateway accepts ${accept}/s and relays ${relay}/s: its backlog shrank by ${slope}/s`;
  }
  return `the gateway relays as fast as it accepts (${relay}/s of ${accept}/s): its backlog held steady`;
}

/**
 * Mail arrived but none of it could be joined: the gateway removed every key (header,
 * Message-ID) and passed no ENVID, and the recipients carried no tag.
 */
export function keysStripped(d: DeliveryResult): boolean {
  const joined = Object.values(d.keys).reduce((n, k) => n + k, 0);
  return d.foreign > 0 && joined === 0 && d.unconfirmed === 0;
}

/** How the drain ended, in words: how long it waited and for how many. */
export function drainText(d: DeliveryResult): string {
  const { end, waitedMs, missing } = d.drain;
  const waited = `waited ${(waitedMs / 1000).toFixed(1)} s`;
  const messages = `${missing} message${missing === 1 ? "" : "s"}`;
  switch (end) {
    case "arrived":
      return `${waited}: every message accounted for`;
    case "timedOut":
      return `${waited} for ${messages}: timed out`;
    case "interrupted":
      return `${waited}, then interrupted: ${messages} not waited for`;
    case "skipped":
      return `--drain-timeout 0: nothing waited for (${messages} still inside the gateway)`;
    default:
      return "no drain (joined offline)";
  }
}
