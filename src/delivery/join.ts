/**
 * The delivery join, streaming: accept records (from the client's threads, in chunks, as the
 * run goes) and arrivals (from the receiving end, as they come) meet in one table of the
 * messages in flight (delivery/in-flight-table.ts), by run and number. A message leaves it once
 * it has fully arrived (every recipient, or more), after a short wait in a ring of the last
 * RECENT such messages: a second copy or a notice that comes while it waits there is joined
 * exactly. It is then folded into the counts and histograms (delivery/tally.ts) and its
 * record released.
 * What is left of it is one octet by its number: its state, and the extra recipients it
 * counted, so that a copy or notice that comes later still moves it to duplicated or bounced.
 *
 * So the join holds the messages inside the gateway (accepted, not fully arrived), those that
 * arrived before the client's accept record reached it, messages bounced without a copy (more
 * copies may follow for their other recipients), at most RECENT fully arrived ones, and one
 * octet per message number. `report --arrivals` feeds the same join from files.
 */

import type { AcceptRecords } from "../stats/accept-records.js";
import { withRoom } from "../stats/typed-room.js";
import {
  type ArrivalStore,
  accountedFor,
  addCopy,
  addNotice,
  addRefusal,
} from "./arrival-store.js";
import { backlogTrend } from "./backlog-trend.js";
import {
  ACCEPTED,
  ACCOUNTED,
  ARRIVED,
  INSIDE,
  InFlightTable,
  type InFlightView,
  SETTLED,
  TIMED,
} from "./in-flight-table.js";
import {
  type ArrivalRecord,
  DELIVERY_STATES,
  type DeliveryResult,
  type DeliveryState,
  type JoinKey,
} from "./records.js";
import { DeliveryTimeline, plateauOf } from "./relay-timeline.js";
import { extraOf, Tally } from "./tally.js";

/** Fully arrived messages kept whole before they are folded: a late copy still joins exactly. */
export const RECENT = 65_536;

/** How a run's messages are made: each number's class and recipients. */
export interface RunShape {
  classOf(seq: number): number;
  recipientsOf(seq: number): number;
}

/** The folded states, one octet per message number: the state in 3 bits, extra above. */
const STATE_CODES: readonly (DeliveryState | null)[] = [null, ...DELIVERY_STATES];
const EXTRA_SHIFT = 3;
const EXTRA_MAX = 31;

class RunJoin {
  readonly inFlight = new InFlightTable();
  /** Per message number: 0 while in flight or unseen, else its folded state and extra. */
  folded = new Uint8Array(1024);
  /** Extra recipients of folded messages beyond EXTRA_MAX - 1, by number. */
  readonly bigExtra = new Map<number, number>();

  constructor(
    readonly runId: string,
    readonly shape: RunShape,
  ) {}

  foldedAs(seq: number): number {
    return seq < this.folded.length ? this.folded[seq] : 0;
  }

  markFolded(seq: number, state: DeliveryState, extra: number): void {
    this.folded = withRoom(this.folded, seq + 1);
    if (extra >= EXTRA_MAX) this.bigExtra.set(seq, extra);
    this.folded[seq] = STATE_CODES.indexOf(state) | (Math.min(extra, EXTRA_MAX) << EXTRA_SHIFT);
  }

  extraOf(seq: number): number {
    const extra = this.foldedAs(seq) >> EXTRA_SHIFT;
    return extra === EXTRA_MAX ? (this.bigExtra.get(seq) ?? extra) : extra;
  }
}

export interface JoinOptions {
  classNames: readonly string[];
  /** Fully arrived messages kept whole before they are folded (RECENT). */
  recent?: number;
}

export class DeliveryJoin implements ArrivalStore {
  private readonly runs = new Map<string, RunJoin>();
  private readonly tally: Tally;
  readonly timeline = new DeliveryTimeline();
  private readonly recentCapacity: number;
  /** The ring of fully arrived messages waiting to be folded: their runs and numbers. */
  private readonly ringRuns: RunJoin[] = [];
  private readonly ringSeqs: number[] = [];
  private ringHead = 0;
  accepted = 0;
  lastAcceptedMs = 0;
  /** Epoch ms of the last copy that was not late; 0: none. */
  lastArrivalMs = 0;
  /**
   * Messages every recipient of which arrived or was given up on (a 5xx refusal, a notice):
   * what the drain waits for. A recipient refused with 4xx is still inside the gateway.
   */
  accounted = 0;

  constructor(options: JoinOptions) {
    this.tally = new Tally(options.classNames);
    this.recentCapacity = options.recent ?? RECENT;
  }

  /** Joins the messages of run `runId` (one run's own join has one). */
  addRun(runId: string, shape: RunShape): void {
    if (!this.runs.has(runId)) this.runs.set(runId, new RunJoin(runId, shape));
  }

  /** Messages held whole: in flight, and fully arrived ones waiting in the ring. */
  get held(): number {
    let n = 0;
    for (const run of this.runs.values()) n += run.inFlight.size;
    return n;
  }

  /** The message's view in its run's table, added when new (valid until the table's next call). */
  private entry(run: RunJoin, seq: number, key: JoinKey): InFlightView {
    return run.inFlight.get(seq) ?? run.inFlight.add(seq, key);
  }

  /** The client's records of accepted messages, in the order they came. */
  acceptAll(runId: string, records: AcceptRecords): void {
    const { seq, intendedMs, acceptedMs, queueId } = records;
    for (let i = 0; i < seq.length; i++) {
      this.accept(runId, seq[i], intendedMs[i], acceptedMs[i], queueId[i]);
    }
  }

  /** The client's record of an accepted message. */
  accept(runId: string, seq: number, intendedMs: number, acceptedMs: number, queueId: string) {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    const m = this.entry(run, seq, "traceHeader");
    m.set(ACCEPTED);
    m.intendedMs = intendedMs;
    m.acceptedMs = acceptedMs;
    m.queueId = queueId;
    this.accepted++;
    this.lastAcceptedMs = Math.max(this.lastAcceptedMs, acceptedMs);
    // Out before the client saw its 250: never inside the gateway.
    const inside = !(m.firstMs > 0 && m.firstMs <= acceptedMs);
    m.set(INSIDE, inside);
    this.timeline.acceptedAt(acceptedMs, inside);
    this.progressed(run, seq, m);
  }

  copy(
    runId: string,
    seq: number,
    key: JoinKey,
    rcpts: readonly string[],
    atMs: number,
    late: boolean,
  ): boolean {
    const run = this.runs.get(runId);
    if (!late) this.lastArrivalMs = Math.max(this.lastArrivalMs, atMs);
    if (run === undefined) return false;
    const was = run.foldedAs(seq);
    if (was !== 0) {
      this.copyOfFolded(run, seq, was);
      return false;
    }
    const m = this.entry(run, seq, key);
    m.set(ARRIVED);
    addCopy(m, key, rcpts, atMs, late);
    return this.progressed(run, seq, m);
  }

  refused(
    runId: string,
    seq: number,
    key: JoinKey,
    rcpts: readonly string[],
    status: string,
    atMs: number,
  ): boolean {
    const run = this.runs.get(runId);
    // A folded message had every recipient accounted for: a later refusal is not a retry.
    if (run === undefined || run.foldedAs(seq) !== 0) return false;
    const m = this.entry(run, seq, key);
    m.set(ARRIVED);
    addRefusal(m, rcpts, status, atMs);
    return this.progressed(run, seq, m);
  }

  notice(
    runId: string,
    seq: number,
    status: string,
    failed: readonly string[],
    atMs: number,
  ): boolean {
    const run = this.runs.get(runId);
    if (run === undefined) return false;
    const was = run.foldedAs(seq);
    if (was !== 0) {
      const from = STATE_CODES[was & 7] as DeliveryState;
      if (from !== "bounced") this.refold(run, seq, from, "bounced", status);
      return false;
    }
    const m = this.entry(run, seq, "envid");
    m.set(ARRIVED);
    addNotice(m, status, failed, atMs);
    return this.progressed(run, seq, m);
  }

  /** A whole record (report --arrivals: what a sink on another host kept of the message). */
  arrival(runId: string, seq: number, a: ArrivalRecord): void {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    const m = this.entry(run, seq, a.key);
    Object.assign(m, a);
    m.set(ARRIVED);
    this.progressed(run, seq, m);
  }

  /** The last arrival a sink on another host recorded of these runs (report --arrivals). */
  arrivedUntil(ms: number): void {
    this.lastArrivalMs = Math.max(this.lastArrivalMs, ms);
  }

  /** A later copy of a folded message: one more copy of it. */
  private copyOfFolded(run: RunJoin, seq: number, was: number): void {
    const from = STATE_CODES[was & 7] as DeliveryState;
    const extra = run.extraOf(seq);
    const cls = run.shape.classOf(seq);
    if (extra > 0) this.tally.dropExtra(cls, extra);
    // Every recipient had come: this copy brings one more than were sent.
    const to = from === "delivered" ? "duplicated" : from;
    if (to !== from) this.tally.move(run.runId, seq, cls, from, to);
    run.markFolded(seq, to, 0);
  }

  private refold(
    run: RunJoin,
    seq: number,
    from: DeliveryState,
    to: DeliveryState,
    status = "",
  ): void {
    this.tally.move(run.runId, seq, run.shape.classOf(seq), from, to, status);
    run.markFolded(seq, to, run.extraOf(seq));
  }

  /**
   * After news of a message: whether every recipient is now accounted for (true once, and
   * counted), its place on the timeline, and whether it can be folded.
   */
  private progressed(run: RunJoin, seq: number, m: InFlightView): boolean {
    const recipients = run.shape.recipientsOf(seq);
    const newly = !m.has(ACCOUNTED) && accountedFor(m, recipients);
    if (newly) {
      m.set(ACCOUNTED);
      this.accounted++;
    }
    if (!m.has(ACCEPTED)) return newly;
    if (!m.has(TIMED) && m.firstMs > 0) {
      m.set(TIMED);
      // Out at its first arrival; one that came before the 250 (threads' clocks a little apart)
      // after the 250 was counted in leaves at the 250, as if never inside.
      const exit = m.has(INSIDE) ? Math.max(m.firstMs, m.acceptedMs) : Number.NaN;
      this.timeline.outAt(m.firstMs, !m.late, exit);
    }
    if (m.has(SETTLED) || !m.has(ACCOUNTED)) return newly;
    m.set(SETTLED);
    this.ringRuns.push(run);
    this.ringSeqs.push(seq);
    if (this.ringRuns.length - this.ringHead > this.recentCapacity) this.foldOldest();
    return newly;
  }

  private foldOldest(): void {
    const run = this.ringRuns[this.ringHead];
    const seq = this.ringSeqs[this.ringHead];
    this.ringHead++;
    // Compact the ring's arrays now and then, not at every fold.
    if (this.ringHead >= 4096 && this.ringHead * 2 >= this.ringRuns.length) {
      this.ringRuns.splice(0, this.ringHead);
      this.ringSeqs.splice(0, this.ringHead);
      this.ringHead = 0;
    }
    const m = run.inFlight.get(seq);
    if (m === null) return;
    const recipients = run.shape.recipientsOf(seq);
    const state = this.tally.add(run.runId, seq, run.shape.classOf(seq), recipients, m, m);
    run.markFolded(seq, state, extraOf(m, recipients));
    run.inFlight.delete(seq);
  }

  /** Folds the timeline's events up to epoch ms `h`: no event before it can come any more. */
  advance(h: number): void {
    this.timeline.foldThrough(h);
  }

  /** Folds every message still held: the run is over. */
  private foldAll(): void {
    while (this.ringHead < this.ringRuns.length) this.foldOldest();
    for (const run of this.runs.values()) {
      for (const [seq, m] of run.inFlight.entries()) {
        if (!m.has(ACCEPTED)) {
          this.tally.addUnconfirmed(m);
          continue;
        }
        const a = m.has(ARRIVED) ? m : undefined;
        this.tally.add(run.runId, seq, run.shape.classOf(seq), run.shape.recipientsOf(seq), m, a);
      }
      run.inFlight.clear();
    }
  }

  /** The delivery section: every message held is folded, and the join is spent. */
  finish(at: {
    receiver: string;
    counts: { foreign: number; notices: number; noticesUnjoined: number };
    firstConnectMs: number;
    /** How the drain ended; none for an offline join (report --arrivals). */
    drain?: DrainOutcome;
    otherClock?: boolean;
  }): DeliveryResult {
    const drain = at.drain ?? NO_DRAIN;
    // Cut short, the drain did not wait: what had not fully arrived is not counted lost.
    this.tally.cut = drain.end === "interrupted" || drain.end === "skipped";
    this.foldAll();
    const tally = this.tally;
    this.timeline.setOrigin(at.firstConnectMs);
    const first = at.firstConnectMs;
    const last = this.lastArrivalMs;
    const windowMs = last > 0 ? Math.max(0, last - first) : 0;
    const acceptMs = Math.max(1, this.lastAcceptedMs - first);
    const acceptedPerSecond = (this.accepted * 1000) / acceptMs;
    const totals = tally.run.counts;
    const relayedPerSecond = windowMs > 0 ? (totals.delivered * 1000) / windowMs : 0;
    const perSecond = this.timeline.perSecond();
    const plateau = plateauOf(perSecond);
    return {
      receiver: at.receiver,
      ...totals,
      retryAttempts: tally.retryAttempts,
      foreign: at.counts.foreign,
      notices: at.counts.notices,
      noticesUnjoined: at.counts.noticesUnjoined,
      keys: tally.keys,
      unconfirmed: tally.unconfirmed,
      drainMs: last > 0 ? Math.max(0, last - this.lastAcceptedMs) : 0,
      drainTimedOut: drain.end === "timedOut",
      drain,
      windowMs,
      deliveredPerSecond: relayedPerSecond,
      acceptedPerSecond,
      relayedPerSecond,
      backlogPerSecond: Math.max(0, acceptedPerSecond - relayedPerSecond),
      plateau,
      backlogTrend: backlogTrend(
        perSecond.inside.slice(plateau.fromSecond, plateau.toSecond),
        plateau.acceptedPerSecond,
      ),
      backlogMax: this.timeline.backlogMax(),
      perSecond,
      ...tally.run.latencies.summary(),
      byState: tally.statesSummary(),
      receiverClock: at.otherClock ? "other" : "same",
      // On one clock an arrival before the 250 is the gateway relaying before its reply reached
      // the client, not an offset.
      clockBehindMs: at.otherClock ? tally.clockBehindMs : 0,
      dueSeconds: tally.due.result(),
      bounceStatuses: tally.run.bounceStatuses,
      classes: tally.classesSummary(),
      firstLost: tally.firstLost,
      firstDuplicated: tally.firstDuplicated,
    };
  }
}

/** How a run's drain ended (defined in result-schema/delivery.ts). */
export type DrainOutcome = DeliveryResult["drain"];

const NO_DRAIN: DrainOutcome = { end: "none", waitedMs: 0, missing: 0 };
