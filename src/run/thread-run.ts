/**
 * Drives one share of a run's sessions on this thread's event loop: the session slots, the
 * work source they take messages from (closed or open model), session ramps, reconnect backoff,
 * and one sweeper for timeouts, ramps and sampling. A worker thread runs exactly this for its
 * share; the in-process run calls it directly.
 */
import { NOT_YET, Session, type SessionHost } from "../client/session.js";
import type { RunConfig } from "../config/run-config.js";
import { type AcceptChunk, AcceptLedger } from "../delivery/accept-ledger.js";
import { MessageFactory } from "../messages/factory.js";
import { MessageWire } from "../messages/message-wire.js";
import { epochMs, performance } from "../stats/clock.js";
import { RunStats } from "../stats/collector.js";
import { outcomesOf } from "../stats/counts.js";
import { GeneratorLoadSampler } from "../stats/generator-load.js";
import { type StartLateness, scheduleLateness } from "../stats/start-lateness.js";
import { mark } from "../stats/timeline.js";
import { countDropped, countLeft } from "./left-over.js";
import type { ThreadProgress } from "./progress.js";
import { activeSessions, arrivalIntervalAt, sessionCap, sessionQuotas } from "./schedule.js";
import { newSlot, type Slot } from "./slot.js";
import { StartGate } from "./start-at.js";
import type { RunningLoad, ThreadOutcome, ThreadShare } from "./thread-share.js";
import { WakeQueue } from "./wake-queue.js";
import { ClosedWork, OpenWork, type WorkSource } from "./work.js";

export type { Progress, ProgressCounts, ThreadProgress } from "./progress.js";
export type { RunningLoad, ThreadOutcome, ThreadShare } from "./thread-share.js";

export interface ThreadShareHooks {
  /** Prints the conversation of the first session (-v). */
  readonly trace?: (line: string) => void;
  /** This share's running totals, once per PROGRESS_INTERVAL_MS. */
  readonly progress?: (progress: ThreadProgress) => void;
  /** Message files already loaded on this thread, to send from instead of loading them again. */
  readonly wire?: MessageWire;
  /** The run's connection and message counters, shared by its worker threads. */
  readonly ordinals?: Uint32Array;
  /** This thread's name in the Result's generator section: "main", "worker 1", … */
  readonly threadName?: string;
  /** Takes the accept records as they come (--receive ADDR joins as the run goes). */
  readonly accepts?: (chunk: AcceptChunk) => void;
}

export const PROGRESS_INTERVAL_MS = 1000;

/** How often timeouts, ramps and samples are checked. */
const SWEEP_INTERVAL_MS = 100;

class ThreadShareRun implements SessionHost {
  /** Built in run(): loading message files is asynchronous. */
  wire!: MessageWire;
  readonly stats: RunStats;
  /** Each accepted message, kept with --receive (config.traceIds): the delivery join's input. */
  private readonly ledger: AcceptLedger | null;
  /** This thread's own CPU, event-loop utilisation and delay, per interval of the series. */
  private readonly sampler: GeneratorLoadSampler;
  private lateness: StartLateness | null = null;
  readonly trace: ((line: string) => void) | null;
  private work!: WorkSource;
  private readonly slots: Slot[] = [];
  /** Sessions open now: each is `slots[session.place].session`. */
  private openSessions = 0;
  /** Slots whose session has nothing to do (open model lull), and slots waiting to open. */
  private readonly idle: WakeQueue;
  private readonly parked: WakeQueue;
  /** Messages handed to sessions so far: a wake stops once as many went as had arrived. */
  private handedOut = 0;
  /** Slots waiting out a reconnect backoff. */
  private reconnecting = 0;
  /** The last slot open() tried found no message due (per-message, open model). */
  private lull = false;
  private startMs = performance.now();
  private sessionsOpened = 0;
  private activeTarget: number;
  private sweeper: NodeJS.Timeout | null = null;
  private lastProgressMs = performance.now();
  private readonly progressHook: ((progress: ThreadProgress) => void) | null;
  private readonly preloaded: MessageWire | null;
  private hardStopped = false;
  private drainRequested = false;
  private finished = false;
  /** Each slot has a quota of messages (--ramp-up with -m). */
  private readonly ownedShares: boolean;
  private done!: () => void;
  /** --start-at: the load waits for it once its messages are loaded. */
  private readonly startGate: StartGate;

  constructor(
    readonly config: RunConfig,
    private readonly share: ThreadShare,
    hooks: ThreadShareHooks,
  ) {
    this.ledger = config.traceIds === true ? new AcceptLedger() : null;
    this.stats = new RunStats(
      config.classes.map((c) => c.name),
      config.intervalMs,
      { ordinals: hooks.ordinals, ledger: this.ledger },
    );
    this.sampler = new GeneratorLoadSampler(hooks.threadName ?? "main", config.intervalMs);
    this.trace = hooks.trace ?? null;
    this.progressHook = hooks.progress ?? null;
    if (hooks.accepts) this.ledger?.streamTo(hooks.accepts);
    this.preloaded = hooks.wire ?? null;
    const quotas = sessionQuotas(config.load, share.messages, share.sessions);
    this.ownedShares = quotas !== null;
    this.startGate = new StartGate(config.startAt);
    for (let i = 0; i < share.sessions; i++) this.slots.push(newSlot(i, quotas?.[i]));
    this.idle = new WakeQueue(share.sessions);
    this.parked = new WakeQueue(share.sessions);
    for (const slot of this.slots) this.parked.add(slot.index);
    this.activeTarget = this.targetSessions(0);
  }

  private newWorkSource(): WorkSource {
    const { config, share } = this;
    const { load } = config;
    if (!load.rate) return new ClosedWork(share.messages, share, load.durationMs);
    const rate = load.rate;
    this.lateness = scheduleLateness((since) => arrivalIntervalAt(rate, since), config.intervalMs);
    return new OpenWork(
      // The share takes its stripe of the run's arrivals (rate, arrivals) within the load's bounds.
      { ...load, rate, messages: share.messages, lateness: this.lateness },
      share,
    );
  }

  get intendedMs(): number {
    return this.work.intendedMs;
  }

  async run(): Promise<ThreadOutcome> {
    this.wire = this.preloaded ?? (await MessageWire.create(this.config));
    await this.startGate.wait();
    this.work = this.newWorkSource();
    // Ctrl-C while loading or waiting: drained before anyone listens, so the run ends below.
    if (this.drainRequested || this.hardStopped) this.work.drain();
    this.work.onAvailable = (waiting) => this.wake(waiting);
    this.startMs = performance.now();
    return new Promise((resolve) => {
      this.done = () => {
        mark("sessions ended");
        resolve({
          stats: this.stats.snapshot(),
          threads: [this.sampler.stop(epochMs())],
          lateness: this.lateness?.snapshot() ?? null,
        });
      };
      this.sampler.start(epochMs(this.startMs));
      this.stats.sample(epochMs(this.startMs), 0); // opens the time series
      this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
      this.fillSlots();
      this.stats.sample(epochMs(), this.openSessions); // the sessions just opened: a first level
      this.finishIfIdle();
    });
  }

  /** Ctrl-C: start no more messages; in-flight ones may finish within the grace period. */
  drain(): void {
    this.drainRequested = true;
    this.startGate.open();
    this.work?.drain();
    setTimeout(() => this.stop(), this.config.load.graceMs).unref();
  }

  /** Ends every session now; messages in flight are counted as failed. */
  stop(): void {
    this.hardStopped = true;
    this.startGate.open();
    this.work?.drain();
    for (const slot of this.slots) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
      slot.session?.stop();
    }
    this.reconnecting = 0;
    this.finishIfIdle();
  }

  takeMessage(session: Session): number {
    // A session ramp going down retires sessions above the target after their message; without
    // one (every slot active) the per-message slot lookup is not needed.
    if (this.activeTarget < this.slots.length || this.ownedShares) {
      const slot = this.slotOf(session);
      if (slot && (slot.index >= this.activeTarget || slot.taken >= slot.quota)) return -1;
      const seq = this.take();
      if (slot && seq >= 0) slot.taken++;
      return seq;
    }
    return this.take();
  }

  private take(): number {
    const seq = this.work.take();
    if (seq >= 0) this.handedOut++;
    return seq;
  }

  sessionIdle(session: Session): void {
    const slot = this.slotOf(session)!;
    slot.idle = true;
    this.idle.add(slot.index);
  }

  messagesFor(slots: number): MessageFactory {
    return new MessageFactory(this.wire, slots);
  }

  classIndexOf(seq: number): number {
    return this.wire.classOf(seq).index;
  }

  sessionEnded(session: Session, cleanly: boolean): void {
    const slot = this.slotOf(session)!;
    this.openSessions--;
    slot.idle = false;
    this.idle.delete(slot.index);
    slot.session = null;
    slot.closed = session;
    if (session.connectTimedOut && this.stats.counters.connectionsEstablished === 0) {
      slot.retired = "unreachable"; // see unsentReason (work.ts); open() below opens none
    } else if (this.config.mode === "reuse") {
      const worked = session.messagesStarted > 0 || cleanly;
      slot.failures = worked ? 0 : slot.failures + 1;
      if (slot.failures > 0 && !this.hardStopped) {
        if (slot.failures >= this.config.reconnectAttempts) {
          slot.retired = true; // this slot gives up; the others take its work
          this.finishIfIdle();
          return;
        }
        const factor = Math.min(2 ** (slot.failures - 1), 16);
        this.reconnecting++;
        slot.timer = setTimeout(() => {
          slot.timer = null;
          this.reconnecting--;
          this.open(slot);
          this.finishIfIdle();
        }, this.config.reconnectDelayMs * factor);
        return;
      }
    }
    this.open(slot);
    this.finishIfIdle();
  }

  /**
   * Opens a session in a slot, if the slot is within the ramp and work may come; otherwise the
   * slot waits in `parked` while it may open later (a ramp, the open model's next arrival).
   */
  private open(slot: Slot): boolean {
    if (this.hardStopped || slot.retired || slot.taken >= slot.quota) return false;
    if (slot.index >= this.activeTarget) return this.park(slot);
    let preclaimed = -1;
    if (this.config.mode === "per-message") {
      preclaimed = this.take();
      if (preclaimed === NOT_YET) {
        this.lull = true;
        return this.park(slot);
      }
      if (preclaimed < 0) return false; // NO_WORK: done
      slot.taken++;
    } else if (this.work.exhausted) {
      return false;
    }
    this.parked.delete(slot.index);
    const cap = sessionCap(this.config.load.messagesPerSession);
    const id = this.sessionsOpened++;
    let session = slot.closed;
    if (session === null) session = new Session(this, id, preclaimed, cap, slot.index);
    else session.reopen(id, preclaimed, cap);
    slot.closed = null;
    slot.session = session;
    this.openSessions++;
    return true;
  }

  private park(slot: Slot): false {
    this.parked.add(slot.index);
    return false;
  }

  /** The slot a session runs in (its `place`), or undefined for one that ended. */
  private slotOf(session: Session): Slot | undefined {
    const slot = this.slots[session.place];
    return slot?.session === session ? slot : undefined;
  }

  /**
   * `waiting` messages arrived: wake idle sessions, longest idle first, until that many were
   * handed out, then open parked slots for the rest (per-message: each takes one). Infinity:
   * the source drained or ended, and every idle session hears it (those finding nothing QUIT).
   */
  private wake(waiting: number): void {
    const until = this.handedOut + waiting;
    while (this.handedOut < until) {
      const index = this.idle.shift();
      if (index === undefined) break;
      const slot = this.slots[index]!;
      slot.idle = false;
      slot.session!.resume();
    }
    this.fillSlots(until - this.handedOut);
    this.finishIfIdle();
  }

  /** Opens up to `limit` parked slots, each tried once, in the order they parked. */
  private fillSlots(limit = Number.POSITIVE_INFINITY): void {
    let opened = 0;
    for (let tries = this.parked.size; tries > 0 && opened < limit; tries--) {
      const slot = this.slots[this.parked.shift()!]!;
      this.lull = false;
      if (this.open(slot)) opened++;
      else if (this.lull) break; // nothing due: the slots behind it would find nothing either
    }
  }

  /** Closed-model session ramp: how many slots may be active `elapsedMs` into the run. */
  private targetSessions(elapsedMs: number): number {
    return activeSessions(this.config.load, this.slots.length, this.config.sessions, elapsedMs);
  }

  progress(): ThreadProgress {
    const c = this.stats.counters;
    return {
      attempted: c.attempted,
      ...outcomesOf(c),
      dropped: this.work.dropped,
      connectionsOpened: c.connectionsOpened,
      connectionsRefused: c.connectionsRefused,
      openSessions: this.openSessions,
      recentHistogram: this.stats.lastIntervalHistogram(),
      transactionHistogram: this.stats.encoded("transaction"),
      points: this.stats.series.takeNew(),
    };
  }

  private finishIfIdle(): void {
    if (this.finished || !this.work) return; // not started: run() finishes after the start gate
    if (this.openSessions > 0 || this.reconnecting > 0) return;
    if (!this.hardStopped && !this.work.exhausted) {
      // Open model lull, or a ramp at zero: wait unless every slot is retired or has its share.
      const waiting = this.slots.some((s) => !s.retired && s.taken < s.quota);
      if (waiting) return;
    }
    this.finished = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.work.close();
    countDropped(this.stats, this.work);
    countLeft(
      this.stats,
      this.work,
      this.wire,
      this.config,
      this.slots,
      this.drainRequested || this.hardStopped,
    );
    this.stats.sample(epochMs(), 0, true);
    this.ledger?.flush(this.stats.firstEventMs, true);
    this.done();
  }

  private sweep(): void {
    const now = performance.now();
    // An idle session waits for nothing: its slot says so, and the session is not touched.
    for (const slot of this.slots) if (!slot.idle) slot.session?.checkTimeout(now);
    countDropped(this.stats, this.work);
    this.stats.sample(epochMs(now), this.openSessions);
    this.sampler.sample(epochMs(now));
    this.ledger?.flush(this.stats.firstEventMs, false);
    if (this.progressHook && now - this.lastProgressMs >= PROGRESS_INTERVAL_MS) {
      this.lastProgressMs = now;
      this.progressHook(this.progress());
    }
    const target = this.targetSessions(now - this.startMs);
    if (target !== this.activeTarget) {
      this.activeTarget = target;
      for (const index of this.idle.values()) {
        const slot = this.slots[index]!;
        if (slot.index >= target) {
          slot.idle = false;
          this.idle.delete(index);
          slot.session!.resume(); // it will find no work for its slot and QUIT
        }
      }
      this.fillSlots();
    }
    this.finishIfIdle();
  }
}

/** Runs one share to completion (or until stopped), resolving with its counts. */
export function runThreadShare(
  config: RunConfig,
  share: ThreadShare,
  hooks: ThreadShareHooks = {},
): RunningLoad {
  const load = new ThreadShareRun(config, share, hooks);
  return { result: load.run(), stop: () => load.stop(), drain: () => load.drain() };
}
