/** The built-in sink's options as the library and the command line write them. */
import type { FaultRule } from "../sink/faults.js";
import type { BareLfPolicy, Rate } from "../sink/filled-options.js";

/**
 * The sink's options in the words the library and the command line use (text for addresses,
 * rates, faults and durations), only those given: fillSinkOptions checks and fills them.
 */
export interface SinkOptions {
  /** e.g. ["127.0.0.1:0"], "[::1]:0", "unix:/path", "tls://127.0.0.1:0". */
  listen: readonly string[];
  /**
   * Listen backlog: connections the kernel queues before the sink accepts them, default 4096
   * (Node's is 511); the kernel caps it at net.core.somaxconn.
   */
  backlog?: number;
  /** Banner and EHLO name, default "mailvolley-sink". */
  hostname?: string;
  /** Advertise PIPELINING (RFC 2920), default true. */
  pipelining?: boolean;
  /** Advertise and accept CHUNKING/BDAT (RFC 3030), default true. */
  chunking?: boolean;
  /** Advertise 8BITMIME, default true. */
  eightBitMime?: boolean;
  /** Advertise SMTPUTF8, default true. */
  smtpUtf8?: boolean;
  /** Advertise ENHANCEDSTATUSCODES and put RFC 3463 codes in replies, default true. */
  enhancedStatusCodes?: boolean;
  /** Advertise DSN (parameters are accepted either way), default true. */
  dsn?: boolean;
  /** SIZE limit in octets, advertised and enforced with 552; 0 = advertise SIZE without a limit. */
  size?: number;
  /** Advertise SIZE, default true. */
  advertiseSize?: boolean;
  /** Offer STARTTLS (RFC 3207), default true. */
  starttls?: boolean;
  /** Resume TLS sessions from tickets (TLS 1.2 and 1.3) and session IDs (TLS 1.2), default true. */
  tlsResume?: boolean;
  /** PEM certificate and key; a self-signed pair is made at start when absent. */
  tlsCert?: string;
  tlsKey?: string;
  /** "user:pass": offer AUTH PLAIN and LOGIN and require it before MAIL. */
  auth?: string;
  /** Speak LMTP (RFC 2033): LHLO, one reply per accepted recipient after the data. */
  lmtp?: boolean;
  /** Command line limit in octets including CRLF (RFC 5321 §4.5.3.1.4: 512). */
  maxCommandLine?: number;
  /** Text line limit in message data including CRLF, 0 = none (RFC 5321 §4.5.3.1.6: 1000). */
  maxTextLine?: number;
  bareLf?: BareLfPolicy;
  /** Seconds without input before 421 4.4.2 and close, default 300 (Postfix smtpd_timeout). */
  idleTimeout?: number;
  /** Fault rules, as `--fault` writes them (config/fault-rules.ts) or already parsed. */
  faults?: readonly (FaultRule | string)[];
  /** Seed for the fault PRNG: the same seed gives the same faults for the same traffic. */
  seed?: number;
  /** Concurrent sessions in total; more get 421 4.7.0 at the banner. */
  maxConnections?: number;
  /** Concurrent sessions per client address (anvil `smtpd_client_connection_count_limit`). */
  maxConnectionsPerClient?: number;
  /** New connections per client address (anvil `smtpd_client_connection_rate_limit`). */
  maxConnectionRate?: Rate | string;
  /** MAIL commands per client address (anvil `smtpd_client_message_rate_limit`), 450 4.7.1. */
  maxMessageRate?: Rate | string;
  /** Messages per session; further MAIL gets 421 4.7.0 and the session closes. */
  maxMessagesPerSession?: number;
  /** Recipients per transaction; more get 452 4.5.3 (RFC 5321 §4.5.3.1.10). */
  maxRecipients?: number;
  /** Count messages per class and their end-to-end latency, default true. */
  classes?: boolean;
  /** Class from the Subject: the first capture group of this regex (or the whole match). */
  classBySubject?: string;
  /** Write each accepted message to this directory as an .eml file. */
  dump?: string;
  /** Append one JSON line per finished transaction (time, MAIL FROM, RCPTs) to this file. */
  logEnvelopes?: string;
  /** Advertise XVERP (Postfix); the sink accepts any MAIL parameter either way. Default true. */
  xverp?: boolean;
  /** Resolve `finished` after this many accepted messages / ended sessions / idle ms. */
  exitAfterMessages?: number;
  exitAfterSessions?: number;
  idleExitMs?: number;
}
