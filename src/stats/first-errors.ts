/**
 * The first occurrence of each error class, recorded at the moment it happened rather than read
 * off the time series (which knows only the interval): where a gateway started refusing, to the
 * connection and the message. Every thread records its own first occurrence of a class; the
 * merge keeps the earliest. Connections and messages are numbered in one sequence per run,
 * shared by its threads (RunOrdinals), so an ordinal means the same whichever thread saw it.
 */
import { ERROR_CLASSES, type ErrorClass } from "./errors.js";

/** Slots of the run's shared counters. */
const CONNECTIONS = 0;
const MESSAGES = 1;
const OPEN = 2;

/**
 * Counters the run's threads share (a SharedArrayBuffer; a plain buffer in one thread):
 * connections opened, messages started, connections open. Atomics keep them exact.
 */
export class RunOrdinals {
  readonly counts: Uint32Array;

  constructor(counts?: Uint32Array) {
    this.counts = counts ?? new Uint32Array(3);
  }

  /** Counters to hand to every worker thread of one run. */
  static shared(): Uint32Array {
    return new Uint32Array(new SharedArrayBuffer(3 * Uint32Array.BYTES_PER_ELEMENT));
  }

  /** A connection attempt began: its ordinal in the run, from 1. */
  connectionOpened(): number {
    Atomics.add(this.counts, OPEN, 1);
    return Atomics.add(this.counts, CONNECTIONS, 1) + 1;
  }

  connectionClosed(): void {
    Atomics.sub(this.counts, OPEN, 1);
  }

  /** A message started: its ordinal in the run, from 1. */
  messageStarted(): number {
    return Atomics.add(this.counts, MESSAGES, 1) + 1;
  }

  get connections(): number {
    return Atomics.load(this.counts, CONNECTIONS);
  }

  get messages(): number {
    return Atomics.load(this.counts, MESSAGES);
  }

  get open(): number {
    return Atomics.load(this.counts, OPEN);
  }
}

/** The first occurrence of an error class, as a thread recorded it (see Result.firstSeen). */
export interface FirstError {
  class: ErrorClass;
  /** When it happened, epoch ms. */
  atMs: number;
  /** Ordinal of the connection it came on (from 1), 0 when on none. */
  connection: number;
  /** Ordinal of the message it hit (from 1), 0 when it hit no started message. */
  message: number;
  /** Connections opened and messages started in the whole run up to that moment. */
  connectionsOpened: number;
  messagesStarted: number;
  /** Connections open at that moment, the one the error came on included. */
  openSessions: number;
}

/** One thread's first occurrences, one slot per error class. */
export class FirstErrors {
  private readonly firsts: (FirstError | null)[] = ERROR_CLASSES.map(() => null);

  constructor(
    private readonly ordinals: RunOrdinals,
    private readonly clock: () => number,
  ) {}

  /** Whether class `index` (into ERROR_CLASSES) has been recorded; cheap, for the hot path. */
  has(index: number): boolean {
    return this.firsts[index] !== null;
  }

  record(index: number, connection: number, message: number): void {
    if (this.firsts[index] !== null) return;
    const o = this.ordinals;
    this.firsts[index] = {
      class: ERROR_CLASSES[index],
      atMs: this.clock(),
      connection,
      message,
      connectionsOpened: o.connections,
      messagesStarted: o.messages,
      openSessions: o.open,
    };
  }

  snapshot(): FirstError[] {
    return this.firsts.filter((f): f is FirstError => f !== null).map((f) => ({ ...f }));
  }
}

/** The earliest first occurrence of each class across threads, in order of time. */
export function mergeFirstErrors(parts: readonly (readonly FirstError[])[]): FirstError[] {
  const earliest = new Map<ErrorClass, FirstError>();
  for (const part of parts) {
    for (const f of part) {
      const have = earliest.get(f.class);
      const before =
        !have || f.atMs < have.atMs || (f.atMs === have.atMs && f.connection < have.connection);
      if (before) earliest.set(f.class, { ...f });
    }
  }
  return [...earliest.values()].sort((a, b) => a.atMs - b.atMs);
}
