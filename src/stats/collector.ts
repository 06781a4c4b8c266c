/**
 * Counters and histograms filled on the hot path, and the plain snapshot that crosses threads
 * and merges. The client tells RunStats what happened through its verbs (a message started, a
 * message settled, a connection opened…), which increment numbers; it never builds an Error per
 * message, and never writes a counter itself.
 */

import type { Phase, PhaseLatency } from "../smtp/phases.js";
import type { AcceptRecorder, AcceptRecords } from "./accept-records.js";
import { epochMs } from "./clock.js";
import {
  type Counters,
  type MessageOutcome,
  type OutcomeCounts,
  zeroCounters,
  zeroOutcomes,
} from "./counts.js";
import { ERROR_CLASSES, type ErrorRow, errorClassIndex, errorKey, type Failure } from "./errors.js";
import { type FirstError, FirstErrors, RunOrdinals } from "./first-errors.js";
import { LatencyRecorder, toMicros } from "./histogram.js";
import { HISTOGRAM_NAMES, type HistogramName } from "./histogram-names.js";
import { DEFAULT_INTERVAL_MS, SeriesRecorder, type SeriesSnapshot } from "./series.js";
import { type TlsSnapshot, TlsTally } from "./tls-tally.js";
import { type WarningCode, type WarningCount, WarningTally } from "./warnings.js";

export {
  fractionAtOrBelow,
  newHistogramEncoded,
  summarise,
  summariseHistogram,
  summariseMerged,
} from "./histogram.js";
export { HISTOGRAM_NAMES, type HistogramName } from "./histogram-names.js";

/** One message class as counted: outcomes and the transaction latency of accepted messages. */
export interface ClassSnapshot extends OutcomeCounts {
  name: string;
  /** Encoded HDR histogram of transaction latency, accepted messages only, µs. */
  histogram: string;
  /** Encoded per-class phase histograms (envelope, data), µs; absent in old snapshots. */
  phases?: Partial<Record<ClassPhase, string>>;
}

/** The phases that belong to one message, and so to its class. */
export const CLASS_PHASES = ["envelope", "data"] as const satisfies readonly PhaseLatency[];
export type ClassPhase = (typeof CLASS_PHASES)[number];

/** What a worker (or the in-process run) hands back: plain data, safe to post between threads. */
export interface StatsSnapshot {
  counters: Counters;
  errors: ErrorRow[];
  /** Encoded histograms, microseconds. */
  histograms: Record<HistogramName, string>;
  /** TIME_ORIGIN-based epoch ms of the first connect and the last reply. */
  firstEventMs: number;
  lastEventMs: number;
  /** Per message class, in the order of RunStats.classNames. */
  classes: ClassSnapshot[];
  series: SeriesSnapshot;
  /** The first occurrence of each error class, as it happened; absent in old snapshots. */
  firstErrors?: FirstError[];
  /** TLS handshakes by kind; absent when the run made none. */
  tls?: TlsSnapshot;
  /** Server quirks accepted but counted (stats/warnings.ts); absent when none occurred. */
  warnings?: WarningCount[];
  /** Each accepted message, when the run receives what the gateway relays (--receive). */
  accepts?: AcceptRecords;
}

/** How RunStats numbers and times what it counts; the defaults serve one thread. */
export interface RunStatsOptions {
  /** The run's shared counters (RunOrdinals.shared()), when several threads count. */
  ordinals?: Uint32Array;
  /** Epoch ms now; fixed in tests that need the same figures every time. */
  clock?: () => number;
  /** The run's AcceptLedger (--receive: the delivery join needs each accepted message). */
  ledger?: AcceptRecorder | null;
}

/**
 * One thread's counts. Every counter changes through a verb below, so that attempted =
 * accepted + rejected + failed + unconfirmed + (messages still open) holds at every moment, and
 * settling more messages than were started throws.
 */
export class RunStats {
  private readonly count: Counters = zeroCounters();
  /** Messages started and not yet settled. */
  private open = 0;
  private readonly histograms: Record<HistogramName, LatencyRecorder>;
  private readonly errorRows = new Map<string, ErrorRow>();
  /** Error occurrences so far, indexed like ERROR_CLASSES; the series takes differences. */
  private readonly errorClassCounts: number[] = ERROR_CLASSES.map(() => 0);
  private readonly classOutcomes: OutcomeCounts[];
  private readonly classHistograms: LatencyRecorder[];
  private readonly classPhaseHistograms: Record<ClassPhase, LatencyRecorder>[];
  readonly series: SeriesRecorder;
  private readonly ordinals: RunOrdinals;
  private readonly firstErrors: FirstErrors;
  private readonly tls = new TlsTally();
  private readonly warnings = new WarningTally();
  firstEventMs = 0;
  lastEventMs = 0;
  /** Each accepted message; null unless the run receives what the gateway relays. */
  readonly ledger: AcceptRecorder | null;

  /**
   * `classNames`: the run's message classes; messageSettled takes an index into it.
   * `intervalMs`: the time series' resolution.
   */
  constructor(
    readonly classNames: readonly string[] = ["default"],
    intervalMs = DEFAULT_INTERVAL_MS,
    options: RunStatsOptions = {},
  ) {
    this.ordinals = new RunOrdinals(options.ordinals);
    this.ledger = options.ledger ?? null;
    this.firstErrors = new FirstErrors(this.ordinals, options.clock ?? (() => epochMs()));
    this.histograms = {} as Record<HistogramName, LatencyRecorder>;
    for (const name of HISTOGRAM_NAMES) this.histograms[name] = new LatencyRecorder();
    this.classOutcomes = classNames.map(zeroOutcomes);
    // One class: its histograms hold the run's values, so they are the run's recorders, each
    // value recorded once and each histogram encoded once.
    const run = classNames.length === 1 ? this.histograms : null;
    this.classHistograms = classNames.map(() => run?.transaction ?? new LatencyRecorder());
    this.classPhaseHistograms = classNames.map(() => ({
      envelope: run?.envelope ?? new LatencyRecorder(),
      data: run?.data ?? new LatencyRecorder(),
    }));
    this.series = new SeriesRecorder(intervalMs, new LatencyRecorder());
  }

  /**
   * Records a latency in milliseconds (fractional) as whole microseconds, at least 1. An accepted
   * message's transaction latency comes with messageSettled, its envelope and data with
   * recordPhase: they belong to its class too.
   */
  record(name: Exclude<HistogramName, "transaction" | ClassPhase>, ms: number): void {
    const us = toMicros(ms);
    this.histograms[name].record(us);
    if (name === "connect") this.series.connect.record(us);
  }

  /**
   * A finished TLS handshake: the `tls` phase latency, also kept by kind (full or resumed),
   * and the negotiated version and cipher.
   */
  tlsHandshake(resumed: boolean, ms: number, version: string, cipher: string): void {
    const us = toMicros(ms);
    this.histograms.tls.record(us);
    this.tls.record(resumed, us, version, cipher);
  }

  /** A reply the session accepted though it bends a rule; `reply` is its code and text. */
  warning(code: WarningCode, reply: string): void {
    this.warnings.record(code, reply);
  }

  /** The counts so far, read-only: they change through the verbs. */
  get counters(): Readonly<Counters> {
    return this.count;
  }

  /** Messages started and not settled yet: attempted less every outcome counted. */
  get openMessages(): number {
    return this.open;
  }

  /**
   * A message started (MAIL is being written) to `recipients` recipients: attempted. Returns
   * its ordinal in the run (from 1, across threads).
   */
  messageStarted(recipients: number): number {
    this.count.attempted++;
    this.count.rcptAttempted += recipients;
    this.open++;
    return this.ordinals.messageStarted();
  }

  /**
   * A started message of class `classIndex` (an index into classNames) got its outcome. The
   * transaction latency of accepted messages only goes into the run's histogram, the time
   * series' and the class's, as in latency.transactionMs. Each started message settles once:
   * settling more than were started throws.
   */
  messageSettled(classIndex: number, outcome: MessageOutcome, transactionMs = 0): void {
    if (this.open === 0) throw new Error(`a message was settled ${outcome} but none is open`);
    this.open--;
    this.count[outcome]++;
    this.classOutcomes[classIndex][outcome]++;
    if (outcome !== "accepted") return;
    const us = toMicros(transactionMs);
    const run = this.histograms.transaction;
    run.record(us);
    this.series.histogram.record(us);
    const own = this.classHistograms[classIndex];
    if (own !== run) own.record(us);
  }

  /**
   * Messages of class `classIndex` that were due but could not start (their connection failed
   * first, or no session could be opened): attempted and failed at once, in their class too.
   */
  messagesFailedToStart(classIndex: number, count = 1): void {
    this.count.attempted += count;
    this.count.failed += count;
    this.classOutcomes[classIndex].failed += count;
  }

  /** Messages every session gave up before starting: failed to start, and counted unsent. */
  messagesUnsent(classIndex: number, count: number): void {
    this.messagesFailedToStart(classIndex, count);
    this.count.unsent += count;
  }

  /**
   * The load ended: what it was asked for (Infinity: a closed-model duration), the messages it
   * never handed out because the run was told to stop, and whether every session gave up first.
   */
  loadEnded(asked: number, stopped: number, cutShort: boolean): void {
    this.count.accounted++;
    this.count.asked += asked;
    this.count.stopped += stopped;
    if (cutShort) this.count.cutShort++;
  }

  /** Open model: arrivals dropped because no session could start them in time. */
  messagesDropped(count: number): void {
    this.count.dropped += count;
  }

  recipientAccepted(): void {
    this.count.rcptAccepted++;
  }

  recipientRejected(): void {
    this.count.rcptRejected++;
  }

  /** A connection attempt began: returns its ordinal in the run (from 1, across threads). */
  connectionOpened(): number {
    this.count.connectionsOpened++;
    return this.ordinals.connectionOpened();
  }

  /** A connection (established or not) closed. */
  connectionClosed(): void {
    this.ordinals.connectionClosed();
  }

  /** A connection reached a 220 banner. */
  connectionEstablished(): void {
    this.count.connectionsEstablished++;
  }

  /** A connection closed without reaching a 220 banner. */
  connectionRefused(): void {
    this.count.connectionsRefused++;
  }

  /** A session ends itself to reconnect: the server named a per-session limit at MAIL. */
  reconnectWanted(): void {
    this.count.reconnects++;
  }

  /** Records a message phase's latency (ms) both for the run and for the message's class. */
  recordPhase(classIndex: number, phase: ClassPhase, ms: number): void {
    const us = toMicros(ms);
    const run = this.histograms[phase];
    run.record(us);
    const own = this.classPhaseHistograms[classIndex][phase];
    if (own !== run) own.record(us);
  }

  /**
   * Called by the run loop often (every sweep) and once at the end with `final`: closes the
   * time series' interval in progress once `epochMs` has passed its end.
   */
  sample(epochMs: number, openSessions: number, final = false): void {
    const c = this.counters;
    this.series.sample(epochMs, openSessions, c, this.errorClassCounts, final);
  }

  /** One histogram encoded (running totals for live progress and --abort-on-fail). */
  encoded(name: HistogramName): string {
    return this.histograms[name].encoded();
  }

  /** The last closed interval's transaction histogram (encoded), for live progress. */
  lastIntervalHistogram(): string | null {
    return this.series.points.at(-1)?.histogram ?? null;
  }

  /** Marks an event time; the run's elapsed time spans the first to the last. */
  touch(epochMs: number): void {
    if (this.firstEventMs === 0 || epochMs < this.firstEventMs) this.firstEventMs = epochMs;
    if (epochMs > this.lastEventMs) this.lastEventMs = epochMs;
  }

  /**
   * Counts a reply in the error table: its code, RFC 3463 enhanced code, phase and text (the
   * reply text with its enhanced code removed). `connection` and `message` are the ordinals of
   * the connection it came on and the message it hit (0: none), for the first occurrence of its
   * class. Returns the row it is counted in.
   */
  reply(
    code: number,
    enhanced: string,
    phase: Phase,
    text: string,
    count = 1,
    connection = 0,
    message = 0,
  ): ErrorRow {
    return this.error(String(code), enhanced, phase, text, count, connection, message);
  }

  /** Counts a failure without a reply in the error table; `text` is its detail. See reply(). */
  failure(
    kind: Failure,
    phase: Phase,
    text: string,
    count = 1,
    connection = 0,
    message = 0,
  ): ErrorRow {
    return this.error(kind, "", phase, text, count, connection, message);
  }

  /**
   * Messages lost with a session beside the one the row of its ending failure (`ending`) counts,
   * pipelined behind it: one row of that reply, phase and class, so each is in exactly one row.
   */
  lostWithSession(ending: ErrorRow, count: number): void {
    if (count <= 0) return;
    const text = `${LOST_WITH_SESSION}${ending.text}`;
    this.error(ending.reply, ending.enhanced, ending.phase, text, count, 0, 0);
  }

  private error(
    reply: string,
    enhanced: string,
    phase: Phase,
    text: string,
    count: number,
    connection: number,
    message: number,
  ): ErrorRow {
    const key = errorKey(reply, enhanced, phase, text);
    let row = this.errorRows.get(key);
    if (row) row.count += count;
    else {
      row = { reply, enhanced, phase, text, count };
      this.errorRows.set(key, row);
    }
    const index = errorClassIndex(reply, enhanced, phase);
    this.errorClassCounts[index] += count;
    if (!this.firstErrors.has(index)) this.firstErrors.record(index, connection, message);
    return row;
  }

  snapshot(): StatsSnapshot {
    // A recorder the class shares with the run is encoded once.
    const encodings = new Map<LatencyRecorder, string>();
    const encode = (recorder: LatencyRecorder) => {
      const known = encodings.get(recorder);
      if (known !== undefined) return known;
      const encoded = recorder.encodedAndSummarised();
      encodings.set(recorder, encoded);
      return encoded;
    };
    const histograms = {} as Record<HistogramName, string>;
    for (const name of HISTOGRAM_NAMES) histograms[name] = encode(this.histograms[name]);
    return {
      counters: { ...this.counters },
      errors: [...this.errorRows.values()].map((row) => ({ ...row })),
      histograms,
      firstEventMs: this.firstEventMs,
      lastEventMs: this.lastEventMs,
      classes: this.classNames.map((name, i) => ({
        name,
        ...this.classOutcomes[i],
        histogram: encode(this.classHistograms[i]),
        phases: {
          envelope: encode(this.classPhaseHistograms[i].envelope),
          data: encode(this.classPhaseHistograms[i].data),
        },
      })),
      series: this.series.snapshot(),
      firstErrors: this.firstErrors.snapshot(),
      tls: this.tls.snapshot(),
      warnings: this.warnings.snapshot(),
      ...(this.ledger ? { accepts: this.ledger.snapshot() } : {}),
    };
  }
}

/** The text that starts the row of messages lost behind a session's ending failure. */
export const LOST_WITH_SESSION = "in flight when the session ended: ";
