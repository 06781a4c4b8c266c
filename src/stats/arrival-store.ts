/**
 * What the receiving end reports of each message it finds a key in, and the one definition of
 * how a message's ArrivalRecord changes with each copy, refusal and notice. Two stores take
 * these reports: the run's streaming join (stats/delivery-join.ts), which keeps a message only
 * until it has fully arrived, and ArrivalLog, which keeps every message of every run for the
 * file `mailvolley sink --json` writes (a receiver on another host joins nothing itself).
 */
import type { ArrivalRecord, JoinKey, RunArrivals } from "./delivery-result.js";

/** Where the receiving end reports the messages of runs it found keys in. */
export interface ArrivalStore {
  /**
   * A copy of message `seq` of run `runId` arrived for `rcpts` recipients; true when it is the
   * message's first arrival (no copy and no notice came before): the drain counts it.
   */
  copy(
    runId: string,
    seq: number,
    key: JoinKey,
    rcpts: number,
    atMs: number,
    late: boolean,
  ): boolean;
  /** The receiver refused a transaction of the message (a fault at RCPT or after the data). */
  refused(runId: string, seq: number, key: JoinKey, atMs: number): void;
  /** A delivery notice for the message, with its Status; true when it is its first arrival. */
  notice(runId: string, seq: number, status: string, atMs: number): boolean;
}

export function newArrival(key: JoinKey): ArrivalRecord {
  return {
    firstMs: 0,
    copies: 0,
    rcpts: 0,
    refusals: 0,
    firstRefusalMs: 0,
    bounceStatus: "",
    key,
    late: false,
  };
}

/** A copy into `a`; true when it is the message's first arrival. */
export function addCopy(
  a: ArrivalRecord,
  key: JoinKey,
  rcpts: number,
  atMs: number,
  late: boolean,
): boolean {
  const first = a.copies === 0 && a.bounceStatus === "";
  if (first) {
    a.firstMs = atMs;
    a.key = key;
    a.late = late;
  }
  a.copies++;
  a.rcpts += rcpts;
  return first;
}

/** A refusal into `a`: only one before the first copy makes the copy a retry. */
export function addRefusal(a: ArrivalRecord, atMs: number): void {
  if (a.copies > 0) return; // a refusal of a later copy: not a retry of this one
  a.refusals++;
  if (a.firstRefusalMs === 0) a.firstRefusalMs = atMs;
}

/** A notice into `a`; true when it is the message's first arrival. */
export function addNotice(a: ArrivalRecord, status: string, atMs: number): boolean {
  const first = a.bounceStatus === "" && a.copies === 0;
  a.bounceStatus = status;
  if (a.firstMs === 0) a.firstMs = atMs;
  return first;
}

/** Every message of every run, kept: what `sink --json` writes under `arrivals`. */
export class ArrivalLog implements ArrivalStore {
  readonly runs = new Map<string, RunArrivals>();

  private runOf(runId: string): RunArrivals {
    let run = this.runs.get(runId);
    if (run === undefined) {
      run = { arrivals: new Map(), lastArrivalMs: 0 };
      this.runs.set(runId, run);
    }
    return run;
  }

  private record(runId: string, seq: number, key: JoinKey): ArrivalRecord {
    const arrivals = this.runOf(runId).arrivals;
    let a = arrivals.get(seq);
    if (a === undefined) {
      a = newArrival(key);
      arrivals.set(seq, a);
    }
    return a;
  }

  copy(runId: string, seq: number, key: JoinKey, rcpts: number, atMs: number, late: boolean) {
    const first = addCopy(this.record(runId, seq, key), key, rcpts, atMs, late);
    if (!late) {
      const run = this.runOf(runId);
      run.lastArrivalMs = Math.max(run.lastArrivalMs, atMs);
    }
    return first;
  }

  refused(runId: string, seq: number, key: JoinKey, atMs: number): void {
    addRefusal(this.record(runId, seq, key), atMs);
  }

  notice(runId: string, seq: number, status: string, atMs: number): boolean {
    return addNotice(this.record(runId, seq, "envid"), status, atMs);
  }
}
