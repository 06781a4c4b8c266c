/**
 * The delivery join's verdict: each message the gateway accepted (AcceptRecords, from the
 * client) against what arrived at the receiving sink (ArrivalRecord, from sink/receive.ts), in
 * exactly one final state. The doc comments of DeliveryResult are the one definition of each
 * figure; the terminal and JSON reports read them from here.
 */
import type { AcceptRecords } from "./accept-ledger.js";
import { newHistogram, summarise, toMicros } from "./histogram.js";
import type { LatencySummary } from "./latency-summary.js";

/** Which key found a message's arrival: the trace header, the Message-ID, or MAIL's ENVID. */
export type JoinKey = "traceHeader" | "messageId" | "envid";

/** What the receiving sink saw of one message of this run (keyed by its number). */
export interface ArrivalRecord {
  /** Epoch ms of the first copy's arrival; 0 when only a refusal or a notice was seen. */
  firstMs: number;
  /** Transactions that delivered this message (copies). */
  copies: number;
  /** Recipients over every copy. */
  rcpts: number;
  /** Times the receiver refused it (4xx/5xx at RCPT or after its data) before it arrived. */
  refusals: number;
  /** Epoch ms of the first refusal: the retry delay runs from here; 0 when none. */
  firstRefusalMs: number;
  /** The Status of the delivery notice that came back for it; "" when none did. */
  bounceStatus: string;
  /** The key its first copy was found by. */
  key: JoinKey;
  /** The first copy came after the drain ended (within --late-window). */
  late: boolean;
}

/** The receiving sink's counts beside the per-message records. */
export interface ArrivalCounts {
  /** Messages that carried no key of this run (other runs, other senders). */
  foreign: number;
  /** Delivery notices (DSNs) received, joined to a message of this run or not. */
  notices: number;
  /** Delivery notices no key of this run was found in. */
  noticesUnjoined: number;
  /** Epoch ms of the last arrival that was not late; 0: none. */
  lastArrivalMs: number;
}

export const DELIVERY_STATES = [
  "delivered",
  "partial",
  "bounced",
  "lost",
  "duplicated",
  "late",
] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface DeliveryClass {
  accepted: number;
  delivered: number;
  partial: number;
  bounced: number;
  lost: number;
  duplicated: number;
  late: number;
  retried: number;
  /** Intended send time → first arrival, ms, of this class's messages that arrived in time. */
  endToEndMs: LatencySummary;
}

export interface DeliveryResult {
  /** Where the gateway relayed to (--receive). */
  receiver: string;
  /** Messages the gateway accepted (its 2xx to the data): the join's population. */
  accepted: number;
  /** Every recipient arrived, each once (in one copy or several). */
  delivered: number;
  /** Some recipients arrived, not all, by the end of the drain. */
  partial: number;
  /** A delivery notice (DSN) came back for it; it never counts as delivered. */
  bounced: number;
  /** Nothing arrived by the end of the drain (nor within --late-window). */
  lost: number;
  /** A recipient arrived more than once (more recipients over several copies than sent). */
  duplicated: number;
  /** First arrival after the drain ended, within --late-window: never lost, never in the latency. */
  late: number;
  /** Arrived only after the receiver refused it at least once (a retry by the gateway). */
  retried: number;
  /** Delivery attempts of the retried messages: refusals plus the one that arrived. */
  retryAttempts: number;
  /** Messages at the receiver that carried no key of this run. */
  foreign: number;
  /** Recipients beyond the ones sent, in a single copy (list expansion, rewriting). */
  extra: number;
  /** Arrived, but the client never saw the gateway's 2xx for it (a timeout, a lost reply). */
  unconfirmed: number;
  /** Delivery notices received, and those joined to no message of this run. */
  notices: number;
  noticesUnjoined: number;
  /** How each arrival was found: trace header, Message-ID, or ENVID. */
  keys: Record<JoinKey, number>;
  /** The last acceptance to the last arrival (not late), ms; 0 when nothing arrived. */
  drainMs: number;
  /** The drain waited its whole --drain-timeout with messages still missing. */
  drainTimedOut: boolean;
  /** The first connect to the last arrival, ms: the whole job's time. */
  windowMs: number;
  /** Delivered messages per second over windowMs. */
  deliveredPerSecond: number;
  /** Accepted messages per second, first connect to the last acceptance. */
  acceptedPerSecond: number;
  /** Delivered messages per second, first connect to the last arrival (same as above). */
  relayedPerSecond: number;
  /** What the gateway held back: accept rate minus relay rate, per second (0 when none). */
  backlogPerSecond: number;
  /** Intended send time → first arrival, ms, of every message that arrived in time. */
  endToEndMs: LatencySummary;
  /** The gateway's 250 → first arrival, ms. */
  insideGatewayMs: LatencySummary;
  /** First refusal → arrival, ms, of retried messages. */
  retryDelayMs: LatencySummary;
  /** Per message class. */
  classes: Record<string, DeliveryClass>;
  /** The first lost messages (by number), so a user can look for them in the gateway's log. */
  firstLost: { seq: number; id: string; className: string; queueId: string }[];
}

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

const FIRST_LOST = 20;

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

export function joinDeliveries(input: JoinInputs): DeliveryResult {
  const { accepts, arrivals } = input;
  const classes = input.classNames.map(() => emptyClass());
  const e2e = newHistogram();
  const inside = newHistogram();
  const retryDelay = newHistogram();
  const totals = { delivered: 0, partial: 0, bounced: 0, lost: 0, duplicated: 0, late: 0 };
  let retried = 0;
  let retryAttempts = 0;
  let extra = 0;
  let lastAccepted = 0;
  const firstLost: DeliveryResult["firstLost"] = [];
  const acceptedSeqs = new Set<number>();
  for (let i = 0; i < accepts.seq.length; i++) {
    const seq = accepts.seq[i];
    acceptedSeqs.add(seq);
    lastAccepted = Math.max(lastAccepted, accepts.acceptedMs[i]);
    const cls = classes[input.classOf(seq)];
    const a = arrivals.get(seq);
    const recipients = input.recipientsOf(seq);
    const state = stateOf(a, recipients);
    cls.accepted++;
    cls[state]++;
    totals[state]++;
    if (state === "lost" && firstLost.length < FIRST_LOST) {
      const className = input.classNames[input.classOf(seq)];
      firstLost.push({ seq, id: `${input.runId}.${seq}`, className, queueId: accepts.queueId[i] });
    }
    if (a === undefined || a.copies === 0) continue;
    if (a.copies === 1 && a.rcpts > recipients) extra += a.rcpts - recipients;
    if (a.refusals > 0) {
      retried++;
      cls.retried++;
      retryAttempts += a.refusals + 1;
      if (a.firstRefusalMs > 0) retryDelay.recordValue(toMicros(a.firstMs - a.firstRefusalMs));
    }
    if (a.late) continue;
    const latency = toMicros(Math.max(0, a.firstMs - accepts.intendedMs[i]));
    e2e.recordValue(latency);
    cls.h.recordValue(latency);
    inside.recordValue(toMicros(Math.max(0, a.firstMs - accepts.acceptedMs[i])));
  }
  const keys: Record<JoinKey, number> = { traceHeader: 0, messageId: 0, envid: 0 };
  let unconfirmed = 0;
  for (const [seq, a] of arrivals) {
    if (a.copies === 0) continue;
    keys[a.key]++;
    if (!acceptedSeqs.has(seq)) unconfirmed++;
  }
  const last = input.counts.lastArrivalMs;
  const first = input.firstConnectMs;
  const windowMs = last > 0 ? Math.max(0, last - first) : 0;
  const acceptMs = Math.max(1, lastAccepted - first);
  const acceptedPerSecond = (accepts.seq.length * 1000) / acceptMs;
  const relayedPerSecond = windowMs > 0 ? (totals.delivered * 1000) / windowMs : 0;
  return {
    receiver: input.receiver,
    accepted: accepts.seq.length,
    ...totals,
    retried,
    retryAttempts,
    foreign: input.counts.foreign,
    extra,
    unconfirmed,
    notices: input.counts.notices,
    noticesUnjoined: input.counts.noticesUnjoined,
    keys,
    drainMs: last > 0 ? Math.max(0, last - lastAccepted) : 0,
    drainTimedOut: input.drainTimedOut,
    windowMs,
    deliveredPerSecond: relayedPerSecond,
    acceptedPerSecond,
    relayedPerSecond,
    backlogPerSecond: Math.max(0, acceptedPerSecond - relayedPerSecond),
    endToEndMs: summarise(e2e),
    insideGatewayMs: summarise(inside),
    retryDelayMs: summarise(retryDelay),
    classes: Object.fromEntries(
      input.classNames.map((name, i) => {
        const { h, ...counts } = classes[i];
        return [name, { ...counts, endToEndMs: summarise(h) }];
      }),
    ),
    firstLost,
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
