/**
 * The sink's options as the library and the CLI give them, and the one place that checks them and
 * fills in defaults. The session and server code only ever see a FilledSinkOptions.
 */

import { durationMs, windowRate } from "../stats/units.js";
import { UsageError } from "../usage/usage-error.js";
import { type FaultRule, parseFaultRule } from "./faults.js";
import { DEFAULT_BACKLOG } from "./kernel.js";

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

export interface SinkOptions {
  /** e.g. ["127.0.0.1:0"], "[::1]:0", "unix:/path", "tls://127.0.0.1:0". */
  listen: string[];
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
  /** Resume TLS sessions from tickets (TLS 1.2 and 1.3), default true; false: full handshakes. */
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
  faults?: FaultRule[] | string[];
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

export interface FilledSinkOptions {
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

/**
 * Parses `host:port`, `[v6]:port`, `unix:/path`, `tls://host:port`. Returns the spec or throws
 * UsageError naming `--option`.
 */
export function parseListen(text: string, option = "listen"): ListenSpec {
  const bad = (why: string) => new UsageError(`--${option}`, why, JSON.stringify(text));
  if (text.startsWith("unix:")) {
    const path = text.slice(5);
    if (path === "") throw bad("give a socket path, e.g. unix:/tmp/sink.sock");
    return { kind: "unix", host: "", port: 0, path };
  }
  let kind: ListenSpec["kind"] = "tcp";
  let rest = text;
  if (rest.startsWith("tls://")) {
    kind = "tls";
    rest = rest.slice(6);
  } else if (rest.startsWith("smtp://")) {
    rest = rest.slice(7);
  }
  let host: string;
  let portText: string;
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close === -1 || rest[close + 1] !== ":") throw bad("write IPv6 as [addr]:port");
    host = rest.slice(1, close);
    portText = rest.slice(close + 2);
  } else {
    const colon = rest.lastIndexOf(":");
    if (colon === -1 || rest.indexOf(":") !== colon) {
      throw bad("expected host:port, [v6addr]:port or unix:/path");
    }
    host = rest.slice(0, colon) || "127.0.0.1";
    portText = rest.slice(colon + 1);
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw bad("the port must be 0..65535");
  return { kind, host, port };
}

/** Parses `N/60s`, `N/1m`, `N` (per 60 s). */
export function parseRate(option: string, value: Rate | string): Rate {
  if (typeof value !== "string") return checkRate(value, option);
  const rate = windowRate(value);
  if (!rate) throw new UsageError(`--${option}`, "write a rate as N/60s", value);
  return checkRate(rate, option);
}

function checkRate(rate: Rate, option: string): Rate {
  if (!(rate.count > 0) || !(rate.windowMs > 0)) {
    throw new UsageError(`--${option}`, "the count and the window must be above 0");
  }
  return Object.freeze({ ...rate });
}

/** Parses `300ms`, `5s`, `2m`, `1h` or plain seconds into milliseconds. */
export function parseDuration(option: string, value: string | number): number {
  if (typeof value === "number") return checkCount(value * 1000, option);
  const ms = durationMs(value);
  if (ms === null) throw new UsageError(`--${option}`, "write a duration like 30s", value);
  return ms;
}

function checkCount(value: number | undefined, option: string, fallback = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || !Number.isInteger(value)) {
    throw new UsageError(`--${option}`, "give a whole number, 0 or more", String(value));
  }
  return value;
}

/** Checks `options` and fills in every default. Throws UsageError on bad input. */
export function fillSinkOptions(options: SinkOptions): FilledSinkOptions {
  if (!options.listen || options.listen.length === 0) {
    throw new UsageError("--listen", "give at least one address, e.g. 127.0.0.1:2525");
  }
  const count = (name: string, value: number | undefined, fallback = 0) =>
    checkCount(value, name, fallback);
  return Object.freeze({
    listen: Object.freeze(options.listen.map((text) => parseListen(text))),
    backlog: parseBacklog(options.backlog),
    hostname: options.hostname ?? "mailvolley-sink",
    pipelining: options.pipelining ?? true,
    chunking: options.chunking ?? true,
    eightBitMime: options.eightBitMime ?? true,
    smtpUtf8: options.smtpUtf8 ?? true,
    enhancedStatusCodes: options.enhancedStatusCodes ?? true,
    dsn: options.dsn ?? true,
    size: count("size", options.size),
    advertiseSize: options.advertiseSize ?? true,
    starttls: options.starttls ?? true,
    tlsResume: options.tlsResume ?? true,
    tlsCert: options.tlsCert,
    tlsKey: options.tlsKey,
    auth: options.auth === undefined ? undefined : parseAuth(options.auth),
    lmtp: options.lmtp ?? false,
    maxCommandLine: count("max-command-line", options.maxCommandLine, 512),
    maxTextLine: count("max-text-line", options.maxTextLine),
    bareLf: parseBareLf(options.bareLf),
    idleTimeoutMs: aboveZero(
      "idle-timeout",
      parseDuration("idle-timeout", options.idleTimeout ?? 300),
    ),
    faults: Object.freeze((options.faults ?? []).map(toFaultRule)),
    seed: count("seed", options.seed, Math.floor(Math.random() * 2 ** 31)),
    maxConnections: count("max-connections", options.maxConnections),
    maxConnectionsPerClient: count("max-connections-per-client", options.maxConnectionsPerClient),
    maxConnectionRate: optionalRate(options.maxConnectionRate, "max-connection-rate"),
    maxMessageRate: optionalRate(options.maxMessageRate, "max-message-rate"),
    maxMessagesPerSession: count("max-messages-per-session", options.maxMessagesPerSession),
    // 0 would refuse every recipient: no message could ever be taken.
    maxRecipients:
      options.maxRecipients === undefined
        ? 0
        : aboveZero("max-recipients", count("max-recipients", options.maxRecipients)),
    classes: options.classes ?? true,
    classBySubject: subjectRegex(options.classBySubject),
    dump: options.dump,
    logEnvelopes: options.logEnvelopes,
    xverp: options.xverp ?? true,
    exitAfterMessages: count("exit-after-messages", options.exitAfterMessages),
    exitAfterSessions: count("exit-after-sessions", options.exitAfterSessions),
    idleExitMs: count("idle-exit", options.idleExitMs),
  });
}

/** A limit that 0 would make useless (an idle timeout of nothing, no recipient allowed). */
function aboveZero(option: string, value: number): number {
  if (value > 0) return value;
  throw new UsageError(`--${option}`, "give a value above 0", "0");
}

function parseBacklog(value: number | undefined): number {
  const backlog = checkCount(value, "backlog", DEFAULT_BACKLOG);
  if (backlog < 1) throw new UsageError("--backlog", "give 1 or more, e.g. 4096", "0");
  return backlog;
}

function parseAuth(text: string): { user: string; pass: string } {
  const colon = text.indexOf(":");
  if (colon <= 0) throw new UsageError("--auth", "write it as user:password");
  return Object.freeze({ user: text.slice(0, colon), pass: text.slice(colon + 1) });
}

function parseBareLf(value: string | undefined): BareLfPolicy {
  if (value === undefined) return "accept";
  if (value === "accept" || value === "reject" || value === "normalize") return value;
  throw new UsageError("--bare-lf", "use accept, reject or normalize", value);
}

function optionalRate(value: Rate | string | undefined, option: string): Rate | undefined {
  return value === undefined ? undefined : parseRate(option, value);
}

function subjectRegex(source: string | undefined): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(source);
  } catch (error) {
    throw new UsageError(
      "--class-by-subject",
      `not a regular expression (${(error as Error).message})`,
    );
  }
}

function toFaultRule(rule: FaultRule | string): FaultRule {
  if (typeof rule !== "string") return Object.freeze({ ...rule });
  try {
    return Object.freeze(parseFaultRule(rule));
  } catch (error) {
    throw new UsageError("--fault", (error as Error).message, rule);
  }
}
