/**
 * The Result of a run: the one definition of every figure mailvolley prints. The terminal and
 * JSON reports read these fields and nothing else; the README's "Result fields" section repeats
 * these definitions word for word in spirit.
 */

export const RESULT_SCHEMA = "mailvolley/result@1";

/** The SMTP phases a reply or a failure is attributed to. */
export type Phase =
  | "connect"
  | "banner"
  | "ehlo"
  | "helo"
  | "mail"
  | "rcpt"
  | "data"
  | "dot"
  | "rset"
  | "quit";

export type Mode = "reuse" | "per-message";

export interface LatencySummary {
  /** Number of samples. */
  count: number;
  /** Milliseconds, microsecond resolution. */
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface ErrorRow {
  /**
   * The reply code as text ("421", "550"), or for failures without a reply: "timeout",
   * "closed" (peer closed the connection), "refused" (TCP connection refused), "reset",
   * "protocol" (the peer sent something that is not SMTP), "socket" (other socket error),
   * "unsent" (the run ended with the message never started because no session could be opened).
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

export interface Result {
  schema: typeof RESULT_SCHEMA;
  /** reuse: sessions stay open for many transactions; per-message: one connection a message. */
  mode: Mode;
  /** The target as given ("127.0.0.1:2525", "unix:/path"), "embedded-sink" for a self-test. */
  target: string;
  /** Random id stamped into every message's X-Mailvolley-Run header. */
  runId: string;
  /** Wall-clock time of the first connect, ISO 8601. */
  startedAt: string;
  /** Seconds from the first connect attempt to the last reply (or failure) of the run. */
  elapsedSeconds: number;
  sessions: number;
  messages: {
    /** Messages the run set out to deliver: accepted + rejected + failed, always. */
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
  };
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
    /** connections.opened / messages.attempted. */
    perMessage: number;
  };
  throughput: {
    /** messages.accepted / elapsedSeconds. */
    messagesPerSecond: number;
  };
  latency: {
    /** From writing MAIL to the final reply to the data, for accepted messages. */
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
  };
  /** Errors grouped by reply, enhanced code, phase and normalised text, most frequent first. */
  errors: ErrorRow[];
  /** The built-in sink's own count, in a self-test against the embedded sink. */
  sink?: {
    messagesAccepted: number;
    sessions: number;
  };
  /** The histograms behind `latency`, hdr-histogram compressed base64, microseconds. */
  histograms: Record<string, string>;
}
