/**
 * Every option of the built-in sink, one row each. `mailvolley sink` takes them as written
 * (cli/sink-command.ts); a self-test (`run`/`compare` without a target) takes the rows not
 * marked `embedded: false` as `--sink-NAME` (option-table.ts). config/sink-config.ts turns the
 * given values into the sink's options, so adding a sink option is adding a row here (and the
 * field it fills in sink/filled-options.ts).
 */
import type { OptionSpec } from "./option-rows.js";

const EMBEDDED_GROUP = "Built-in sink (no target):" as const;

/** How a row's value becomes the sink's option (config/sink-config.ts). */
export type SinkValue =
  /** A whole number, 0 or more. */
  | "count"
  /** Text as given. */
  | "text"
  /** On/off. */
  | "flag"
  /** A repeatable text. */
  | "list"
  /** A duration, handed over in seconds. */
  | "seconds"
  /** A duration, handed over in milliseconds. */
  | "ms"
  /** A count over a window, N/60s. */
  | "rate";

export interface SinkOptionSpec extends OptionSpec {
  readonly value: SinkValue;
  /** The sink option (sink/filled-options.ts SinkOptions) it fills, when not the camelCase flag. */
  readonly key?: string;
  /**
   * false: `run`/`compare` do not offer it as --sink-NAME: the self-test chooses the address
   * itself, ends the sink with the run, and reports the sink's counts in its own result.
   */
  readonly embedded?: false;
}

export type SinkOptionTable = Readonly<Record<string, SinkOptionSpec>>;

const g = "Sink:" as const;

export const SINK_OPTIONS = {
  listen: {
    kind: "list",
    value: "list",
    group: g,
    describe: "Address to listen on: host:port, [v6]:port, unix:/path, tls://host:port",
    default: "127.0.0.1:2525",
    embedded: false,
  },
  backlog: {
    kind: "text",
    value: "count",
    group: g,
    describe:
      "Listen backlog: connections the kernel queues until the sink accepts them (capped by net.core.somaxconn)",
    // sink/kernel.ts DEFAULT_BACKLOG, as Postfix smtp-sink's -b; Node's own default is 511.
    default: 4096,
  },
  "log-envelopes": {
    kind: "text",
    value: "text",
    group: g,
    describe: "Append one JSON line per transaction to FILE: time, MAIL FROM, RCPT TOs, accepted",
  },
  xverp: {
    kind: "flag",
    value: "flag",
    group: g,
    describe: "Offer XVERP (Postfix); --no-… plays a server without it",
    shown: "offered",
  },
  hostname: {
    kind: "text",
    value: "text",
    group: g,
    describe: "Banner and EHLO name",
    shown: "mailvolley-sink",
  },
  pipelining: {
    kind: "flag",
    value: "flag",
    group: g,
    describe: "Offer PIPELINING",
    shown: "true",
  },
  chunking: {
    kind: "flag",
    value: "flag",
    group: g,
    describe: "Offer CHUNKING (BDAT)",
    shown: "true",
  },
  starttls: {
    kind: "flag",
    value: "flag",
    group: g,
    describe: "Offer STARTTLS",
    shown: "true",
    // A self-test's sink offers what the client's --tls, --lmtp and --auth ask for.
    embedded: false,
  },
  "tls-resume": {
    kind: "flag",
    value: "flag",
    key: "tlsResume",
    group: g,
    describe:
      "Resume TLS sessions from tickets and session IDs; --no-tls-resume: a full handshake every time, as a gateway without resumption",
    shown: "true",
  },
  "8bitmime": {
    kind: "flag",
    value: "flag",
    key: "eightBitMime",
    group: g,
    describe: "Offer 8BITMIME",
    shown: "true",
  },
  smtputf8: {
    kind: "flag",
    value: "flag",
    key: "smtpUtf8",
    group: g,
    describe: "Offer SMTPUTF8",
    shown: "true",
  },
  dsn: { kind: "flag", value: "flag", group: g, describe: "Offer DSN", shown: "true" },
  "enhanced-status-codes": {
    kind: "flag",
    value: "flag",
    group: g,
    describe: "Offer ENHANCEDSTATUSCODES and use RFC 3463 codes",
    shown: "true",
  },
  size: {
    kind: "text",
    value: "count",
    group: g,
    describe: "SIZE limit in octets, enforced with 552",
    shown: "none",
  },
  "tls-cert": {
    kind: "text",
    value: "text",
    group: g,
    describe: "PEM certificate",
    shown: "self-signed",
  },
  "tls-key": {
    kind: "text",
    value: "text",
    group: g,
    describe: "PEM private key",
    shown: "self-signed",
  },
  auth: {
    kind: "text",
    value: "text",
    group: g,
    describe: "user:pass; offer AUTH PLAIN/LOGIN, require it",
    embedded: false,
  },
  lmtp: {
    kind: "flag",
    value: "flag",
    group: g,
    describe: "Speak LMTP (LHLO, a reply per recipient)",
    embedded: false,
  },
  "max-command-line": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Command line limit",
    default: 512,
  },
  "max-text-line": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Text line limit, 0 = none",
    default: 0,
  },
  "bare-lf": {
    kind: "text",
    value: "text",
    group: g,
    describe:
      "Bare LF in data: accept (data) | reject (550) | normalize (a line end, like Postfix)",
    shown: "accept",
  },
  "idle-timeout": {
    kind: "text",
    value: "seconds",
    group: g,
    describe: "Session idle timeout",
    default: "300s",
  },
  fault: {
    kind: "list",
    value: "list",
    key: "faults",
    group: g,
    describe: "CMD:ACTION[:every=N|:p=0.1][:delay=100ms][:text=…], e.g. rcpt:450:every=10",
  },
  seed: { kind: "text", value: "count", group: g, describe: "Seed for probabilistic faults" },
  "max-connections": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Sessions the sink holds at once; more get 421 4.7.0 at the banner",
  },
  "max-connections-per-client": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Sessions per client address (421 beyond)",
  },
  "max-connection-rate": {
    kind: "text",
    value: "rate",
    group: g,
    describe: "New connections per client per window (N/60s); more get 421 at the banner",
  },
  "max-message-rate": {
    kind: "text",
    value: "rate",
    group: g,
    describe: "MAIL commands per client per window (N/60s); more get 450 4.7.1",
  },
  "max-messages-per-session": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Messages per session, then 421 at MAIL",
  },
  "max-recipients": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Recipients per message (452 beyond)",
  },
  classes: { kind: "flag", value: "flag", group: g, describe: "Count per class", shown: "true" },
  "class-by-subject": {
    kind: "text",
    value: "text",
    group: g,
    describe: "Class from the Subject: REGEX",
  },
  dump: {
    kind: "text",
    value: "text",
    group: g,
    describe: "Write accepted messages to DIR as .eml",
  },
  "exit-after-messages": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Stop after N accepted",
    embedded: false,
  },
  "exit-after-sessions": {
    kind: "text",
    value: "count",
    group: g,
    describe: "Stop after N ended sessions",
    embedded: false,
  },
  "idle-exit": {
    kind: "text",
    value: "ms",
    key: "idleExitMs",
    group: g,
    describe: "Stop after this long without activity",
    embedded: false,
  },
} as const satisfies SinkOptionTable;

/** The --sink-NAME rows of a table: those not marked `embedded: false`. */
export type EmbeddedOf<T extends SinkOptionTable> = {
  readonly [K in keyof T & string as T[K] extends { embedded: false } ? never : `sink-${K}`]: T[K];
};

/**
 * A self-test's rows from the sink's: `--sink-NAME`, listed under the self-test's group. The
 * sink's defaults stay the sink's to fill (they show as text), so an option not given is not
 * handed over.
 */
export function embeddedSinkOptions<T extends SinkOptionTable>(table: T): EmbeddedOf<T> {
  const rows = Object.entries(table)
    .filter(([, spec]) => spec.embedded !== false)
    .map(([flag, spec]) => {
      const { default: fallback, ...rest } = spec;
      const shown = spec.shown ?? (fallback === undefined ? undefined : String(fallback));
      return [`sink-${flag}`, { ...rest, group: EMBEDDED_GROUP, shown }];
    });
  return Object.freeze(Object.fromEntries(rows)) as unknown as EmbeddedOf<T>;
}

/** `mailvolley sink`'s own: how the command ends and reports, not how the sink answers. */
export const SINK_COMMAND_OPTIONS = {
  json: {
    kind: "text",
    value: "text",
    group: g,
    describe: "Write the counts as JSON to FILE (- = stdout)",
    embedded: false,
  },
  quiet: {
    kind: "flag",
    value: "flag",
    alias: "q",
    group: g,
    describe: "No live counter, no summary",
    embedded: false,
  },
  expect: {
    kind: "text",
    value: "count",
    group: g,
    describe: "Exit 1 unless exactly N messages accepted",
    embedded: false,
  },
} as const satisfies SinkOptionTable;
