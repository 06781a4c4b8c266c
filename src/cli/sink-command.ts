/**
 * `mailvolley sink`: the built-in sink from the command line, Postfix smtp-sink's options where
 * they make sense. It runs until SIGINT/SIGTERM or an exit condition, then prints the counts,
 * writes --json and exits: 0, or 1 when --expect N disagrees, 2 for bad input.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { ConfigError, parseDuration } from "../config/parse.js";
import { SINK_OPTIONS } from "../config/sink-option-table.js";
import {
  type Sink,
  SinkOptionError,
  type SinkOptions,
  type SinkStats,
  type SinkStopReason,
  somaxconn,
  startSink,
} from "../sink/index.js";
import { EXIT } from "./exit-codes.js";
import { tableOptions } from "./load-options.js";
import { checkOutputPath, writeExport } from "./output.js";

export const SINK_SCHEMA = "mailvolley/sink@1";

/** Options that do not go into SinkOptions but decide how the command ends. */
export interface SinkCliSettings {
  json?: string;
  expect?: number;
  quiet: boolean;
}

const TLS_RESUME_HELP =
  "Resume TLS sessions from tickets; --no-tls-resume: a full handshake every time, as a gateway without resumption";

export function sinkOptions<T>(yargs: Argv<T>) {
  return tableOptions(yargs, SINK_OPTIONS)
    .option("listen", {
      type: "string",
      array: true,
      describe: "Address to listen on: host:port, [v6]:port, unix:/path, tls://host:port",
      default: ["127.0.0.1:2525"],
    })
    .option("hostname", { type: "string", describe: "Banner and EHLO name [mailvolley-sink]" })
    .option("json", { type: "string", describe: "Write the counts as JSON to FILE (- = stdout)" })
    .option("quiet", { alias: "q", type: "boolean", describe: "No live counter, no summary" })
    .option("pipelining", { type: "boolean", default: true, describe: "Offer PIPELINING" })
    .option("chunking", { type: "boolean", default: true, describe: "Offer CHUNKING (BDAT)" })
    .option("starttls", { type: "boolean", default: true, describe: "Offer STARTTLS" })
    .option("tls-resume", { type: "boolean", default: true, describe: TLS_RESUME_HELP })
    .option("8bitmime", { type: "boolean", default: true, describe: "Offer 8BITMIME" })
    .option("smtputf8", { type: "boolean", default: true, describe: "Offer SMTPUTF8" })
    .option("dsn", { type: "boolean", default: true, describe: "Offer DSN" })
    .option("enhanced-status-codes", {
      type: "boolean",
      default: true,
      describe: "Offer ENHANCEDSTATUSCODES and use RFC 3463 codes",
    })
    .option("size", { type: "string", describe: "SIZE limit in octets, enforced with 552 [none]" })
    .option("tls-cert", { type: "string", describe: "PEM certificate [self-signed]" })
    .option("tls-key", { type: "string", describe: "PEM private key [self-signed]" })
    .option("auth", { type: "string", describe: "user:pass; offer AUTH PLAIN/LOGIN, require it" })
    .option("lmtp", { type: "boolean", describe: "Speak LMTP (LHLO, a reply per recipient)" })
    .option("max-command-line", { type: "string", describe: "Command line limit [512]" })
    .option("max-text-line", { type: "string", describe: "Text line limit, 0 = none [0]" })
    .option("bare-lf", {
      type: "string",
      describe:
        "Bare LF in data: accept (data) | reject (550) | normalize (a line end, like Postfix) [accept]",
    })
    .option("idle-timeout", { type: "string", describe: "Session idle timeout [300s]" })
    .option("fault", {
      type: "string",
      array: true,
      describe: "CMD:ACTION[:every=N|:p=0.1][:delay=100ms][:text=…], e.g. rcpt:450:every=10",
    })
    .option("seed", { type: "string", describe: "Seed for probabilistic faults" })
    .option("max-connections", { type: "string", describe: "Concurrent sessions (421 beyond)" })
    .option("max-connections-per-client", { type: "string", describe: "Per client address" })
    .option("max-connection-rate", { type: "string", describe: "Per client, N/60s (421)" })
    .option("max-message-rate", { type: "string", describe: "MAIL per client, N/60s (450)" })
    .option("max-messages-per-session", { type: "string", describe: "Then 421 at MAIL" })
    .option("max-recipients", { type: "string", describe: "Per message (452 beyond)" })
    .option("classes", { type: "boolean", default: true, describe: "Count per class" })
    .option("class-by-subject", { type: "string", describe: "Class from the Subject: REGEX" })
    .option("dump", { type: "string", describe: "Write accepted messages to DIR as .eml" })
    .option("expect", { type: "string", describe: "Exit 1 unless exactly N messages accepted" })
    .option("exit-after-messages", { type: "string", describe: "Stop after N accepted" })
    .option("exit-after-sessions", { type: "string", describe: "Stop after N ended sessions" })
    .option("idle-exit", { type: "string", describe: "Stop after this long without activity" });
}

type SinkArgv = ArgumentsCamelCase<Awaited<ReturnType<typeof sinkOptions>["argv"]>>;

/** Whole number option, or undefined; throws SinkOptionError naming the option. */
function count(argv: Record<string, unknown>, name: string): number | undefined {
  const value = argv[name];
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^\d+$/.test(text)) {
    throw new SinkOptionError(name, `--${name} ${text}: give a whole number, 0 or more`);
  }
  return Number(text);
}

/** argv → SinkOptions and the command's own settings; throws SinkOptionError on bad input. */
export function sinkConfigFromArgv(argv: SinkArgv): {
  options: SinkOptions;
  settings: SinkCliSettings;
} {
  const raw = argv as unknown as Record<string, unknown>;
  const options: SinkOptions = {
    listen: (argv.listen ?? []).map(String),
    backlog: count(raw, "backlog"),
    logEnvelopes: raw.logEnvelopes === undefined ? undefined : String(raw.logEnvelopes),
    xverp: raw.xverp as boolean | undefined,
    hostname: argv.hostname,
    pipelining: argv.pipelining,
    chunking: argv.chunking,
    starttls: argv.starttls,
    tlsResume: argv.tlsResume,
    eightBitMime: raw["8bitmime"] as boolean,
    smtpUtf8: argv.smtputf8,
    dsn: argv.dsn,
    enhancedStatusCodes: argv.enhancedStatusCodes,
    size: count(raw, "size"),
    tlsCert: argv.tlsCert,
    tlsKey: argv.tlsKey,
    auth: argv.auth,
    lmtp: argv.lmtp,
    maxCommandLine: count(raw, "max-command-line"),
    maxTextLine: count(raw, "max-text-line"),
    bareLf: argv.bareLf as SinkOptions["bareLf"],
    idleTimeout:
      argv.idleTimeout === undefined
        ? undefined
        : parseDuration("--idle-timeout", argv.idleTimeout) / 1000,
    faults: (argv.fault ?? []).map(String),
    seed: count(raw, "seed"),
    maxConnections: count(raw, "max-connections"),
    maxConnectionsPerClient: count(raw, "max-connections-per-client"),
    maxConnectionRate: argv.maxConnectionRate,
    maxMessageRate: argv.maxMessageRate,
    maxMessagesPerSession: count(raw, "max-messages-per-session"),
    maxRecipients: count(raw, "max-recipients"),
    classes: argv.classes,
    classBySubject: argv.classBySubject,
    dump: argv.dump,
    exitAfterMessages: count(raw, "exit-after-messages"),
    exitAfterSessions: count(raw, "exit-after-sessions"),
    idleExitMs:
      argv.idleExit === undefined ? undefined : parseDuration("--idle-exit", argv.idleExit),
  };
  return {
    options,
    settings: { json: argv.json, expect: count(raw, "expect"), quiet: argv.quiet ?? false },
  };
}

/**
 * What the kernel reported while the sink ran: connections dropped on a full accept queue
 * (TcpExt ListenOverflows), machine-wide; null where the kernel does not say.
 */
export interface SinkKernel {
  listenOverflows: number | null;
}

/** The JSON the command writes: stable keys, versioned by `schema`. */
export function sinkJson(stats: SinkStats, stopReason: string, kernel?: SinkKernel) {
  return {
    schema: SINK_SCHEMA,
    stopReason,
    sessions: stats.sessions,
    connectionsRefused: stats.connectionsRefused,
    messages: {
      accepted: stats.messagesAccepted,
      rejected: stats.messagesRejected,
      mailRejected: stats.mailRejected,
    },
    recipients: { accepted: stats.recipients, rejected: stats.recipientsRejected },
    bytes: stats.bytes,
    tls: { full: stats.tlsFull, resumed: stats.tlsResumed },
    firstConnectAt: isoOrNull(stats.firstConnectMs),
    lastMessageAt: isoOrNull(stats.lastMessageMs),
    classes: stats.classes,
    listenOverflows: {
      count: kernel?.listenOverflows ?? null,
      scope: "machine",
    },
  };
}

/** An epoch-ms time as ISO 8601, or null for 0 (not yet). */
function isoOrNull(ms: number): string | null {
  return ms > 0 ? new Date(ms).toISOString() : null;
}

/** The summary printed on exit. */
export function sinkSummary(stats: SinkStats, kernel?: SinkKernel): string {
  const lines = [
    `sessions ${stats.sessions}  refused ${stats.connectionsRefused}`,
    `messages accepted ${stats.messagesAccepted}  rejected ${stats.messagesRejected}` +
      `  MAIL refused ${stats.mailRejected}`,
    `recipients ${stats.recipients}  rejected ${stats.recipientsRejected}  bytes ${stats.bytes}`,
  ];
  if (stats.tlsFull + stats.tlsResumed > 0) {
    lines.push(`TLS handshakes full ${stats.tlsFull}  resumed ${stats.tlsResumed}`);
  }
  if (stats.firstConnectMs > 0 && stats.lastMessageMs > 0) {
    const seconds = ((stats.lastMessageMs - stats.firstConnectMs) / 1000).toFixed(3);
    lines.push(
      `first connect ${isoOrNull(stats.firstConnectMs)}  last message ${isoOrNull(stats.lastMessageMs)}  (${seconds} s)`,
    );
  }
  for (const [name, c] of Object.entries(stats.classes)) {
    const l = c.latencyMs;
    const latency = l.count > 0 ? `  latency ms p50 ${l.p50} p99 ${l.p99} max ${l.max}` : "";
    lines.push(`class ${name}: accepted ${c.accepted} rejected ${c.rejected}${latency}`);
  }
  const overflows = kernel?.listenOverflows ?? 0;
  if (overflows > 0) {
    lines.push(
      `listen overflows ${overflows} (machine-wide: connections the kernel dropped on a full` +
        " accept queue; raise --backlog and net.core.somaxconn)",
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The exit code for `stats` under `settings`: 1 when --expect disagrees. */
export function sinkExitCode(stats: SinkStats, settings: SinkCliSettings): number {
  if (settings.expect === undefined) return EXIT.ok;
  return stats.messagesAccepted === settings.expect ? EXIT.ok : EXIT.failed;
}

/** Runs the sink until a signal or an exit condition; returns the exit code. */
export async function runSinkCommand(argv: SinkArgv): Promise<number> {
  let sink: Sink;
  let settings: SinkCliSettings;
  try {
    const config = sinkConfigFromArgv(argv);
    settings = config.settings;
    // Before listening, and without creating it: a bad path is bad input, not a lost count.
    if (settings.json !== undefined) checkOutputPath("--json", settings.json);
    sink = await startSink(config.options);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const named = e instanceof SinkOptionError || e instanceof ConfigError;
    process.stderr.write(`mailvolley: ${named ? "" : "--listen: "}${e.message}\n`);
    return EXIT.usage;
  }
  if (!settings.quiet) {
    const where = sink.addresses.map((a) => a.path ?? `${a.host}:${a.port}`).join(", ");
    process.stderr.write(`mailvolley sink listening on ${where}\n`);
    const cap = somaxconn();
    const backlog = count(argv as unknown as Record<string, unknown>, "backlog");
    if (cap !== null && backlog !== undefined && backlog > cap) {
      process.stderr.write(
        `mailvolley sink: --backlog ${backlog} is capped at ${cap} by net.core.somaxconn\n`,
      );
    }
  }
  const reason = await waitForStop(sink, settings.quiet);
  const kernel: SinkKernel = { listenOverflows: sink.listenOverflows() };
  await sink.close();
  const stats = sink.stats();
  if (!settings.quiet) process.stdout.write(sinkSummary(stats, kernel));
  const unwritten = sink.dumpFailures();
  if (unwritten.count > 0) {
    process.stderr.write(
      `mailvolley sink: --dump: ${unwritten.count} messages not written (first: ${unwritten.first})\n`,
    );
  }
  const unlogged = sink.envelopeLogFailures();
  if (unlogged.count > 0) {
    process.stderr.write(
      `mailvolley sink: --log-envelopes: ${unlogged.count} lines not written (${unlogged.first})\n`,
    );
  }
  const written =
    settings.json === undefined ||
    writeExport(
      "--json",
      settings.json,
      `${JSON.stringify(sinkJson(stats, reason, kernel), null, 2)}\n`,
      "the count",
    );
  const code = sinkExitCode(stats, settings);
  if (code !== EXIT.ok) {
    process.stderr.write(
      `mailvolley sink: --expect: expected ${settings.expect} messages accepted, got ${stats.messagesAccepted}\n`,
    );
  }
  return written ? code : EXIT.failed;
}

/** Resolves with the reason the sink should stop: a signal or one of its exit conditions. */
function waitForStop(sink: Sink, quiet: boolean): Promise<SinkStopReason | "signal"> {
  const live = !quiet && process.stderr.isTTY ? liveCounter(sink) : null;
  return new Promise((resolve) => {
    const stop = (reason: SinkStopReason | "signal") => {
      process.removeListener("SIGINT", onSignal);
      process.removeListener("SIGTERM", onSignal);
      if (live !== null) {
        clearInterval(live);
        process.stderr.write("\n");
      }
      resolve(reason);
    };
    const onSignal = () => stop("signal");
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    sink.finished.then(stop);
  });
}

/** A one-line counter on a TTY, like smtp-sink -c. */
function liveCounter(sink: Sink): NodeJS.Timeout {
  let last = 0;
  return setInterval(() => {
    const s = sink.stats();
    const rate = s.messagesAccepted - last;
    last = s.messagesAccepted;
    process.stderr.write(
      `\rsessions ${s.sessions} (${s.sessionsActive} open)  accepted ${s.messagesAccepted}` +
        `  rejected ${s.messagesRejected}  ${rate}/s   `,
    );
  }, 1000);
}

export const sinkCommand = {
  command: "sink",
  describe: "Run the built-in SMTP sink: count what arrives, or play a gateway under limits",
  builder: sinkOptions,
  handler: async (argv: SinkArgv): Promise<void> => {
    process.exitCode = await runSinkCommand(argv);
  },
};
