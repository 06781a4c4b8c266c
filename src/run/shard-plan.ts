/**
 * A machine shard's load and its worker threads', composed: shard i of N sends the messages
 * i, i+N, i+2N, …; its W workers split that stripe again as splitShares splits a whole run, so
 * worker w of shard i sends the sequence numbers i + N·(w + W·j) for j = 0, 1, 2, …. Over all
 * shards and workers these are 0 … messages−1, each once.
 */
import { type Shard, shardCount, stripeCount } from "../config/shard.js";
import type { LoadShare } from "./load.js";
import { ArrivalSchedule, type StagePoint } from "./schedule.js";
import { splitShares } from "./shard.js";
import type { SeqSpace } from "./work.js";

/** The whole run as one shard: what a run without --shard is. */
export const WHOLE_RUN: Shard = Object.freeze({ index: 0, count: 1 });

/** Shard i's part of the run, as one share: its sessions, its stripe and 1/N of the rate. */
export function machineShare(sessions: number, messages: number, shard: Shard): LoadShare {
  const { index, count } = shard;
  return {
    sessions: shardCount(sessions, index, count),
    messages: stripeCount(messages, index, count),
    seqBase: index,
    stride: count,
    rateShare: 1 / count,
  };
}

/**
 * Numbers inside numbers: `inner` numbers an outer space's own 0, 1, 2, …, so its j-th number
 * is outer.seqBase + outer.stride · (inner.seqBase + inner.stride · j).
 */
export function composeSeqSpace(outer: SeqSpace, inner: SeqSpace): SeqSpace {
  return {
    seqBase: outer.seqBase + outer.stride * inner.seqBase,
    stride: outer.stride * inner.stride,
  };
}

/** The shares of this machine's worker threads, numbered within the whole sharded run. */
export function shardShares(
  sessions: number,
  messages: number,
  shard: Shard,
  workers: number,
): LoadShare[] {
  const machine = machineShare(sessions, messages, shard);
  return splitShares(machine.sessions, machine.messages, workers).map((worker) => ({
    ...worker,
    ...composeSeqSpace(machine, worker),
    rateShare: machine.rateShare * worker.rateShare,
  }));
}

/**
 * The open model's arrivals of one share, striped out of the unsharded schedule: the share's
 * j-th arrival is the run's arrival seqBase + stride·j, at that arrival's intended time. So the
 * union over shares is the unsharded schedule itself, time for time, and latency measured from
 * these times survives a merge (coordinated-omission correction included). Scaling the rate by
 * rateShare instead gives the right rate but shifted times.
 */
export class StripedArrivals {
  private readonly schedule: ArrivalSchedule;

  /** @param rate the whole run's rate stages, not scaled by the share. */
  constructor(
    rate: readonly StagePoint[],
    private readonly space: SeqSpace,
  ) {
    this.schedule = new ArrivalSchedule(rate);
  }

  /** The run-wide arrival number of this share's j-th arrival. */
  arrivalIndex(j: number): number {
    return this.space.seqBase + this.space.stride * j;
  }

  /** Milliseconds from the run's start at which this share's arrival j is due. Non-decreasing j. */
  arrivalTime(j: number): number {
    return this.schedule.arrivalTime(this.arrivalIndex(j));
  }
}
