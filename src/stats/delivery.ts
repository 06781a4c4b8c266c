/**
 * The delivery join's verdict: each message the gateway accepted (AcceptRecords, from the
 * client) against what arrived at the receiving sink (ArrivalRecord, from sink/receive.ts), in
 * exactly one final state. stats/result-schema/delivery.ts holds the one definition of each
 * figure; the terminal and JSON reports read them from here.
 */
import type { AcceptRecords } from "./accept-ledger.js";
import {
  type ArrivalCounts,
  type ArrivalRecord,
  DELIVERY_STATES,
  type DeliveryCounts,
  type DeliveryLatencies,
  type DeliveryResult,
  type DeliveryState,
  type JoinKey,
  type MessageRef,
} from "./delivery-result.js";
import { newHistogram, summarise, toMicros } from "./histogram.js";

/** One run's side of the join: its accepted messages and what arrived of them. */
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

/** Lost and duplicated messages listed by id, at most. */
const FIRST_LISTED = 20;

/** The state an accepted message of `recipients` recipients ends in. */
export function stateOf(a: ArrivalRecord | undefined, recipients: number): DeliveryState {
  if (a === undefined) return "lost";
  if (a.bounceStatus !== "") return "bounced";
  if (a.copies === 0) return "lost";
  if (a.late) return "late";
  if (a.rcpts > recipients) return a.copies > 1 ? "duplicated" : "delivered";
  return a.rcpts === recipients ? "delivered" : "partial";
}

/** The three latencies of one population, as histograms. */
class Latencies {
  readonly e2e = newHistogram();
  readonly inside = newHistogram();
  readonly retryDelay = newHistogram();

  summary(): DeliveryLatencies {
    return {
      endToEndMs: summarise(this.e2e),
      insideGatewayMs: summarise(this.inside),
      retryDelayMs: summarise(this.retryDelay),
    };
  }
}

/** A population's counts and latencies: the run's, or one class's. */
class Population {
  readonly counts: DeliveryCounts = {
    accepted: 0,
    delivered: 0,
    partial: 0,
    bounced: 0,
    lost: 0,
    duplicated: 0,
    late: 0,
    retried: 0,
    extra: 0,
  };
  readonly latencies = new Latencies();

  /** One accepted message in `state`; `a` what arrived of it. */
  count(state: DeliveryState, a: ArrivalRecord | undefined, recipients: number): void {
    this.counts.accepted++;
    this.counts[state]++;
    if (a === undefined || a.copies === 0) return;
    if (a.copies === 1 && a.rcpts > recipients) this.counts.extra += a.rcpts - recipients;
    if (a.refusals > 0) this.counts.retried++;
  }
}

/** Records one message's latencies into each of `into`. */
function record(into: readonly Latencies[], e2eUs: number, insideUs: number, retryUs: number) {
  for (const l of into) {
    l.e2e.recordValue(e2eUs);
    l.inside.recordValue(insideUs);
    if (retryUs > 0) l.retryDelay.recordValue(retryUs);
  }
}

/** The per-message walk's running counts and histograms. */
class Tally {
  readonly run = new Population();
  readonly classes: Population[];
  readonly byState = new Map<DeliveryState, Latencies>();
  retryAttempts = 0;
  lastAcceptedMs = 0;
  clockBehindMs = 0;
  readonly firstLost: MessageRef[] = [];
  readonly firstDuplicated: MessageRef[] = [];

  constructor(private readonly classNames: readonly string[]) {
    this.classes = classNames.map(() => new Population());
  }

  private stateLatencies(state: DeliveryState): Latencies {
    let l = this.byState.get(state);
    if (l === undefined) {
      l = new Latencies();
      this.byState.set(state, l);
    }
    return l;
  }

  /** Accepted message `i` of a part's ledger: its state, and its latencies if it arrived in time. */
  add(part: JoinPart, i: number): void {
    const { accepts } = part;
    const seq = accepts.seq[i];
    this.lastAcceptedMs = Math.max(this.lastAcceptedMs, accepts.acceptedMs[i]);
    const classIndex = part.classOf(seq);
    const cls = this.classes[classIndex];
    const a = part.arrivals.get(seq);
    const recipients = part.recipientsOf(seq);
    const state = stateOf(a, recipients);
    this.run.count(state, a, recipients);
    cls.count(state, a, recipients);
    const listed =
      state === "lost" ? this.firstLost : state === "duplicated" ? this.firstDuplicated : null;
    if (listed !== null && listed.length < FIRST_LISTED) {
      const id = `${part.runId}.${seq}`;
      listed.push({ seq, id, className: this.classNames[classIndex], queueId: accepts.queueId[i] });
    }
    if (a === undefined || a.copies === 0) return;
    if (a.refusals > 0) this.retryAttempts += a.refusals + 1;
    const retryUs =
      a.refusals > 0 && a.firstRefusalMs > 0 ? toMicros(a.firstMs - a.firstRefusalMs) : 0;
    if (a.late) return;
    const inside = a.firstMs - accepts.acceptedMs[i];
    this.clockBehindMs = Math.max(this.clockBehindMs, -inside);
    const e2eUs = toMicros(Math.max(0, a.firstMs - accepts.intendedMs[i]));
    const insideUs = toMicros(Math.max(0, inside));
    record(
      [this.run.latencies, cls.latencies, this.stateLatencies(state)],
      e2eUs,
      insideUs,
      retryUs,
    );
  }

  /** The latencies by final state, in the reports' order. */
  statesSummary(): DeliveryResult["byState"] {
    const out: DeliveryResult["byState"] = {};
    for (const state of DELIVERY_STATES) {
      const l = this.byState.get(state);
      if (l !== undefined) out[state] = l.summary();
    }
    return out;
  }
}

/** How arrivals were found, and those of messages the client never saw accepted. */
function keysOf(parts: readonly JoinPart[]): {
  keys: Record<JoinKey, number>;
  unconfirmed: number;
} {
  const keys: Record<JoinKey, number> = { traceHeader: 0, messageId: 0, envid: 0, tag: 0 };
  let unconfirmed = 0;
  for (const part of parts) {
    const accepted = new Set(part.accepts.seq);
    for (const [seq, a] of part.arrivals) {
      if (a.copies === 0) continue;
      keys[a.key]++;
      if (!accepted.has(seq)) unconfirmed++;
    }
  }
  return { keys, unconfirmed };
}

/**
 * Each accepted message's acceptance and first arrival (or notice), Infinity when none, and
 * whether that arrival was late.
 */
function* inAndOut(
  parts: readonly JoinPart[],
): Generator<[accepted: number, out: number, late: boolean]> {
  for (const { accepts, arrivals } of parts) {
    for (let i = 0; i < accepts.seq.length; i++) {
      const a = arrivals.get(accepts.seq[i]);
      const out = a === undefined || a.firstMs === 0 ? Number.POSITIVE_INFINITY : a.firstMs;
      yield [accepts.acceptedMs[i], out, a?.late === true];
    }
  }
}

/**
 * The most messages inside the gateway at once: acceptances and first arrivals (or notices)
 * in time order, the first counting up and the second down. A message out before the client
 * saw its 250 never counts as inside.
 */
function backlogMax(parts: readonly JoinPart[]): number {
  const ins: number[] = [];
  const outs: number[] = [];
  for (const [accepted, out] of inAndOut(parts)) {
    if (out <= accepted) continue;
    ins.push(accepted);
    outs.push(out);
  }
  ins.sort((x, y) => x - y);
  outs.sort((x, y) => x - y);
  let most = 0;
  // At equal times the arrival goes first: the message was never seen inside.
  for (let i = 0, o = 0; i < ins.length; i++) {
    while (o < outs.length && outs[o] <= ins[i]) o++;
    most = Math.max(most, i + 1 - o);
  }
  return most;
}

/** The seconds a run through a gateway is charted by, at most (a day). */
const MAX_SECONDS = 86_400;

function perSecond(input: JoinInputs): DeliveryResult["perSecond"] {
  const accepted: number[] = [];
  const delivered: number[] = [];
  const second = (ms: number) =>
    Math.min(MAX_SECONDS, Math.max(0, Math.floor((ms - input.firstConnectMs) / 1000)));
  const add = (series: number[], at: number) => {
    while (series.length <= at) series.push(0);
    series[at]++;
  };
  for (const [acceptedMs, out, late] of inAndOut(input.parts)) {
    add(accepted, second(acceptedMs));
    if (out !== Number.POSITIVE_INFINITY && !late) add(delivered, second(out));
  }
  const length = Math.max(accepted.length, delivered.length);
  while (accepted.length < length) accepted.push(0);
  while (delivered.length < length) delivered.push(0);
  const inside: number[] = [];
  let held = 0;
  for (let i = 0; i < length; i++) {
    held += accepted[i] - delivered[i];
    inside.push(Math.max(0, held));
  }
  return { accepted, delivered, inside };
}

export function joinDeliveries(input: JoinInputs): DeliveryResult {
  const tally = new Tally(input.classNames);
  let accepted = 0;
  let last = 0;
  for (const part of input.parts) {
    for (let i = 0; i < part.accepts.seq.length; i++) tally.add(part, i);
    accepted += part.accepts.seq.length;
    last = Math.max(last, part.lastArrivalMs);
  }
  const first = input.firstConnectMs;
  const windowMs = last > 0 ? Math.max(0, last - first) : 0;
  const acceptMs = Math.max(1, tally.lastAcceptedMs - first);
  const acceptedPerSecond = (accepted * 1000) / acceptMs;
  const totals = tally.run.counts;
  const relayedPerSecond = windowMs > 0 ? (totals.delivered * 1000) / windowMs : 0;
  return {
    receiver: input.receiver,
    ...totals,
    retryAttempts: tally.retryAttempts,
    foreign: input.counts.foreign,
    notices: input.counts.notices,
    noticesUnjoined: input.counts.noticesUnjoined,
    ...keysOf(input.parts),
    drainMs: last > 0 ? Math.max(0, last - tally.lastAcceptedMs) : 0,
    drainTimedOut: input.drainTimedOut,
    windowMs,
    deliveredPerSecond: relayedPerSecond,
    acceptedPerSecond,
    relayedPerSecond,
    backlogPerSecond: Math.max(0, acceptedPerSecond - relayedPerSecond),
    backlogMax: backlogMax(input.parts),
    perSecond: perSecond(input),
    ...tally.run.latencies.summary(),
    byState: tally.statesSummary(),
    receiverClock: input.otherClock ? "other" : "same",
    // On one clock an arrival before the 250 is the gateway relaying before its reply reached
    // the client, not an offset.
    clockBehindMs: input.otherClock ? tally.clockBehindMs : 0,
    classes: Object.fromEntries(
      input.classNames.map((name, i) => {
        const { counts, latencies } = tally.classes[i];
        const { endToEndMs, insideGatewayMs } = latencies.summary();
        return [name, { ...counts, endToEndMs, insideGatewayMs }];
      }),
    ),
    firstLost: tally.firstLost,
    firstDuplicated: tally.firstDuplicated,
  };
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
