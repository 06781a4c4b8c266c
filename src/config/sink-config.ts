/**
 * The built-in sink's options, checked once and filled in here: from the values a command line
 * or plan gave, by the rows of config/sink-option-table.ts (`mailvolley sink` reads `--NAME`, a
 * self-test `--sink-NAME`), or from the library's SinkOptions. What comes out is frozen and
 * fully parsed (addresses, rates, faults, the subject regex); sink/ takes only that.
 */

import type { FaultRule } from "../sink/faults.js";
import type { BareLfPolicy, FilledSinkOptions, ListenSpec, Rate } from "../sink/filled-options.js";
import { UsageError } from "../usage/usage-error.js";
import { parseFaultRule } from "./fault-rules.js";
import { camel } from "./option-rows.js";
import { parseDuration } from "./parse.js";
import {
  embeddedSinkOptions,
  SINK_OPTIONS,
  type SinkOptionSpec,
  type SinkOptionTable,
} from "./sink-option-table.js";
import type { SinkOptions } from "./sink-options.js";
import { durationMs, windowRate } from "./units.js";

export type { SinkOptions } from "./sink-options.js";

/**
 * Sink options given and already parsed, the rest left to the defaults (withSinkDefaults): a
 * self-test's --sink-NAME values, which the run completes with what it needs of its sink.
 */
export type SinkSettings = Readonly<Partial<FilledSinkOptions>>;

/** Checks `options` and fills in every default. Throws UsageError on bad input. */
export function fillSinkOptions(options: SinkOptions): FilledSinkOptions {
  return withSinkDefaults(parseSinkSettings(options));
}

/**
 * The sink's options from `values` (camelCase keys, as yargs and config hand them over), only
 * those given, parsed: `prefix` "" for `mailvolley sink`, "sink-" for the sink a self-test
 * starts. Throws UsageError naming the option as written.
 */
export function sinkSettingsOf(
  values: Readonly<Record<string, unknown>>,
  prefix: "" | "sink-",
  table: SinkOptionTable = SINK_OPTIONS,
): SinkSettings {
  return parseSinkSettings(sinkValuesOf(values, prefix, table), prefix);
}

/**
 * The given values of a table's rows, as the table's kinds make them (numbers, flags, lists,
 * durations), by their SinkOptions names; `mailvolley sink`'s own rows (--json …) use it too.
 */
export function sinkValuesOf(
  values: Readonly<Record<string, unknown>>,
  prefix: "" | "sink-",
  table: SinkOptionTable = SINK_OPTIONS,
): Readonly<Record<string, unknown>> {
  const rows: SinkOptionTable = prefix === "" ? table : embeddedSinkOptions(table);
  const out: Record<string, unknown> = {};
  for (const [option, spec] of Object.entries(rows)) {
    const raw = values[camel(option)];
    if (raw === undefined) continue;
    const flag = option.slice(prefix.length);
    out[spec.key ?? camel(flag)] = sinkValue(`--${option}`, spec, raw);
  }
  return Object.freeze(out);
}

function sinkValue(option: string, spec: SinkOptionSpec, raw: unknown): unknown {
  switch (spec.value) {
    case "count":
      return wholeNumber(option, raw);
    case "flag":
      return Boolean(raw);
    case "list":
      return [raw].flat().map(String);
    case "seconds":
      return parseDuration(option, raw) / 1000;
    case "ms":
      return parseDuration(option, raw);
    default:
      return String(raw);
  }
}

/** The sink's counts: 0 or more, 0 often meaning "no limit" (as in Postfix's settings). */
function wholeNumber(option: string, raw: unknown): number {
  const text = String(raw);
  if (!/^\d+$/.test(text))
    throw new UsageError(`${option} ${text}`, "give a whole number, 0 or more");
  return Number(text);
}

/** Each option's flag by its SinkOptions name, to name it in an error as the user wrote it. */
const FLAG_OF: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SINK_OPTIONS).map(([flag, spec]) => [
    (spec as SinkOptionSpec).key ?? camel(flag),
    flag,
  ]),
);

type Parse = (value: unknown, option: string) => unknown;
const text: Parse = (v) => String(v);
const flag: Parse = (v) => Boolean(v);
const count: Parse = (v, option) => checkCount(v as number, option);

/**
 * How each SinkOptions field becomes its FilledSinkOptions field: the parser, and the filled
 * name where it differs.
 */
const PARSERS: Readonly<Record<keyof SinkOptions, { parse: Parse; to?: keyof FilledSinkOptions }>> =
  {
    listen: {
      parse: (v, option) =>
        Object.freeze((v as readonly string[]).map((t) => parseListen(t, option))),
    },
    backlog: { parse: (v, option) => atLeastOne(option, checkCount(v as number, option)) },
    hostname: { parse: text },
    pipelining: { parse: flag },
    chunking: { parse: flag },
    eightBitMime: { parse: flag },
    smtpUtf8: { parse: flag },
    enhancedStatusCodes: { parse: flag },
    dsn: { parse: flag },
    size: { parse: count },
    advertiseSize: { parse: flag },
    starttls: { parse: flag },
    tlsResume: { parse: flag },
    tlsCert: { parse: text },
    tlsKey: { parse: text },
    auth: { parse: (v, option) => parseAuth(option, String(v)) },
    lmtp: { parse: flag },
    maxCommandLine: { parse: count },
    maxTextLine: { parse: count },
    bareLf: { parse: (v, option) => parseBareLf(option, String(v)) },
    idleTimeout: {
      to: "idleTimeoutMs",
      parse: (v, option) => aboveZero(option, parseSinkDuration(option, v as string | number)),
    },
    faults: {
      parse: (v, option) =>
        Object.freeze((v as readonly (FaultRule | string)[]).map((r) => toFaultRule(option, r))),
    },
    seed: { parse: count },
    maxConnections: { parse: count },
    maxConnectionsPerClient: { parse: count },
    maxConnectionRate: { parse: (v, option) => parseSinkRate(option, v as Rate | string) },
    maxMessageRate: { parse: (v, option) => parseSinkRate(option, v as Rate | string) },
    maxMessagesPerSession: { parse: count },
    // 0 would refuse every recipient: no message could ever be taken.
    maxRecipients: { parse: (v, option) => aboveZero(option, checkCount(v as number, option)) },
    classes: { parse: flag },
    classBySubject: { parse: (v, option) => subjectRegex(option, String(v)) },
    dump: { parse: text },
    logEnvelopes: { parse: text },
    xverp: { parse: flag },
    exitAfterMessages: { parse: count },
    exitAfterSessions: { parse: count },
    idleExitMs: { parse: count },
  };

/**
 * The given options parsed, each named in an error as `--PREFIXFLAG` (a self-test's are
 * --sink-NAME); the rest stay unset for withSinkDefaults. Throws UsageError on bad input.
 */
export function parseSinkSettings(
  given: Partial<SinkOptions>,
  prefix: "" | "sink-" = "",
): SinkSettings {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const parser = PARSERS[key as keyof SinkOptions];
    if (!parser) continue; // not a sink option (the sink command's own --json, --expect …)
    out[parser.to ?? key] = parser.parse(value, `--${prefix}${FLAG_OF[key] ?? key}`);
  }
  return Object.freeze(out) as SinkSettings;
}

/**
 * Every option the settings leave unset at its default, frozen: the sink's options. Throws
 * UsageError without an address to listen on.
 */
export function withSinkDefaults(given: SinkSettings): FilledSinkOptions {
  const set = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const filled: FilledSinkOptions = {
    listen: [],
    backlog: SINK_OPTIONS.backlog.default,
    hostname: "mailvolley-sink",
    pipelining: true,
    chunking: true,
    eightBitMime: true,
    smtpUtf8: true,
    enhancedStatusCodes: true,
    dsn: true,
    size: 0,
    advertiseSize: true,
    starttls: true,
    tlsResume: true,
    lmtp: false,
    maxCommandLine: 512,
    maxTextLine: 0,
    bareLf: "accept",
    idleTimeoutMs: 300_000,
    faults: Object.freeze([]),
    seed: Math.floor(Math.random() * 2 ** 31),
    maxConnections: 0,
    maxConnectionsPerClient: 0,
    maxMessagesPerSession: 0,
    maxRecipients: 0,
    classes: true,
    xverp: true,
    exitAfterMessages: 0,
    exitAfterSessions: 0,
    idleExitMs: 0,
    ...set,
  };
  if (filled.listen.length === 0) {
    throw new UsageError("--listen", "give at least one address, e.g. 127.0.0.1:2525");
  }
  return Object.freeze(filled);
}

/**
 * Parses `host:port`, `[v6]:port`, `unix:/path`, `tls://host:port`. Returns the spec or throws
 * UsageError naming `option`.
 */
export function parseListen(text: string, option = "--listen"): ListenSpec {
  const bad = (why: string) => new UsageError(option, why, JSON.stringify(text));
  if (text.startsWith("unix:")) {
    const path = text.slice(5);
    if (path === "") throw bad("give a socket path, e.g. unix:/tmp/sink.sock");
    return Object.freeze({ kind: "unix", host: "", port: 0, path });
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
  return Object.freeze({ kind, host, port });
}

/** Parses `N/60s`, `N/1m`, `N` (per 60 s). */
export function parseSinkRate(option: string, value: Rate | string): Rate {
  if (typeof value !== "string") return checkRate(value, option);
  const rate = windowRate(value);
  if (!rate) throw new UsageError(option, "write a rate as N/60s", value);
  return checkRate(rate, option);
}

function checkRate(rate: Rate, option: string): Rate {
  if (!(rate.count > 0) || !(rate.windowMs > 0)) {
    throw new UsageError(option, "the count and the window must be above 0");
  }
  return Object.freeze({ ...rate });
}

/** Parses `300ms`, `5s`, `2m`, `1h` or plain seconds into milliseconds. */
export function parseSinkDuration(option: string, value: string | number): number {
  if (typeof value === "number") return checkCount(value * 1000, option);
  const ms = durationMs(value);
  if (ms === null) throw new UsageError(option, "write a duration like 30s", value);
  return ms;
}

function checkCount(value: number, option: string): number {
  if (!Number.isFinite(value) || value < 0 || !Number.isInteger(value)) {
    throw new UsageError(option, "give a whole number, 0 or more", String(value));
  }
  return value;
}

/** A limit that 0 would make useless (an idle timeout of nothing, no recipient allowed). */
function aboveZero(option: string, value: number): number {
  if (value > 0) return value;
  throw new UsageError(option, "give a value above 0", "0");
}

function atLeastOne(option: string, value: number): number {
  if (value >= 1) return value;
  throw new UsageError(option, "give 1 or more, e.g. 4096", "0");
}

function parseAuth(option: string, value: string): { user: string; pass: string } {
  const colon = value.indexOf(":");
  if (colon <= 0) throw new UsageError(option, "write it as user:password");
  return Object.freeze({ user: value.slice(0, colon), pass: value.slice(colon + 1) });
}

function parseBareLf(option: string, value: string): BareLfPolicy {
  if (value === "accept" || value === "reject" || value === "normalize") return value;
  throw new UsageError(option, "use accept, reject or normalize", value);
}

function subjectRegex(option: string, source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    throw new UsageError(option, `not a regular expression (${(error as Error).message})`);
  }
}

function toFaultRule(option: string, rule: FaultRule | string): FaultRule {
  if (typeof rule !== "string") return Object.freeze({ ...rule });
  try {
    return Object.freeze(parseFaultRule(rule));
  } catch (error) {
    throw new UsageError(option, (error as Error).message, rule);
  }
}
