/**
 * The Result of a run: the one definition of every figure mailvolley prints. The terminal and
 * JSON reports read these fields and nothing else; docs/result.md's "Result fields" section repeats
 * these definitions word for word in spirit.
 */

import type { Latency, Phase } from "../smtp/phases.js";
import type { Accounting } from "./accounting.js";
import type { DeliveryResult } from "./delivery-result.js";
import type { ErrorClass } from "./errors.js";
import type { GeneratorResult } from "./generator-result.js";
import type { LatencySummary } from "./latency-summary.js";
import type { FirstSeen, Knee, RunRecord } from "./result-context.js";
import type { ShardHeader } from "./shard-header.js";
import type { TlsResult } from "./tls-result.js";

export type { Phase } from "../smtp/phases.js";
export type { Accounting } from "./accounting.js";
export type { ErrorClass } from "./errors.js";
export type { GeneratorResult, LimitedBy } from "./generator-result.js";
export type { LatencySummary } from "./latency-summary.js";
export type { FirstSeen, Knee, RunRecord } from "./result-context.js";
export type { ShardHeader } from "./shard-header.js";

/** Fields are only ever added under one schema; it changes when a field changes meaning. */
export const RESULT_SCHEMA = "mailvolley/result@1";

/** The latencies `latency` holds, one field each, in report order: reports list them from here. */
export { LATENCIES, type Latency, type LatencyField, latencyField } from "../smtp/phases.js";

/**
 * The order of `latency`'s fields (and of `histograms`) in a saved Result: the order they
 * joined the schema, so that saved results stay byte-for-byte what they were. Reports list
 * the latencies in LATENCIES order (smtp/phases.ts), the phases' session order.
 */
export const RESULT_LATENCIES = [
  "transaction",
  "connect",
  "banner",
  "ehlo",
  "envelope",
  "data",
  "quit",
  "session",
  "tls",
  "auth",
] as const satisfies readonly Latency[];

// Compiles only while RESULT_LATENCIES names every latency of smtp/phases.ts.
const _everyLatencySaved: Record<Exclude<Latency, (typeof RESULT_LATENCIES)[number]>, never> = {};

export type Mode = "reuse" | "per-message";

export interface ErrorRow {
  /**
   * The reply code as text ("421", "550"), or for failures without a reply a `Failure`:
   * "timeout", "closed" (peer closed the connection), "refused" (TCP connection refused),
   * "reset", "protocol" (the peer sent something that is not SMTP), "socket" (other socket
   * error), "unsupported" (the server lacks what the run requires, STARTTLS or AUTH), "unsent"
   * (the run ended with the message never started because no session could be opened), "stopped"
   * (cut by this client: a second signal, --abort-on-fail, or --grace over). See
   * FAILURE_CLASS in errors.ts.
   */
  reply: string;
  /** RFC 3463 enhanced status code from the reply text ("4.7.0"), or "". */
  enhanced: string;
  /** The phase the command that got this reply (or failure) belongs to. */
  phase: Phase;
  /** Reply text of the first occurrence (without code and enhanced code), or failure detail. */
  text: string;
  /** How many times this (reply, enhanced, phase, normalised text) occurred. */
  count: number;
}

/** An error row of the Result: the snapshot's row and the class it is counted in. */
export interface ResultErrorRow extends ErrorRow {
  /** See classifyError in errors.ts; docs/result.md's "Error classes" repeats the rules. */
  class: ErrorClass;
}

/** One row of the statistics table: a message class, or all of them. */
export interface ClassResult {
  /** The class name; "all" for the row over every message of the run. */
  name: string;
  /** accepted + rejected + failed. */
  attempted: number;
  accepted: number;
  rejected: number;
  failed: number;
  /** (rejected + failed) / attempted × 100; 0 when nothing was attempted. */
  errorPercent: number;
  /** Transaction latency (MAIL to the final reply), accepted messages only. */
  transactionMs: LatencySummary;
  /** The class's envelope phase (MAIL to the 354), as latency.envelopeMs; absent for "all". */
  envelopeMs?: LatencySummary;
  /** The class's data phase (content to the final reply), as latency.dataMs; absent for "all". */
  dataMs?: LatencySummary;
  /** accepted / elapsedSeconds (the whole run's elapsed time). */
  messagesPerSecond: number;
  /**
   * Apdex over attempted messages: (satisfied + tolerating / 2) / attempted, where satisfied is
   * an accepted message with transaction latency ≤ apdex.satisfiedMs, tolerating one ≤
   * apdex.toleratingMs, and every rejected or failed message counts as frustrated. null when
   * nothing was attempted. Three decimals.
   */
  apdex: number | null;
}

/** One interval of the time series. */
export interface SeriesPointResult {
  /** Start of the interval, epoch ms (a multiple of series.intervalMs). */
  t: number;
  /** Messages started in the interval (MAIL written; also messages given up as unsent). */
  sent: number;
  /**
   * Open model: arrivals dropped in the interval (no session could start them within
   * --max-delay, or beyond --max-queue). sent + dropped is what the load model scheduled there
   * (an arrival still queued at the interval's end counts where it starts). 0 in results saved
   * before it existed.
   */
  dropped: number;
  /** Messages whose final verdict came in the interval, by verdict. */
  accepted: number;
  rejected: number;
  failed: number;
  /** Connections attempted in the interval. */
  connectionsOpened: number;
  /** Sessions open at the end of the interval. */
  openSessions: number;
  /** Error occurrences in the interval by class. */
  errors: Record<ErrorClass, number>;
  /**
   * Median and 99th percentile of the transaction latency of messages accepted in it; null
   * when none was accepted in it.
   */
  p50Ms: number | null;
  p99Ms: number | null;
  /** The interval's transaction histogram, HDR compressed base64, µs (for re-grouping). */
  histogram: string;
  /**
   * The generator's load in the interval, over its threads (see GeneratorResult): the busiest
   * thread's busy fraction (0..1) and name, the highest event-loop delay p99 of any thread,
   * and the CPU seconds of all. Absent where no thread was sampled.
   */
  generator?: {
    busy: number;
    busiestThread: string;
    eventLoopDelayP99Ms: number;
    cpuSeconds: number;
  };
}

export interface ThresholdOutcome {
  /** The threshold as given, e.g. "p99{phase:envelope}<5ms". */
  expression: string;
  /** The measured value in the threshold's unit (ms, %, /s, or a plain number). */
  actual: number | null;
  /** That unit: "ms", "%", "/s", or "" (a plain number); absent in results saved before. */
  unit?: string;
  passed: boolean;
}

export interface Result {
  schema: typeof RESULT_SCHEMA;
  /** reuse: sessions stay open for many transactions; per-message: one connection a message. */
  mode: Mode;
  /** What was run: options, load, version, host, Node.js; absent in results saved before. */
  run?: RunRecord;
  /** The target as given ("127.0.0.1:2525", "unix:/path"), "embedded-sink" for a self-test. */
  target: string;
  /** Random id stamped into every message's X-Mailvolley-Run header. */
  runId: string;
  /** Wall-clock time of the first connect, ISO 8601. */
  startedAt: string;
  /** Seconds from the first connect attempt to the last reply (or failure) of the run. */
  elapsedSeconds: number;
  /** Sessions kept open at once (-s); a shard's own part of them, so merged shards add up. */
  sessions: number;
  messages: {
    /** Messages the run started (or could not start): accepted + rejected + failed, always. */
    attempted: number;
    /** The final reply to the message's data was 2xx. */
    accepted: number;
    /**
     * The server refused the message with a reply (4xx/5xx other than 421 to MAIL, to every
     * RCPT, to DATA or to the final dot); the session went on.
     */
    rejected: number;
    /**
     * No final verdict from the server: the connection failed, closed, timed out, sent a 421 or
     * broke the protocol while the message was in flight, or the message was never started.
     */
    failed: number;
    /**
     * Open model: arrivals that no session could start within --max-delay (or beyond
     * --max-queue waiting), like k6's dropped_iterations. 0 in the closed model.
     */
    dropped: number;
    /** Messages the load model scheduled: attempted + dropped. */
    scheduled: number;
  };
  /**
   * Where every message the run was asked for went: asked = started + unsent + dropped +
   * stopped (see Accounting). Absent in results saved before it existed.
   */
  accounting?: Accounting;
  recipients: {
    /** RCPT commands sent. */
    attempted: number;
    /** RCPT commands answered 2xx. */
    accepted: number;
    /** RCPT commands answered 4xx/5xx. */
    rejected: number;
  };
  connections: {
    /** TCP (or unix socket) connections attempted, successful or not. */
    opened: number;
    /** Connections that reached a 220 banner. */
    established: number;
    /** Connections refused before a 220: TCP failure, 421/554 or timeout at the banner. */
    refused: number;
    /**
     * Sessions the client ended with QUIT to reconnect, after a 4xx to MAIL naming a
     * per-session limit (enhanced code 4.5.3, or "too many messages") or after
     * --reconnect-after-deferrals 4xx replies to MAIL in a row; a new connection takes over
     * the remaining work. Absent in results written before it existed.
     */
    reconnects?: number;
    /** connections.opened / messages.attempted. */
    perMessage: number;
  };
  throughput: {
    /** messages.accepted / elapsedSeconds: the whole-run mean. */
    messagesPerSecond: number;
    /**
     * The steady-state rate, without ramp-up, ramp-down and idle time. Over the time series:
     * drop the first and the last interval (partial); take the median `accepted` of the
     * intervals that accepted at least one message (idle intervals do not count toward it);
     * then from each end drop intervals whose accepted count is below 90% of that median;
     * plateau = accepted in what remains / its seconds. Dips inside the plateau stay in it.
     * null when fewer than 3 intervals accepted anything or fewer than 3 remain.
     */
    plateau: {
      messagesPerSecond: number;
      /** Intervals the plateau spans, and its start and end (epoch ms). */
      intervals: number;
      fromMs: number;
      toMs: number;
    } | null;
  };
  /**
   * Latency without coordinated-omission correction: in the open model, transaction latency
   * counted from when a session wrote MAIL rather than from the message's intended send time.
   * Equal to `latency.transactionMs` in the closed model.
   */
  latencyUncorrected: {
    transactionMs: LatencySummary;
  };
  latency: {
    /**
     * For accepted messages: from the message's intended send time (open model: its arrival,
     * so waiting for a free session counts; closed model: writing MAIL) to the final reply.
     */
    transactionMs: LatencySummary;
    /** From the connect call to the socket's connect event. */
    connectMs: LatencySummary;
    /** From the socket's connect event to the banner's last line. */
    bannerMs: LatencySummary;
    /** From writing EHLO (or HELO) to its reply. */
    ehloMs: LatencySummary;
    /** From writing MAIL to the 354 reply to DATA (MAIL, every RCPT and DATA). */
    envelopeMs: LatencySummary;
    /** From writing the message content to the final reply to it, accepted messages only. */
    dataMs: LatencySummary;
    /** From writing QUIT to its reply. */
    quitMs: LatencySummary;
    /** From the connect call to the connection's close, sessions that reached a banner. */
    sessionMs: LatencySummary;
    /**
     * The TLS handshake: from the 220 to STARTTLS (or, with --tls-on-connect, from the TCP
     * connect) to the handshake's end.
     */
    tlsMs: LatencySummary;
    /** From writing AUTH to its 235 (for LOGIN, across the three round trips). */
    authMs: LatencySummary;
  };
  /** Errors grouped by reply, enhanced code, phase and normalised text, most frequent first. */
  errors: ResultErrorRow[];
  /** Error occurrences summed by class. */
  errorClasses: Record<ErrorClass, number>;
  /**
   * Where each error class that occurred first appeared, in that order (see FirstSeen): where
   * a gateway's 421s or 450s started, with how many sessions open. Absent in results saved
   * before it existed.
   */
  firstSeen?: FirstSeen[];
  /**
   * The knee: where success fell below 100%, the rate sent and accepted then, and the mean
   * throughput while it stayed at 100% (see Knee). null when no message settled; absent in
   * results saved before it existed.
   */
  knee?: Knee | null;
  /** The Apdex thresholds (satisfied ≤ T, tolerating ≤ 4T by the Apdex standard). */
  apdex: { satisfiedMs: number; toleratingMs: number };
  /** The statistics table: every message of the run in one row. */
  allClasses: ClassResult;
  /** One row per message class (a run without classes has the one class "default"). */
  classes: ClassResult[];
  /** Per-interval figures; see SeriesPointResult. */
  series: { intervalMs: number; points: SeriesPointResult[] };
  /** Thresholds (--threshold) and whether each held; absent when none were given. */
  thresholds?: ThresholdOutcome[];
  /**
   * The signal that stopped the run before its end (SIGINT: Ctrl-C; SIGTERM: timeout, systemd,
   * docker stop, Kubernetes): the messages in flight got --grace, and the counts add up over
   * what was sent. Absent when the run ended by itself.
   */
  stoppedBy?: "SIGINT" | "SIGTERM";
  /**
   * Message files loaded before the run, per class that uses them: `kind` (eml, eml-dir,
   * mbox, template), distinct `count`, `totalBytes` as sent, and `longLines` (lines over 998
   * octets, which servers may refuse). Absent when every message is generated.
   */
  sources?: {
    className: string;
    kind: string;
    count: number;
    totalBytes: number;
    longLines: number;
  }[];
  /**
   * TLS handshakes (--starttls, --tls-on-connect): `full` and `resumed` counts, the `tls`
   * phase latency of each kind, and the version and cipher seen (see TlsResult). Absent when
   * the run made no TLS handshake.
   */
  tls?: TlsResult;
  /**
   * Through the gateway (--receive): each message the gateway accepted, joined with what
   * arrived at the run's receiving sink (stats/delivery.ts defines every figure).
   */
  delivery?: DeliveryResult;
  /** The built-in sink's own count, in a self-test against the embedded sink. */
  sink?: {
    messagesAccepted: number;
    sessions: number;
    /** Connections the sink's emulated gateway limits refused at the banner. */
    connectionsRefused?: number;
    /**
     * Accepted messages per class as the sink counted them (from X-Mailvolley-Class), with
     * the end-to-end latency from each message's X-Mailvolley-Sent time to the sink's reply.
     */
    classes?: Record<string, { accepted: number; rejected: number; endToEndP99Ms: number }>;
  };
  /**
   * A run with --shard or --start-at: which shard it was, the hash of its load, its host, its
   * clock at the first connect (`clockStart`, the same instant as `startedAt`) and at the last
   * reply (`clockEnd`), and how late it started against --start-at (see ShardHeader). Absent
   * in a run without either option.
   */
  shard?: ShardHeader;
  /** A merged result: the header of each shard merged into it, by index; absent otherwise. */
  shards?: ShardHeader[];
  /**
   * The histograms behind `latency` (keyed transaction, connect, …), behind
   * `latencyUncorrected` (keyed transactionUncorrected) and behind each class (keyed
   * "class:NAME"), and of the two kinds of TLS handshake ("tls:full", "tls:resumed"), HDR
   * compressed base64, microseconds.
   */
  histograms: Record<string, string>;
  /**
   * The generator's own load and the verdict on who set the rate (see GeneratorResult).
   * Absent in results saved before it existed.
   */
  generator?: GeneratorResult;
}
