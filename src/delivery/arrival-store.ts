/**
 * What the receiving end reports of each message it finds a key in, and the one definition of
 * how a message's ArrivalRecord changes with each copy, refusal and notice. Two stores take
 * these reports: the run's streaming join (delivery/join.ts), which keeps a message only
 * until it has fully arrived, and ArrivalLog, which keeps every message of every run for the
 * file `mailvolley sink --json` writes (a receiver on another host joins nothing itself).
 */
import type { ArrivalRecord, JoinKey, RecipientSeen, RunArrivals } from "./records.js";

/** Where the receiving end reports the messages of runs it found keys in. */
export interface ArrivalStore {
  /**
   * A copy of message `seq` of run `runId` arrived for `rcpts` (the envelope's recipients, as
   * the gateway relayed them). True when the message is now accounted for: the join's drain
   * counts it (a store that knows no recipients says so at the message's first arrival).
   */
  copy(
    runId: string,
    seq: number,
    key: JoinKey,
    rcpts: readonly string[],
    atMs: number,
    late: boolean,
  ): boolean;
  /**
   * The receiver refused recipients `rcpts` of the message (a fault at RCPT, or after the data
   * for every recipient of the transaction) with enhanced status `status`: a 5xx means the
   * gateway gives up on them, a 4xx that it keeps them. True as for copy().
   */
  refused(
    runId: string,
    seq: number,
    key: JoinKey,
    rcpts: readonly string[],
    status: string,
    atMs: number,
  ): boolean;
  /**
   * A delivery notice for the message, with its Status and the recipients it reports failed
   * (none named: the whole message). True as for copy().
   */
  notice(
    runId: string,
    seq: number,
    status: string,
    failed: readonly string[],
    atMs: number,
  ): boolean;
}

export function newArrival(key: JoinKey): ArrivalRecord {
  return {
    firstMs: 0,
    copies: 0,
    rcpts: 0,
    dupRcpts: 0,
    refusals: 0,
    retried: 0,
    retryDelaysMs: NO_DELAYS,
    gaveUp: 0,
    pending: 0,
    bounceStatus: "",
    key,
    late: false,
    recipients: null,
  };
}

/** The retry delays of a message none of whose recipients was retried (never written to). */
export const NO_DELAYS: readonly number[] = Object.freeze([]);

/** The recipient `rcpt` of `a`, added when first seen. */
function seen(a: ArrivalRecord, rcpt: string): RecipientSeen {
  let log = a.recipients;
  if (typeof log === "string") {
    // The one recipient of a single copy, kept as its address: now the full log.
    log = new Map([
      [log.toLowerCase(), { arrived: 1, refusals: 0, firstRefusalMs: 0, gaveUp: false }],
    ]);
  }
  log ??= new Map();
  a.recipients = log;
  const address = rcpt.toLowerCase();
  let r = log.get(address);
  if (r === undefined) {
    r = { arrived: 0, refusals: 0, firstRefusalMs: 0, gaveUp: false };
    log.set(address, r);
  }
  return r;
}

/** An envelope without recipients (none known) stands for one. */
const ONE_UNKNOWN: readonly string[] = [""];

/** A copy into `a`; true when it is the message's first arrival (no copy, no notice before). */
export function addCopy(
  a: ArrivalRecord,
  key: JoinKey,
  rcpts: readonly string[],
  atMs: number,
  late: boolean,
): boolean {
  const first = a.copies === 0 && a.bounceStatus === "";
  if (a.copies === 0) {
    // A notice or a refusal may have come first: the latencies run to the first copy.
    a.firstMs = atMs;
    a.key = key;
    a.late = late;
  }
  a.copies++;
  if (a.copies === 1 && a.recipients === null && rcpts.length <= 1) {
    // The usual message: one copy for one recipient, nothing before it. Its address is all
    // that is kept, and a log is made only if more comes (no Map per message on the hot path).
    a.recipients = rcpts.length === 1 ? rcpts[0] : "";
    a.rcpts = 1;
    return first;
  }
  for (const rcpt of rcpts.length > 0 ? rcpts : ONE_UNKNOWN) {
    const r = seen(a, rcpt);
    if (r.arrived++ > 0) {
      a.dupRcpts++;
      continue;
    }
    a.rcpts++;
    if (r.refusals === 0) continue;
    // Refused before, this recipient came again: the gateway retried it.
    a.retried++;
    a.refusals += r.refusals;
    a.retryDelaysMs = [...a.retryDelaysMs, Math.max(0, atMs - r.firstRefusalMs)];
    if (r.gaveUp) a.gaveUp--;
    else a.pending--;
  }
  return first;
}

/**
 * Recipients refused into `a`: only a refusal before a recipient's first arrival makes its
 * arrival a retry. A 5xx bounces the message with that status (RFC 3463 §3.1: 5 is permanent).
 */
export function addRefusal(
  a: ArrivalRecord,
  rcpts: readonly string[],
  status: string,
  atMs: number,
): void {
  const permanent = status.startsWith("5");
  for (const rcpt of rcpts.length > 0 ? rcpts : ONE_UNKNOWN) {
    const r = seen(a, rcpt);
    if (r.arrived > 0) continue; // a refusal of a later copy: not a retry of this one
    if (r.refusals === 0) r.firstRefusalMs = atMs;
    else if (r.gaveUp) a.gaveUp--;
    else a.pending--;
    r.refusals++;
    r.gaveUp = permanent;
    if (permanent) a.gaveUp++;
    else a.pending++;
  }
  if (permanent) {
    a.bounceStatus = withStatus(a.bounceStatus, status);
    if (a.firstMs === 0) a.firstMs = atMs;
  }
}

/** A notice into `a`; true when it is the message's first arrival. */
export function addNotice(
  a: ArrivalRecord,
  status: string,
  failed: readonly string[],
  atMs: number,
): boolean {
  const first = a.bounceStatus === "" && a.copies === 0;
  a.bounceStatus = withStatus(a.bounceStatus, status);
  if (a.firstMs === 0) a.firstMs = atMs;
  for (const rcpt of failed) {
    const r = seen(a, rcpt);
    if (r.arrived > 0 || r.gaveUp) continue;
    if (r.refusals > 0) a.pending--;
    r.gaveUp = true;
    a.gaveUp++;
  }
  return first;
}

/** The statuses a bounced message was given, each once: "5.3.0", or "5.3.0 5.1.1". */
function withStatus(statuses: string, status: string): string {
  if (statuses === "") return status;
  return statuses.split(" ").includes(status) ? statuses : `${statuses} ${status}`;
}

/**
 * Every recipient of a message of `recipients` is accounted for: arrived, or given up on by
 * the gateway. A recipient refused with 4xx is still inside the gateway. A notice that names
 * no recipient the receiver saw accounts for the whole message.
 */
export function accountedFor(a: ArrivalRecord, recipients: number): boolean {
  if (a.rcpts + a.gaveUp >= recipients) return true;
  return a.bounceStatus !== "" && a.gaveUp === 0 && a.pending === 0;
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

  copy(
    runId: string,
    seq: number,
    key: JoinKey,
    rcpts: readonly string[],
    atMs: number,
    late: boolean,
  ) {
    const first = addCopy(this.record(runId, seq, key), key, rcpts, atMs, late);
    if (!late) {
      const run = this.runOf(runId);
      run.lastArrivalMs = Math.max(run.lastArrivalMs, atMs);
    }
    return first;
  }

  refused(
    runId: string,
    seq: number,
    key: JoinKey,
    rcpts: readonly string[],
    status: string,
    atMs: number,
  ): boolean {
    const a = this.record(runId, seq, key);
    const first = a.copies === 0 && a.bounceStatus === "" && status.startsWith("5");
    addRefusal(a, rcpts, status, atMs);
    return first;
  }

  notice(runId: string, seq: number, status: string, failed: readonly string[], atMs: number) {
    return addNotice(this.record(runId, seq, "envid"), status, failed, atMs);
  }
}
