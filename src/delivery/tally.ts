/**
 * The join's running counts and histograms: each accepted message is folded in once, in its
 * final state as far as the join knows it, and its record is then released. A later copy or
 * notice of a folded message moves its count to its new state (delivery/join.ts).
 */

import { newHistogram, summarise, toMicros } from "../stats/histogram.js";
import { DueSeconds } from "./due-seconds.js";
import {
  type ArrivalRecord,
  DELIVERY_STATES,
  type DeliveryCounts,
  type DeliveryLatencies,
  type DeliveryResult,
  type DeliveryState,
  type JoinKey,
  type MessageRef,
} from "./records.js";

/** Lost and duplicated messages listed by id, at most. */
export const FIRST_LISTED = 20;

/**
 * The state an accepted message of `recipients` recipients ends in. `cut`: the drain was cut
 * short (Ctrl-C, or --drain-timeout 0), so what had not fully arrived was not waited for.
 */
export function stateOf(
  a: ArrivalRecord | undefined,
  recipients: number,
  cut = false,
): DeliveryState {
  if (a === undefined) return cut ? "notWaited" : "lost";
  // A 5xx refusal or a notice: the gateway gave up on a recipient (RFC 3461 §4: it owes a notice).
  if (a.bounceStatus !== "") return "bounced";
  if (a.copies === 0) return cut ? "notWaited" : "lost";
  if (a.late) return "late";
  if (a.dupRcpts > 0) return "duplicated";
  if (a.rcpts >= recipients) return "delivered";
  return cut ? "notWaited" : "partial";
}

/** Recipients beyond the ones sent, each arrived once (list expansion, rewriting). */
export function extraOf(a: ArrivalRecord, recipients: number): number {
  return a.dupRcpts === 0 && a.rcpts > recipients ? a.rcpts - recipients : 0;
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
    notWaited: 0,
    retried: 0,
    extra: 0,
  };
  readonly latencies = new Latencies();
  /** Bounced messages by the status that bounced them (a message given two counts in each). */
  readonly bounceStatuses: Record<string, number> = {};

  /** One accepted message in `state`; `a` what arrived of it. */
  count(state: DeliveryState, a: ArrivalRecord | undefined, recipients: number): void {
    this.counts.accepted++;
    this.counts[state]++;
    if (a === undefined) return;
    if (state === "bounced") this.bounced(a.bounceStatus);
    if (a.copies === 0) return;
    this.counts.extra += extraOf(a, recipients);
    if (a.retried > 0) this.counts.retried++;
  }

  bounced(statuses: string): void {
    for (const status of statuses.split(" ")) {
      if (status !== "") this.bounceStatuses[status] = (this.bounceStatuses[status] ?? 0) + 1;
    }
  }
}

/** What the client knew of an accepted message: its times and the gateway's queue id. */
export interface AcceptedMessage {
  intendedMs: number;
  acceptedMs: number;
  queueId: string;
}

/** The messages with the lowest numbers of those offered, at most FIRST_LISTED. */
class FirstListed {
  readonly refs: MessageRef[] = [];

  offer(ref: MessageRef): void {
    const refs = this.refs;
    if (refs.length === FIRST_LISTED && ref.seq >= refs[refs.length - 1].seq) return;
    let at = refs.length;
    while (at > 0 && refs[at - 1].seq > ref.seq) at--;
    refs.splice(at, 0, ref);
    if (refs.length > FIRST_LISTED) refs.pop();
  }
}

/** Every folded message's counts and latencies: the run's, per class, per final state. */
export class Tally {
  readonly run = new Population();
  readonly classes: Population[];
  private readonly byState = new Map<DeliveryState, Latencies>();
  retryAttempts = 0;
  clockBehindMs = 0;
  readonly keys: Record<JoinKey, number> = { traceHeader: 0, messageId: 0, envid: 0, tag: 0 };
  unconfirmed = 0;
  private readonly lost = new FirstListed();
  private readonly duplicated = new FirstListed();
  /** The drain was cut short: what had not fully arrived was not waited for. */
  cut = false;
  /** Every accepted message by the second it was due. */
  readonly due = new DueSeconds();

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

  /** Lists a lost or duplicated message by id. */
  private list(state: DeliveryState, runId: string, seq: number, cls: number, queueId: string) {
    const listed = state === "lost" ? this.lost : state === "duplicated" ? this.duplicated : null;
    listed?.offer({ seq, id: `${runId}.${seq}`, className: this.classNames[cls], queueId });
  }

  /**
   * One accepted message, folded: `a` what arrived of it (undefined: nothing, not even a
   * refusal). Returns its state.
   */
  add(
    runId: string,
    seq: number,
    cls: number,
    recipients: number,
    m: AcceptedMessage,
    a: ArrivalRecord | undefined,
  ): DeliveryState {
    const state = stateOf(a, recipients, this.cut);
    this.run.count(state, a, recipients);
    this.classes[cls].count(state, a, recipients);
    this.list(state, runId, seq, cls, m.queueId);
    const inTime = a !== undefined && a.copies > 0 && !a.late;
    const e2eUs = inTime ? toMicros(Math.max(0, a.firstMs - m.intendedMs)) : 0;
    this.due.add(m.intendedMs, state === "lost", inTime ? e2eUs : null);
    if (a === undefined || a.copies === 0) return state;
    this.keys[a.key]++;
    // Per recipient, as the gateway's log shows them: each refusal, and the attempt that got through.
    if (a.retried > 0) this.retryAttempts += a.refusals + a.retried;
    if (a.late) return state;
    const inside = a.firstMs - m.acceptedMs;
    this.clockBehindMs = Math.max(this.clockBehindMs, -inside);
    const insideUs = toMicros(Math.max(0, inside));
    for (const l of [this.run.latencies, this.classes[cls].latencies, this.stateLatencies(state)]) {
      l.e2e.recordValue(e2eUs);
      l.inside.recordValue(insideUs);
      for (const ms of a.retryDelaysMs) l.retryDelay.recordValue(toMicros(ms));
    }
    return state;
  }

  /** A message that arrived though the client never saw it accepted (a timeout). */
  addUnconfirmed(a: ArrivalRecord): void {
    if (a.copies === 0) return;
    this.keys[a.key]++;
    this.unconfirmed++;
  }

  /**
   * A folded message changed state (a later copy or notice). Its latencies stay where they
   * were folded: its record is gone. A message newly duplicated is listed without its queue id.
   */
  move(
    runId: string,
    seq: number,
    cls: number,
    from: DeliveryState,
    to: DeliveryState,
    status = "",
  ): void {
    for (const p of [this.run, this.classes[cls]]) {
      p.counts[from]--;
      p.counts[to]++;
      if (to === "bounced") p.bounced(status);
    }
    this.list(to, runId, seq, cls, "");
  }

  /** A folded message's single copy was joined by another: its extra recipients no longer count. */
  dropExtra(cls: number, extra: number): void {
    this.run.counts.extra -= extra;
    this.classes[cls].counts.extra -= extra;
  }

  /** The lost and duplicated messages with the lowest numbers. */
  get firstLost(): MessageRef[] {
    return this.lost.refs;
  }

  get firstDuplicated(): MessageRef[] {
    return this.duplicated.refs;
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

  /** Per class: its counts and its two main latencies. */
  classesSummary(): DeliveryResult["classes"] {
    return Object.fromEntries(
      this.classNames.map((name, i) => {
        const { counts, latencies, bounceStatuses } = this.classes[i];
        const { endToEndMs, insideGatewayMs } = latencies.summary();
        return [name, { ...counts, bounceStatuses, endToEndMs, insideGatewayMs }];
      }),
    );
  }
}
