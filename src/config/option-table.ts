/**
 * Every option of `run` and `compare` (and the TLS and AUTH options `probe` shares), one row
 * each: flag, alias, help group and text, default, whether a plan may set it, and its kind. The
 * help, plan keys and raw types follow from the rows (config/option-rows.ts); rows are in help order.
 */
import { DEFAULT_APDEX_MS } from "../result/summarise.js";
import { MESSAGE_OPTIONS } from "./message-options.js";
import { defaultsOf, durationText, type OptionTable } from "./option-rows.js";
import { RECEIVE_OPTIONS } from "./receive-options.js";
import { SECURITY_OPTIONS } from "./security-options.js";
import { embeddedSinkOptions, SINK_OPTIONS } from "./sink-option-table.js";
import { TIMEOUT_OPTIONS } from "./timeout-options.js";

export { MESSAGE_OPTIONS } from "./message-options.js";
export { RECEIVE_OPTIONS } from "./receive-options.js";
export { SECURITY_OPTIONS } from "./security-options.js";
export { TIMEOUT_OPTIONS } from "./timeout-options.js";

/** What a run sends and how its sessions behave. */
export const RUN_OPTIONS = {
  target: { kind: "positional", group: "Run:", describe: "host:port, [ipv6]:port or unix:/path" },
  sessions: {
    alias: ["s", "c"],
    kind: "text",
    group: "Run:",
    describe: "Sessions (connections) at once",
    default: 10,
    twice: "a timeout (ab's -s) is --timeout or --timeout-PHASE",
  },
  messages: {
    alias: ["m", "n"],
    kind: "text",
    group: "Run:",
    describe: "Messages to send",
    default: 10_000,
  },
  size: {
    alias: "l",
    kind: "text",
    group: "Run:",
    takes: "size",
    describe: "Body octets per message",
    default: "1024",
  },
  recipients: {
    alias: "r",
    kind: "text",
    group: "Run:",
    describe: "Recipients per message",
    default: 1,
  },
  from: {
    alias: "f",
    kind: "text",
    group: "Run:",
    takes: "address",
    describe: "Envelope sender",
    default: "mailvolley@localhost",
  },
  to: {
    alias: "t",
    kind: "text",
    group: "Run:",
    takes: "address",
    describe: "Recipient address",
    default: "sink@localhost",
  },
  subject: {
    alias: "S",
    kind: "text",
    group: "Run:",
    takes: "text",
    describe:
      "Subject header; {{seq}} {{timestamp}} {{epochMs}} {{token}} {{class}} are filled in per message",
    default: "mailvolley test message",
  },
  helo: {
    alias: "M",
    kind: "text",
    group: "Run:",
    takes: "host name",
    describe: "EHLO/HELO host name",
    default: "mailvolley.localhost",
  },
  "unique-recipients": {
    alias: "N",
    kind: "flag",
    group: "Run:",
    describe: "Prefix every recipient with a unique number, like smtp-source -N",
  },
  wait: {
    alias: "w",
    kind: "text",
    group: "Run:",
    takes: "duration",
    describe: "Pause after each message in a session (2s, 250ms)",
  },
  "random-wait": {
    alias: "R",
    kind: "text",
    group: "Run:",
    takes: "duration",
    describe: "Pause a random time between 0 and this after each message",
  },
  mode: {
    kind: "text",
    group: "Run:",
    takes: "reuse|per-message",
    describe: "reuse: sessions stay open; per-message: one connection a message",
    default: "reuse",
  },
  "messages-per-session": {
    kind: "text",
    group: "Run:",
    takes: "number|LOW-HIGH",
    describe: "Reuse mode: reconnect after K messages, or a random K in LOW-HIGH",
    default: 0,
    shown: "0 = no cap",
  },
  pipelining: {
    kind: "text",
    group: "Run:",
    takes: "auto|off",
    describe: "auto: pipeline when offered; off: lock-step",
    default: "auto",
  },
  "reconnect-attempts": {
    kind: "text",
    group: "Run:",
    describe: "Reuse mode: failed connections in a row before a session slot gives up",
    default: 5,
  },
  "reconnect-delay": {
    kind: "text",
    group: "Run:",
    describe: "First backoff after a failed session",
    default: "100ms",
  },
  "reconnect-after-deferrals": {
    kind: "text",
    group: "Run:",
    describe:
      "Reuse mode: reconnect after N 4xx MAIL replies in a row (0: on a session limit only)",
    default: 3,
  },
  duration: {
    alias: "d",
    kind: "text",
    group: "Load model:",
    takes: "duration",
    describe:
      "Run for this long (30s, 5m); with -m too, whichever ends first (smtp-source's -d is --mode reuse)",
  },
  rate: {
    kind: "text",
    group: "Load model:",
    takes: "rate",
    describe: "Open model: messages per second across the run (2000, 2000/s, 120/m)",
  },
  ramp: {
    kind: "text",
    group: "Load model:",
    takes: "stages",
    describe: "Open model: rate stages TIME:RATE,… (0s:100,30s:1000,60s:1000)",
  },
  arrivals: {
    kind: "text",
    group: "Load model:",
    describe:
      "Open model: constant (evenly spaced) or poisson (exponential gaps around the rate, drawn from --seed)",
    default: "constant",
  },
  "ramp-sessions": {
    kind: "text",
    group: "Load model:",
    takes: "stages",
    describe: "Closed model: active sessions over time TIME:N,… (0s:1,30s:50)",
  },
  "ramp-up": {
    kind: "text",
    group: "Load model:",
    takes: "duration",
    describe: "Closed model: start the sessions evenly over this long (JMeter ramp-up)",
  },
  "max-delay": {
    kind: "text",
    group: "Load model:",
    describe: "Open model: drop an arrival that waited this long for a session",
    default: "1s",
  },
  "max-queue": {
    kind: "text",
    group: "Load model:",
    describe: "Open model: arrivals that may wait at once; more are dropped",
    default: 10_000,
  },
  grace: {
    kind: "text",
    group: "Load model:",
    describe: "After Ctrl-C, how long messages in flight may take",
    default: "5s",
  },
  interval: {
    kind: "text",
    group: "Run:",
    describe: "Resolution of the time series in the result (1s, 500ms, 10s)",
    default: "1s",
  },
  workers: {
    kind: "text",
    group: "Run:",
    takes: "number",
    describe: "Worker threads the sessions are spread over (1: main thread)",
    shown: "cores - 1",
  },
  source: {
    kind: "list",
    group: "Run:",
    describe: "Local addresses to connect from, in turn per session (a,b or 127.0.0.2-127.0.0.9)",
  },
  lmtp: {
    alias: "L",
    kind: "flag",
    group: "Run:",
    describe: "Speak LMTP (RFC 2033): LHLO, one reply per accepted recipient after the data",
  },
  chunking: {
    kind: "flag",
    group: "Run:",
    describe: "Send with BDAT when CHUNKING and PIPELINING are offered: transactions back to back",
  },
  window: {
    kind: "text",
    group: "Run:",
    describe: "With --chunking: BDAT transactions in flight per session",
    default: 16,
  },
  shard: {
    kind: "text",
    group: "Several machines:",
    takes: "I/N",
    describe: "Run shard I of N (I from 0) of one run; auto/N takes I from JOB_COMPLETION_INDEX",
  },
  "start-at": {
    kind: "text",
    group: "Several machines:",
    takes: "time",
    describe: "Start at this wall-clock time: epoch seconds or ISO 8601 with a zone",
  },
  json: {
    kind: "text",
    takes: "file",
    group: "Reports:",
    describe: "Write the JSON result to FILE (- for stdout)",
  },
  verbose: {
    alias: "v",
    kind: "flag",
    group: "Run:",
    describe: "Print the first session's SMTP conversation",
    plan: false,
  },
  quiet: { alias: "q", kind: "flag", group: "Run:", describe: "Print no summary", plan: false },
} as const satisfies OptionTable;

/** Reports and pass/fail criteria (config/report-options.ts). */
export const REPORT_OPTIONS = {
  html: {
    kind: "text",
    group: "Reports:",
    takes: "file",
    describe: "Write a self-contained HTML report (charts over time) to FILE",
  },
  apdex: {
    kind: "text",
    group: "Reports:",
    describe: "Apdex T: satisfied ≤ T, tolerating ≤ 4T (e.g. 100ms)",
    default: durationText(DEFAULT_APDEX_MS),
  },
  threshold: {
    kind: "list",
    group: "Reports:",
    describe: "Pass/fail criterion, repeatable: 'p99<50ms', 'error_rate<0.1%', 'rate>=5000/s'",
  },
  "abort-on-fail": {
    kind: "flag",
    group: "Reports:",
    describe: "Stop the run as soon as an error_rate threshold is breached",
  },
  out: {
    kind: "list",
    group: "Reports:",
    describe:
      "Stream the time series, repeatable: ndjson=FILE or csv=FILE (a line per interval), prometheus=FILE (running totals)",
  },
  "fail-on-generator-bound": {
    kind: "flag",
    group: "Reports:",
    describe:
      "Exit 99, as a breached --threshold does, when mailvolley and not the target set the rate (generator.limitedBy: generator)",
  },
} as const satisfies OptionTable;

/**
 * The built-in sink in a self-test, `--sink-NAME`: every row of the sink's table that makes
 * sense there (config/sink-option-table.ts), so a sink option added there appears here too.
 */
export const SINK_EMULATION_OPTIONS = withSinkFlags(embeddedSinkOptions(SINK_OPTIONS));

/**
 * The sink's rows name the sink's flags (`--no-tls-resume`); in `run` they are --sink-NAME, and
 * --no-tls-resume there is the client's own flag.
 */
function withSinkFlags<T extends OptionTable>(rows: T): T {
  const names = Object.keys(SINK_OPTIONS).sort((a, b) => b.length - a.length);
  const flag = new RegExp(`--(no-)?(${names.join("|")})(?![\\w-])`, "g");
  const renamed = Object.entries(rows).map(([key, spec]) => [
    key,
    { ...spec, describe: spec.describe.replace(flag, "--$1sink-$2") },
  ]);
  return Object.freeze(Object.fromEntries(renamed)) as T;
}

/** `compare` only; a plan shared by `run` and `compare` may hold them. */
export const COMPARE_OPTIONS = {
  order: {
    kind: "text",
    group: "Compare:",
    takes: "order",
    describe: "Which mode runs first",
    default: "per-message,reuse",
  },
  pause: {
    kind: "text",
    group: "Compare:",
    takes: "duration",
    describe: "Pause between the two runs, so rate windows of the gateway drain",
    default: "5s",
  },
} as const satisfies OptionTable;

/**
 * `run` and `compare`: the same load N times, for each figure's spread; `mailvolley diff`
 * compares two such sets. `run` takes compare's --pause between its runs.
 */
export const REPEAT_OPTIONS = {
  repeat: {
    kind: "text",
    group: "Repeat:",
    describe:
      "Run the load N times (--pause between) and report each headline figure's mean ± 95 % CI",
    default: 1,
  },
  pause: {
    ...COMPARE_OPTIONS.pause,
    group: "Repeat:",
    describe: "With --repeat: pause between runs",
  },
} as const satisfies OptionTable;

/** Every option of `run`, in help order. */
export const LOAD_OPTIONS = {
  ...RUN_OPTIONS,
  ...SECURITY_OPTIONS,
  ...TIMEOUT_OPTIONS,
  ...MESSAGE_OPTIONS,
  ...REPORT_OPTIONS,
  ...SINK_EMULATION_OPTIONS,
  ...RECEIVE_OPTIONS,
} as const satisfies OptionTable;

/** The default of every option that has one, by camelCase key: what the help shows. */
export const DEFAULTS = defaultsOf({ ...LOAD_OPTIONS, ...COMPARE_OPTIONS });
