/**
 * The checked, frozen configuration of `mailvolley run`. Core modules see only this, never argv.
 */

import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import type { MessageOptions } from "../messages/spec.js";
import type { Mode } from "../result/result.js";
import { DEFAULT_TIMEOUTS, isPhase, type TimedPhase, type Timeouts } from "../smtp/phases.js";
import { UsageError } from "../usage/usage-error.js";
import { configHash } from "./config-hash.js";
import { type LoadModel, parseLoadModel } from "./load-model.js";
import type { RawOf } from "./option-rows.js";
import { DEFAULTS, type MESSAGE_OPTIONS, type RUN_OPTIONS } from "./option-table.js";
import {
  parseAddress,
  parseChoice,
  parseCount,
  parseDuration,
  parseLine,
  parseTarget,
  type Target,
} from "./parse.js";
import type { ClassSpec, SourceSpec } from "./plan.js";
import { parseSecurity, type RawSecurityOptions, type SecuritySettings } from "./security.js";
import { parseSharding, type Shard } from "./shard.js";
import { parseSizes } from "./sizes.js";

export { DEFAULT_TIMEOUTS, PHASE_NAMES, type Timeouts } from "../smtp/phases.js";
export type { RawSecurityOptions, SecuritySettings } from "./security.js";
export type { Shard } from "./shard.js";

/**
 * One run's load, checked and frozen: TLS and AUTH (config/security.ts) and everything else a
 * run needs. `run` executes one, `compare` one per mode; every worker thread gets a copy and
 * drives its ThreadShare of it. The command-level options around it are RunCommandConfig.
 */
export interface RunConfig extends SecuritySettings, MessageOptions {
  /** null: start the built-in sink in-process and run a self-test against it. */
  readonly target: Target | null;
  readonly mode: Mode;
  readonly sessions: number;
  /** Messages to send; Infinity when only a duration bounds the run. */
  readonly messages: number;
  readonly helo: string;
  /** Pause after each message in a session, ms (0: none). */
  readonly waitMs: number;
  /** When set, the pause is uniform random in [0, waitMs]. */
  readonly randomWait: boolean;
  /** Closed or open model, duration, ramps, per-session caps. */
  readonly load: LoadModel;
  /** Local addresses the connections come from, in turn per session; empty: the system's choice. */
  readonly sourceAddresses: readonly string[];
  /** Speak LMTP (RFC 2033): LHLO, and one reply per accepted recipient after the data. */
  readonly lmtp: boolean;
  /** Send with BDAT (RFC 3030) when CHUNKING and PIPELINING are offered: whole transactions pipelined. */
  readonly chunking: boolean;
  /** With BDAT: transactions in flight per session. */
  readonly window: number;
  /** Message classes with their shares; one class "default" when no plan gives any. */
  readonly classes: readonly ClassSpec[];
  // The message options (sizes, envelopes, DSN, XVERP, trace ids, the run id) are MessageOptions'
  // fields (messages/spec.ts), described there once.
  readonly pipelining: "auto" | "off";
  readonly timeouts: Timeouts;
  /**
   * Reuse mode: a session slot whose connection fails this many times in a row gives up; the
   * work it would have done goes to the other slots.
   */
  readonly reconnectAttempts: number;
  /** First backoff after a failed session, doubled per consecutive failure up to 16×. */
  readonly reconnectDelayMs: number;
  /**
   * Reuse mode: 4xx replies to MAIL in a row after which a session QUITs so that a new
   * connection takes over its work (0: only a 4xx naming a per-session limit does that).
   */
  readonly reconnectAfterDeferrals: number;
  /** Resolution of the result's time series, ms. */
  readonly intervalMs: number;
  /** Worker threads the sessions are spread over; 1 runs them on the main thread. */
  readonly workers: number;
  readonly verbose: boolean;
  readonly quiet: boolean;
  /** Path for the JSON result, "-" for stdout, null for none. */
  readonly json: string | null;
  /** --shard: this run's part of one run spread over machines (config/shard.ts); null: all of it. */
  readonly shard: Shard | null;
  /** --start-at: the wall-clock time (epoch ms) the load waits for before its first connect. */
  readonly startAt: number | null;
  /**
   * sha256 over the fields that define the load (config/config-hash.ts): equal on every shard of
   * one run, recorded in each shard's result for `merge` to check.
   */
  readonly configHash: string;
}

/**
 * Options as the CLI or a plan file hands them over (camelCase keys of config/option-table.ts),
 * unchecked; the `--timeout-PHASE` options come as one record.
 */
export type RawRunOptions = RawOf<typeof RUN_OPTIONS> &
  RawOf<typeof MESSAGE_OPTIONS> &
  RawSecurityOptions & {
    timeout?: Partial<Record<TimedPhase, unknown>>;
    /** `--timeout`: every phase's timeout, under the `--timeout-PHASE` values. */
    everyTimeout?: unknown;
    /** From a plan file: classes already checked. */
    classes?: readonly ClassSpec[];
  };

/** RFC 5321 §4.5.3.1.8 requires servers to take at least 100 recipients; allow up to 1000. */
const MAX_RECIPIENTS = 1000;

export function buildRunConfig(raw: RawRunOptions): RunConfig {
  const target =
    raw.target === undefined || raw.target === null || raw.target === ""
      ? null
      : parseTarget("target", String(raw.target));
  if (target?.kind === "unix" && raw.source !== undefined) {
    throw new UsageError(
      "--source",
      "a unix socket has no local IP address to connect from; drop --source",
    );
  }
  const sessions = parseCount("--sessions", raw.sessions ?? DEFAULTS.sessions, 1, 100_000);
  const load = parseLoadModel(raw, sessions);
  // A duration alone bounds the run by time; with -m too, whichever comes first.
  const messages =
    raw.messages === undefined && load.durationMs > 0
      ? Number.POSITIVE_INFINITY
      : parseCount("--messages", raw.messages ?? DEFAULTS.messages, 1);
  const classes = buildClasses(raw);
  const sizes = parseSizes("--size", String(raw.size ?? DEFAULTS.size));
  return withConfigHash({
    target,
    classes,
    ...parseSecurity(raw),
    ...parseProtocol(raw),
    ...parseEnvelopeExtras(raw),
    mode: parseChoice("--mode", raw.mode ?? DEFAULTS.mode, ["reuse", "per-message"] as const),
    sessions,
    messages,
    load,
    sizes,
    recipients: parseCount(
      "--recipients",
      raw.recipients ?? DEFAULTS.recipients,
      1,
      MAX_RECIPIENTS,
    ),
    from: parseAddress("--from", raw.from ?? DEFAULTS.from, true),
    to: parseAddress("--to", raw.to ?? DEFAULTS.to),
    subject: parseLine("--subject", raw.subject ?? DEFAULTS.subject),
    helo: parseHelo(raw.helo ?? DEFAULTS.helo),
    uniqueRecipients: Boolean(raw.uniqueRecipients),
    ...parseWait(raw),
    timeouts: parseTimeouts(raw.timeout, raw.everyTimeout),
    ...parseReconnect(raw),
    intervalMs: parseInterval(raw.interval),
    workers: parseCount("--workers", raw.workers ?? defaultWorkers(), 1, 256),
    verbose: Boolean(raw.verbose),
    quiet: Boolean(raw.quiet),
    json: raw.json === undefined || raw.json === null ? null : String(raw.json),
    runId: newRunId(),
    ...parseSharding(raw, sessions, messages),
  });
}

/** The config, frozen, with the hash of its load: call again after changing a field. */
export function withConfigHash(config: Omit<RunConfig, "configHash">): RunConfig {
  return Object.freeze({
    ...config,
    configHash: configHash(config),
  });
}

/** -w or -R: a fixed or a random pause after each message. */
function parseWait(raw: RawRunOptions): Pick<RunConfig, "waitMs" | "randomWait"> {
  if (raw.wait !== undefined && raw.randomWait !== undefined) {
    throw new UsageError("--random-wait", "give either --wait or --random-wait, not both");
  }
  if (raw.wait !== undefined)
    return { waitMs: parseDuration("--wait", raw.wait), randomWait: false };
  if (raw.randomWait === undefined) return { waitMs: 0, randomWait: false };
  return { waitMs: parseDuration("--random-wait", raw.randomWait), randomWait: true };
}

/** How the sessions speak: LMTP or SMTP, BDAT or DATA, pipelined or not, from which addresses. */
function parseProtocol(
  raw: RawRunOptions,
): Pick<RunConfig, "sourceAddresses" | "lmtp" | "chunking" | "window" | "pipelining"> {
  if (raw.lmtp && raw.chunking) {
    // With BDAT the replies to a pipelined transaction's data would depend on RCPT replies that
    // have not arrived when it is written; LMTP here speaks DATA.
    throw new UsageError("--chunking", "not with --lmtp; LMTP sessions use DATA");
  }
  const pipelining = raw.pipelining ?? DEFAULTS.pipelining;
  return {
    sourceAddresses: parseSources(raw.source),
    lmtp: Boolean(raw.lmtp),
    chunking: Boolean(raw.chunking),
    // The window's slot numbers travel in a byte of the pending-reply ring.
    window: parseCount("--window", raw.window ?? DEFAULTS.window, 1, 200),
    pipelining: parseChoice("--pipelining", pipelining, ["auto", "off"] as const),
  };
}

/** A run's id, in its messages' trace header and its result: 12 hex digits. */
export function newRunId(): string {
  return randomBytes(6).toString("hex");
}

/** `--timeout-PHASE` values over `--timeout`, over the defaults of smtp/phases.ts. */
function parseTimeouts(raw: RawRunOptions["timeout"], every: unknown): Timeouts {
  const timeouts: Record<TimedPhase, number> = { ...DEFAULT_TIMEOUTS };
  if (every !== undefined) {
    const ms = parseDuration("--timeout", every);
    if (ms <= 0) throw new UsageError("--timeout", "must be longer than 0");
    for (const phase of Object.keys(timeouts) as TimedPhase[]) timeouts[phase] = ms;
  }
  for (const [phase, value] of Object.entries(raw ?? {})) {
    if (value === undefined) continue;
    if (!isPhase(phase)) throw new UsageError(`--timeout-${phase}`, "is not a phase");
    const ms = parseDuration(`--timeout-${phase}`, value);
    if (ms <= 0) throw new UsageError(`--timeout-${phase}`, "must be longer than 0");
    timeouts[phase] = ms;
  }
  return Object.freeze(timeouts);
}

export function parseHelo(raw: unknown): string {
  const text = String(raw);
  if (!/^[^\s]+$/.test(text)) {
    throw new UsageError("--helo", `"${text}" is not a host name; give e.g. client.example.com`);
  }
  return text;
}

/** Address lists, XVERP and DSN parameters. */
function parseEnvelopeExtras(
  raw: RawRunOptions,
): Pick<RunConfig, "fromFile" | "toFile" | "xverp" | "dsnRet" | "dsnNotify"> {
  return {
    fromFile: raw.fromFile === undefined ? null : String(raw.fromFile),
    toFile: raw.toFile === undefined ? null : String(raw.toFile),
    xverp: Boolean(raw.xverp),
    dsnRet:
      raw.dsnRet === undefined
        ? null
        : parseChoice("--dsn-ret", String(raw.dsnRet).toUpperCase(), ["FULL", "HDRS"] as const),
    dsnNotify: raw.dsnNotify === undefined ? null : parseNotify(String(raw.dsnNotify)),
  };
}

/** RFC 3461 §4.1: NEVER alone, or a comma list of SUCCESS, FAILURE, DELAY. */
function parseNotify(text: string): string {
  const words = text.toUpperCase().split(",");
  const ok =
    (words.length === 1 && words[0] === "NEVER") ||
    words.every((w) => w === "SUCCESS" || w === "FAILURE" || w === "DELAY");
  if (!ok) {
    throw new UsageError(
      "--dsn-notify",
      `"${text}" is not NEVER or a list of SUCCESS,FAILURE,DELAY`,
    );
  }
  return words.join(",");
}

/** The message source the command line names (-F, --eml, --mbox, --template), if any. */
function cliSource(raw: RawRunOptions): SourceSpec | undefined {
  const ordered = parseSourceOrder(raw); // a typo fails even without a source to order
  const given = (
    [
      ["file", "eml", "-F"],
      ["eml", "eml-dir", "--eml"],
      ["mbox", "mbox", "--mbox"],
      ["template", "template", "--template"],
    ] as const
  ).filter(([key]) => raw[key] !== undefined);
  if (given.length === 0) return undefined;
  if (given.length > 1) {
    throw new UsageError(
      given[1][2],
      `give one message source, not ${given.map((g) => g[2]).join(" and ")}`,
    );
  }
  const [key, kind] = given[0];
  return { kind, path: String(raw[key]), ...ordered };
}

/** --source-order and --seed, checked whether or not a message source uses them. */
function parseSourceOrder(raw: RawRunOptions): Pick<SourceSpec, "order" | "seed"> {
  const order = parseChoice("--source-order", raw.sourceOrder ?? DEFAULTS.sourceOrder, [
    "sequential",
    "random",
  ] as const);
  const seed = raw.seed === undefined ? undefined : parseCount("--seed", raw.seed, 0, 2 ** 31 - 1);
  return { order, seed };
}

function buildClasses(raw: RawRunOptions): readonly ClassSpec[] {
  const source = cliSource(raw);
  if (raw.classes && raw.classes.length > 0) {
    // A source on the command line serves the classes that name none of their own.
    return Object.freeze(raw.classes.map((c) => (c.source || !source ? c : { ...c, source })));
  }
  return Object.freeze([{ name: "default", share: 1, headers: [], source }]);
}

/** The time series' interval: at least 100 ms (the run loop samples every 100 ms). */
function parseInterval(raw: unknown): number {
  const ms = parseDuration("--interval", raw ?? DEFAULTS.interval);
  if (ms < 100) throw new UsageError("--interval", "must be at least 100ms");
  return ms;
}

/**
 * One worker per core but one: the main thread merges progress and results and, in a
 * self-test, runs the sink, and on loopback the kernel's TCP work needs a core too. Measured on
 * 2 cores (docs/performance.md): a second worker cost 14 µs a message and 75 MiB with 10,000
 * sessions for no throughput.
 */
export function defaultWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * `--source 127.0.0.2,127.0.0.3` or `127.0.0.2-127.0.0.9` (IPv4 ranges in the last octet), or
 * repeated: the local addresses connections come from.
 */
function parseSources(raw: unknown): string[] {
  if (raw === undefined) return [];
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((r) => String(r).split(","));
  const out: string[] = [];
  for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
    const range = /^(\d+\.\d+\.\d+\.)(\d+)-(?:\d+\.\d+\.\d+\.)?(\d+)$/.exec(part);
    if (range) {
      const [first, last] = [Number(range[2]), Number(range[3])];
      if (first > last || last > 255) {
        throw new UsageError("--source", `"${part}" is not a range; give e.g. 127.0.0.2-127.0.0.9`);
      }
      for (let n = first; n <= last; n++) out.push(`${range[1]}${n}`);
      continue;
    }
    if (isIP(part) === 0) {
      throw new UsageError(
        "--source",
        `"${part}" is not an IP address; give e.g. 192.0.2.10,192.0.2.11`,
      );
    }
    out.push(part);
  }
  return out;
}

/** How reuse-mode sessions reconnect: after failures (backoff) and after deferred MAILs. */
function parseReconnect(raw: RawRunOptions) {
  return {
    reconnectAttempts: parseCount(
      "--reconnect-attempts",
      raw.reconnectAttempts ?? DEFAULTS.reconnectAttempts,
      1,
      1000,
    ),
    reconnectDelayMs: parseDuration(
      "--reconnect-delay",
      raw.reconnectDelay ?? DEFAULTS.reconnectDelay,
    ),
    reconnectAfterDeferrals: parseCount(
      "--reconnect-after-deferrals",
      raw.reconnectAfterDeferrals ?? DEFAULTS.reconnectAfterDeferrals,
      0,
      1_000_000,
    ),
  };
}
