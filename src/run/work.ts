/**
 * Where sessions take their messages from. The closed model hands out a fixed number (or as
 * many as a duration allows) as fast as sessions ask; the open model releases messages at their
 * arrival times into a bounded queue and drops those that cannot start in time (coordinated
 * omission: latency counts from the intended time, not from when a session got free).
 */
import { NO_WORK, NOT_YET } from "../client/session.js";
import { durationText } from "../config/option-rows.js";
import type { RunConfig } from "../config/run-config.js";
import type { StartLateness } from "../stats/start-lateness.js";
import {
  type Arrivals,
  type ArrivalTimes,
  arrivalSchedule,
  arrivalsBefore,
  type StagePoint,
} from "./schedule.js";

export interface WorkSource {
  /** The next message's sequence number, NO_WORK or NOT_YET. */
  take(): number;
  /** Intended start (performance.now() time) of the message `take` returned last. */
  readonly intendedMs: number;
  /** Stops handing out messages; sessions finish what they have and QUIT. */
  drain(): void;
  /**
   * Called with the number of messages waiting when some became available after a NOT_YET
   * (wake at most that many sessions), and with Infinity when the source drains or releases
   * its last arrival (every idle session must hear it: those that find nothing QUIT).
   */
  onAvailable: ((waiting: number) => void) | null;
  /** No message will ever be handed out again. */
  readonly exhausted: boolean;
  /** Messages the source gave up on before any session took them (open model). */
  readonly dropped: number;
  /**
   * Messages the run was asked for (Result.accounting.asked): -m, or the open model's arrivals
   * due within -d (the fewer of the two). Infinity when the closed model runs for a duration:
   * it has no number, only as many as its sessions take in the time. Read once the run ended.
   */
  readonly asked: number;
  /**
   * Messages asked for that the source neither handed out nor dropped: arrivals not yet due,
   * those still queued, and the closed model's rest of -m. When the run was told to stop they
   * are stopped; otherwise every session gave up, and they are unsent.
   */
  readonly left: number;
  /** The sequence number of the next message left, to count it in its class. */
  takeLeft(): number;
  /** The load model still had work when the run ended: every session gave up first. */
  readonly cutShort: boolean;
  close(): void;
}

/**
 * Sequence numbers: share i of n takes seqBase + k·stride, so several workers' numbers never
 * collide, and the union over all shares is 0, 1, 2, … exactly.
 */
export interface SeqSpace {
  readonly seqBase: number;
  readonly stride: number;
}

export class ClosedWork implements WorkSource {
  /** No schedule in the closed model: a message is due when a session takes it. */
  readonly intendedMs = Number.NaN;
  onAvailable: ((waiting: number) => void) | null = null;
  readonly dropped = 0;
  private taken = 0;
  private drained = false;
  /** -d ended the hand-out: what was not taken was never asked for. */
  private timeUp = false;
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param messages messages to hand out; Infinity with a duration.
   * @param durationMs stop handing out after this long (0: no limit).
   */
  constructor(
    private readonly messages: number,
    private readonly space: SeqSpace,
    durationMs: number,
  ) {
    if (durationMs > 0) {
      this.timer = setTimeout(() => {
        this.timeUp = true;
        this.drain();
      }, durationMs);
    }
  }

  get exhausted(): boolean {
    return this.drained || this.taken >= this.messages;
  }

  take(): number {
    if (this.exhausted) return NO_WORK;
    return this.space.seqBase + this.space.stride * this.taken++;
  }

  get asked(): number {
    return this.timeUp ? Number.POSITIVE_INFINITY : this.messages;
  }

  get left(): number {
    return Number.isFinite(this.asked) ? this.messages - this.taken : 0;
  }

  get cutShort(): boolean {
    return !this.exhausted;
  }

  takeLeft(): number {
    return this.space.seqBase + this.space.stride * this.taken++;
  }

  drain(): void {
    this.drained = true;
    this.close();
    this.onAvailable?.(Number.POSITIVE_INFINITY);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

export interface OpenWorkOptions {
  /**
   * The whole run's arrival rate stages in messages per second (one point for a constant rate):
   * this source schedules its stripe of them (StripedArrivals), each at its time in the run's
   * schedule, whatever the share of worker threads and machines.
   */
  readonly rate: readonly StagePoint[];
  /** How the arrivals are spaced around the rate (absent: constant). */
  readonly arrivals?: Arrivals;
  /** Messages this source schedules; Infinity with a duration. */
  readonly messages: number;
  /** Stop scheduling after this long (0: no limit). */
  readonly durationMs: number;
  /** An arrival that has waited this long for a session is dropped. */
  readonly maxDelayMs: number;
  /** At most this many arrivals wait at once; more are dropped. */
  readonly maxQueue: number;
  /** Records each started arrival's lateness against its intended time. */
  readonly lateness?: StartLateness | null;
}

/**
 * The open model's arrivals of one share, striped out of the unsharded schedule: the share's
 * j-th arrival is the run's arrival seqBase + stride·j, at that arrival's intended time. So the
 * union over shares is the unsharded schedule itself, time for time, and latency measured from
 * these times survives a merge (coordinated-omission correction included). Scaling the rate by
 * rateShare instead gives the right rate but shifted times.
 */
export class StripedArrivals {
  private readonly schedule: ArrivalTimes;

  /** @param rate the whole run's rate stages, not scaled by the share. */
  constructor(
    private readonly rate: readonly StagePoint[],
    private readonly space: SeqSpace,
    private readonly arrivals?: Arrivals,
  ) {
    this.schedule = arrivalSchedule(rate, arrivals);
  }

  /** The run-wide arrival number of this share's j-th arrival. */
  arrivalIndex(j: number): number {
    return this.space.seqBase + this.space.stride * j;
  }

  /** This share's arrivals due before `tMs` from the run's start (Infinity: no end). */
  arrivalsBefore(tMs: number): number {
    const runWide = arrivalsBefore(this.rate, tMs, this.arrivals);
    if (!Number.isFinite(runWide)) return runWide;
    const { seqBase, stride } = this.space;
    return runWide > seqBase ? Math.ceil((runWide - seqBase) / stride) : 0;
  }

  /** Milliseconds from the run's start at which this share's arrival j is due. Non-decreasing j. */
  arrivalTime(j: number): number {
    return this.schedule.arrivalTime(this.arrivalIndex(j));
  }
}

/** How often due arrivals are released; arrivals keep their exact intended times. */
const TICK_MS = 1;

export class OpenWork implements WorkSource {
  intendedMs = 0;
  onAvailable: ((waiting: number) => void) | null = null;
  dropped = 0;
  private readonly arrivals: StripedArrivals;
  private readonly startMs = performance.now();
  private scheduled = 0;
  /** Intended times of waiting arrivals, a ring. */
  private readonly queue: Float64Array;
  private head = 0;
  private length = 0;
  private drained = false;
  /** Arrivals still queued when the run was told to stop (drain): left, never started. */
  private queuedAtStop = 0;
  /** The schedule released its last arrival (or reached its end): nothing more is due. */
  private scheduleDone = false;
  private timer: NodeJS.Timeout | null = null;
  private seqCounter = 0;

  constructor(
    private readonly options: OpenWorkOptions,
    private readonly space: SeqSpace,
  ) {
    this.arrivals = new StripedArrivals(options.rate, space, options.arrivals);
    this.queue = new Float64Array(Math.max(1, options.maxQueue));
    this.tick();
  }

  get exhausted(): boolean {
    return this.drained && this.length === 0;
  }

  take(): number {
    const now = performance.now();
    this.expire(now);
    if (this.length === 0) return this.drained ? NO_WORK : NOT_YET;
    this.intendedMs = this.queue[this.head];
    this.options.lateness?.record(this.intendedMs, now);
    this.head = (this.head + 1) % this.queue.length;
    this.length--;
    return this.space.seqBase + this.space.stride * this.seqCounter++;
  }

  get asked(): number {
    const { messages, durationMs } = this.options;
    if (this.scheduleDone) return this.scheduled;
    const due = this.arrivals.arrivalsBefore(
      durationMs > 0 ? durationMs : Number.POSITIVE_INFINITY,
    );
    return Math.max(this.scheduled, Math.min(messages, due));
  }

  get left(): number {
    const asked = this.asked;
    const unscheduled = Number.isFinite(asked) ? asked - this.scheduled : 0;
    return unscheduled + this.queuedAtStop + this.length;
  }

  get cutShort(): boolean {
    return !this.scheduleDone || this.length > 0;
  }

  takeLeft(): number {
    return this.space.seqBase + this.space.stride * this.seqCounter++;
  }

  drain(): void {
    if (this.drained && this.length === 0) return;
    // Arrivals still waiting were never started, and not for want of a session: the run was
    // told to stop. They are left (stopped), not dropped.
    this.queuedAtStop += this.length;
    this.length = 0;
    this.drained = true;
    this.close();
    this.onAvailable?.(Number.POSITIVE_INFINITY);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Releases every arrival due by now, then sleeps until the next one. */
  private tick(): void {
    this.timer = null;
    if (this.drained) return;
    const now = performance.now();
    const { messages, durationMs } = this.options;
    let released = 0;
    for (;;) {
      if (this.scheduled >= messages) {
        this.finishScheduling();
        break;
      }
      const at = this.arrivals.arrivalTime(this.scheduled);
      if (durationMs > 0 && at >= durationMs) {
        this.finishScheduling();
        break;
      }
      const due = this.startMs + at;
      if (due > now) {
        this.timer = setTimeout(() => this.tick(), Math.max(TICK_MS, Math.floor(due - now)));
        break;
      }
      this.scheduled++;
      if (this.enqueue(due)) released++;
    }
    this.expire(now);
    // Only arrivals queued now wake anyone (a release the full queue dropped brings nothing to
    // take), and no more sessions than arrivals wait: one woken finds one. The schedule's end
    // has woken every idle session already.
    if (released > 0 && this.length > 0 && !this.scheduleDone) this.onAvailable?.(this.length);
  }

  /** Queues an arrival; false when the queue is full and it was dropped. */
  private enqueue(intended: number): boolean {
    if (this.length === this.queue.length) {
      this.dropped++;
      return false;
    }
    this.queue[(this.head + this.length) % this.queue.length] = intended;
    this.length++;
    return true;
  }

  /** Drops arrivals that waited longer than the bound: they count, they are not sent. */
  private expire(now: number): void {
    const limit = now - this.options.maxDelayMs;
    while (this.length > 0 && this.queue[this.head] < limit) {
      this.head = (this.head + 1) % this.queue.length;
      this.length--;
      this.dropped++;
    }
  }

  /** No more arrivals will be scheduled; once the queue empties the source is done. */
  private finishScheduling(): void {
    this.scheduleDone = true;
    this.drained = true;
    this.onAvailable?.(Number.POSITIVE_INFINITY);
  }
}

/**
 * Why the work left was unsent, as its error row says. A thread none of whose connections got
 * past a SYN in --timeout-connect gives each slot up at its first timeout (thread-run.ts): the
 * host drops SYNs (a firewall, a wrong address), and retrying would repeat the wait once per
 * attempt and message, so the run ends within one connect timeout instead.
 */
export function unsentReason(
  config: RunConfig,
  slots: readonly { readonly retired: boolean | "unreachable" }[],
): string {
  if (slots.some((slot) => slot.retired === "unreachable")) {
    const timeout = durationText(config.timeouts.connect);
    return `no connection: timed out, every connection (--timeout-connect ${timeout})`;
  }
  return `every session gave up after ${config.reconnectAttempts} sessions in a row ended without a message`;
}
