/**
 * The delivery join's verdict: each message the gateway accepted (AcceptRecords, from the
 * client) against what arrived at the receiving sink (ArrivalRecord, from sink/receive.ts), in
 * exactly one final state. stats/result-schema/delivery.ts holds the one definition of each
 * figure; the terminal and JSON reports read them from here.
 */
import type { AcceptRecords } from "./accept-ledger.js";
import type {
  ArrivalCounts,
  ArrivalRecord,
  DeliveryClass,
  DeliveryResult,
  DeliveryState,
  JoinKey,
  MessageRef,
} from "./delivery-result.js";
import { newHistogram, summarise, toMicros } from "./histogram.js";

export interface JoinInputs {
  receiver: string;
  runId: string;
  accepts: AcceptRecords;
  arrivals: ReadonlyMap<number, ArrivalRecord>;
  counts: ArrivalCounts;
  classNames: readonly string[];
  classOf(seq: number): number;
  recipientsOf(seq: number): number;
  firstConnectMs: number;
  drainTimedOut: boolean;
}

/** Lost and duplicated messages listed by id, at most. */
const FIRST_LISTED = 20;

function emptyClass(): DeliveryClass & { h: ReturnType<typeof newHistogram> } {
  return {
    accepted: 0,
    delivered: 0,
    partial: 0,
    bounced: 0,
    lost: 0,
    duplicated: 0,
    late: 0,
    retried: 0,
    endToEndMs: summarise(newHistogram()),
    h: newHistogram(),
  };
}

/** The state an accepted message of `recipients` recipients ends in. */
export function stateOf(a: ArrivalRecord | undefined, recipients: number): DeliveryState {
  if (a === undefined) return "lost";
  if (a.bounceStatus !== "") return "bounced";
  if (a.copies === 0) return "lost";
  if (a.late) return "late";
  if (a.rcpts > recipients) return a.copies > 1 ? "duplicated" : "delivered";
  return a.rcpts === recipients ? "delivered" : "partial";
}

/** The per-message walk's running counts and histograms. */
class Tally {
  readonly classes: ReturnType<typeof emptyClass>[];
  readonly e2e = newHistogram();
  readonly inside = newHistogram();
  readonly retryDelay = newHistogram();
  readonly totals: Record<DeliveryState, number> = {
    delivered: 0,
    partial: 0,
    bounced: 0,
    lost: 0,
    duplicated: 0,
    late: 0,
  };
  retried = 0;
  retryAttempts = 0;
  extra = 0;
  lastAcceptedMs = 0;
  readonly firstLost: MessageRef[] = [];
  readonly firstDuplicated: MessageRef[] = [];

  constructor(private readonly input: JoinInputs) {
    this.classes = input.classNames.map(() => emptyClass());
  }

  /** Accepted message `i` of the ledger: its state, and its latencies if it arrived in time. */
  add(i: number): void {
    const { accepts, arrivals } = this.input;
    const seq = accepts.seq[i];
    this.lastAcceptedMs = Math.max(this.lastAcceptedMs, accepts.acceptedMs[i]);
    const classIndex = this.input.classOf(seq);
    const cls = this.classes[classIndex];
    const a = arrivals.get(seq);
    const recipients = this.input.recipientsOf(seq);
    const state = stateOf(a, recipients);
    cls.accepted++;
    cls[state]++;
    this.totals[state]++;
    const listed =
      state === "lost" ? this.firstLost : state === "duplicated" ? this.firstDuplicated : null;
    if (listed !== null && listed.length < FIRST_LISTED) {
      const className = this.input.classNames[classIndex];
      const id = `${this.input.runId}.${seq}`;
      listed.push({ seq, id, className, queueId: accepts.queueId[i] });
    }
    if (a === undefined || a.copies === 0) return;
    if (a.copies === 1 && a.rcpts > recipients) this.extra += a.rcpts - recipients;
    if (a.refusals > 0) {
      this.retried++;
      cls.retried++;
      this.retryAttempts += a.refusals + 1;
      if (a.firstRefusalMs > 0) this.retryDelay.recordValue(toMicros(a.firstMs - a.firstRefusalMs));
    }
    if (a.late) return;
    const latency = toMicros(Math.max(0, a.firstMs - accepts.intendedMs[i]));
    this.e2e.recordValue(latency);
    cls.h.recordValue(latency);
    this.inside.recordValue(toMicros(Math.max(0, a.firstMs - accepts.acceptedMs[i])));
  }
}

/** How arrivals were found, and those of messages the client never saw accepted. */
function keysOf(input: JoinInputs): { keys: Record<JoinKey, number>; unconfirmed: number } {
  const accepted = new Set(input.accepts.seq);
  const keys: Record<JoinKey, number> = { traceHeader: 0, messageId: 0, envid: 0 };
  let unconfirmed = 0;
  for (const [seq, a] of input.arrivals) {
    if (a.copies === 0) continue;
    keys[a.key]++;
    if (!accepted.has(seq)) unconfirmed++;
  }
  return { keys, unconfirmed };
}

/**
 * The most messages inside the gateway at once: acceptances and first arrivals (or notices)
 * in time order, the first counting up and the second down. A message out before the client
 * saw its 250 never counts as inside.
 */
function backlogMax(input: JoinInputs): number {
  const { accepts, arrivals } = input;
  const ins: number[] = [];
  const outs: number[] = [];
  for (let i = 0; i < accepts.seq.length; i++) {
    const a = arrivals.get(accepts.seq[i]);
    const out = a === undefined || a.firstMs === 0 ? Number.POSITIVE_INFINITY : a.firstMs;
    if (out <= accepts.acceptedMs[i]) continue;
    ins.push(accepts.acceptedMs[i]);
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
  const { accepts, arrivals, firstConnectMs } = input;
  const accepted: number[] = [];
  const delivered: number[] = [];
  const second = (ms: number) =>
    Math.min(MAX_SECONDS, Math.max(0, Math.floor((ms - firstConnectMs) / 1000)));
  const add = (series: number[], at: number) => {
    while (series.length <= at) series.push(0);
    series[at]++;
  };
  for (let i = 0; i < accepts.seq.length; i++) {
    add(accepted, second(accepts.acceptedMs[i]));
    const a = arrivals.get(accepts.seq[i]);
    if (a !== undefined && a.firstMs > 0 && !a.late) add(delivered, second(a.firstMs));
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
  const tally = new Tally(input);
  for (let i = 0; i < input.accepts.seq.length; i++) tally.add(i);
  const last = input.counts.lastArrivalMs;
  const first = input.firstConnectMs;
  const windowMs = last > 0 ? Math.max(0, last - first) : 0;
  const acceptMs = Math.max(1, tally.lastAcceptedMs - first);
  const acceptedPerSecond = (input.accepts.seq.length * 1000) / acceptMs;
  const relayedPerSecond = windowMs > 0 ? (tally.totals.delivered * 1000) / windowMs : 0;
  return {
    receiver: input.receiver,
    accepted: input.accepts.seq.length,
    ...tally.totals,
    retried: tally.retried,
    retryAttempts: tally.retryAttempts,
    foreign: input.counts.foreign,
    extra: tally.extra,
    notices: input.counts.notices,
    noticesUnjoined: input.counts.noticesUnjoined,
    ...keysOf(input),
    drainMs: last > 0 ? Math.max(0, last - tally.lastAcceptedMs) : 0,
    drainTimedOut: input.drainTimedOut,
    windowMs,
    deliveredPerSecond: relayedPerSecond,
    acceptedPerSecond,
    relayedPerSecond,
    backlogPerSecond: Math.max(0, acceptedPerSecond - relayedPerSecond),
    backlogMax: backlogMax(input),
    perSecond: perSecond(input),
    endToEndMs: summarise(tally.e2e),
    insideGatewayMs: summarise(tally.inside),
    retryDelayMs: summarise(tally.retryDelay),
    classes: Object.fromEntries(
      input.classNames.map((name, i) => {
        const { h, ...counts } = tally.classes[i];
        return [name, { ...counts, endToEndMs: summarise(h) }];
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
