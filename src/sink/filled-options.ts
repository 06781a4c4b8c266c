/**
 * The sink's options, checked and with every default in place: what startSink takes and the
 * session and server code read. config/sink-config.ts makes them (fillSinkOptions, from the
 * library's and the command line's words); nothing in sink/ parses an option again.
 */

import type { FaultRule } from "./faults.js";

/** A listener address: TCP (plain or implicit TLS) or a unix socket. */
export interface ListenSpec {
  kind: "tcp" | "tls" | "unix";
  host: string;
  port: number;
  path?: string;
}

/** A rate: `count` events per `windowMs` (Postfix anvil counts per 60 s time unit). */
export interface Rate {
  count: number;
  windowMs: number;
}

/**
 * What to do with a bare LF inside message data (RFC 5321 §2.3.8 forbids it).
 * "accept": keep it as data; only CRLF.CRLF ends the data, so no smuggled end-of-data is acted on.
 * "reject": answer 550 5.5.2 at the end of data, like Postfix 3.9 `smtpd_forbid_bare_newline`.
 * "normalize": a bare LF ends a line, as Postfix smtpd has always read input (and 3.9's
 * `smtpd_forbid_bare_newline = normalize`): LF "." LF ends the data too.
 */
export type BareLfPolicy = "accept" | "reject" | "normalize";

export interface FilledSinkOptions {
  /** Where it listens: at least one address. */
  readonly listen: readonly ListenSpec[];
  readonly backlog: number;
  readonly hostname: string;
  readonly pipelining: boolean;
  readonly chunking: boolean;
  readonly eightBitMime: boolean;
  readonly smtpUtf8: boolean;
  readonly enhancedStatusCodes: boolean;
  readonly dsn: boolean;
  readonly size: number;
  readonly advertiseSize: boolean;
  readonly starttls: boolean;
  readonly tlsResume: boolean;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly auth?: { readonly user: string; readonly pass: string };
  readonly lmtp: boolean;
  readonly maxCommandLine: number;
  readonly maxTextLine: number;
  readonly bareLf: BareLfPolicy;
  readonly idleTimeoutMs: number;
  readonly faults: readonly FaultRule[];
  readonly seed: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerClient: number;
  readonly maxConnectionRate?: Rate;
  readonly maxMessageRate?: Rate;
  readonly maxMessagesPerSession: number;
  readonly maxRecipients: number;
  readonly classes: boolean;
  readonly classBySubject?: RegExp;
  readonly dump?: string;
  readonly logEnvelopes?: string;
  readonly xverp: boolean;
  readonly exitAfterMessages: number;
  readonly exitAfterSessions: number;
  readonly idleExitMs: number;
}
