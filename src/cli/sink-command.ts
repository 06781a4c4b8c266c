/**
 * `mailvolley sink`: the built-in sink from the command line, Postfix smtp-sink's options where
 * they make sense. It runs until SIGINT/SIGTERM or an exit condition, then prints the counts,
 * writes --json and exits: 0, or 1 when --expect N disagrees, 2 for bad input.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";

import {
  parseListen,
  sinkSettingsOf,
  sinkValuesOf,
  withSinkDefaults,
} from "../config/sink-config.js";
import { SINK_COMMAND_OPTIONS, SINK_OPTIONS } from "../config/sink-option-table.js";
import { type ArrivalsJson, arrivalsJson } from "../delivery/arrivals-file.js";
import { Receiver } from "../delivery/receiver.js";
import {
  type FilledSinkOptions,
  type Sink,
  type SinkStats,
  type SinkStopReason,
  somaxconn,
  startSink,
} from "../sink/index.js";
import { grouped } from "../stats/number-format.js";
import { UsageError } from "../usage/usage-error.js";
import { takeEarlySignals } from "./early-signals.js";
import { EXIT } from "./exit-codes.js";
import { tableOptions } from "./load-options.js";
import { readNamedInputs, SINK_INPUTS } from "./named-inputs.js";
import { checkOutputPath, writeExport } from "./output.js";

export const SINK_SCHEMA = "mailvolley/sink@1";

/** Options that do not go into SinkOptions but decide how the command ends. */
export interface SinkCliSettings {
  json?: string;
  expect?: number;
  quiet: boolean;
}

export function sinkOptions<T>(yargs: Argv<T>) {
  return tableOptions(tableOptions(yargs, SINK_OPTIONS), SINK_COMMAND_OPTIONS);
}

type SinkArgv = ArgumentsCamelCase<Record<string, unknown>>;

/**
 * argv → the sink's options, checked and filled, and the command's own settings, by the rows of
 * config/sink-option-table.ts; throws UsageError on bad input. `backlog`: the one given, if any.
 */
export function sinkConfigFromArgv(argv: SinkArgv): {
  options: FilledSinkOptions;
  backlog: number | undefined;
  settings: SinkCliSettings;
} {
  // The rows carry no yargs defaults, the config fills them; the address is the command's.
  const given = sinkSettingsOf(argv, "");
  const options = withSinkDefaults({
    listen: [parseListen(SINK_OPTIONS.listen.default)],
    ...given,
  });
  const own = sinkValuesOf(argv, "", SINK_COMMAND_OPTIONS);
  return {
    options,
    backlog: given.backlog,
    settings: {
      json: own.json as string | undefined,
      expect: own.expect as number | undefined,
      quiet: (own.quiet as boolean | undefined) ?? false,
    },
  };
}

/**
 * What the kernel reported while the sink ran: connections dropped on a full accept queue
 * (TcpExt ListenOverflows), machine-wide; null where the kernel does not say.
 */
export interface SinkKernel {
  listenOverflows: number | null;
}

/**
 * The JSON the command writes: stable keys, versioned by `schema`. `arrivals`: what arrived of
 * each mailvolley run, for `report RUN.json --arrivals FILE`.
 */
export function sinkJson(
  stats: SinkStats,
  stopReason: string,
  kernel?: SinkKernel,
  arrivals?: ArrivalsJson,
) {
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
    ...(arrivals ? { arrivals } : {}),
  };
}

/** An epoch-ms time as ISO 8601, or null for 0 (not yet). */
function isoOrNull(ms: number): string | null {
  return ms > 0 ? new Date(ms).toISOString() : null;
}

/** A count as the run's summary prints it: "20,000". */
const n = (count: number) => grouped(count, 0, 0);

/** The summary printed on exit. */
export function sinkSummary(stats: SinkStats, kernel?: SinkKernel): string {
  const lines = [
    `sessions ${n(stats.sessions)}  refused ${n(stats.connectionsRefused)}`,
    `messages accepted ${n(stats.messagesAccepted)}  rejected ${n(stats.messagesRejected)}` +
      `  MAIL refused ${n(stats.mailRejected)}`,
    `recipients ${n(stats.recipients)}  rejected ${n(stats.recipientsRejected)}  bytes ${n(stats.bytes)}`,
  ];
  if (stats.tlsFull + stats.tlsResumed > 0) {
    lines.push(`TLS handshakes full ${n(stats.tlsFull)}  resumed ${n(stats.tlsResumed)}`);
  }
  if (stats.firstConnectMs > 0 && stats.lastMessageMs > 0) {
    const seconds = grouped((stats.lastMessageMs - stats.firstConnectMs) / 1000, 3, 3);
    lines.push(
      `first connect ${isoOrNull(stats.firstConnectMs)}  last message ${isoOrNull(stats.lastMessageMs)}  (${seconds} s)`,
    );
  }
  for (const [name, c] of Object.entries(stats.classes)) {
    const l = c.latencyMs;
    const ms = (v: number) => grouped(v, 0, 3);
    const latency =
      l.count > 0 ? `  latency ms p50 ${ms(l.p50)} p99 ${ms(l.p99)} max ${ms(l.max)}` : "";
    lines.push(`class ${name}: accepted ${n(c.accepted)} rejected ${n(c.rejected)}${latency}`);
  }
  const overflows = kernel?.listenOverflows ?? 0;
  if (overflows > 0) {
    lines.push(
      `listen overflows ${n(overflows)} (machine-wide: connections the kernel dropped on a full` +
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

/** A started sink command: the sink, its settings and, with --json, its receiver of arrivals. */
interface StartedSink {
  sink: Sink;
  settings: SinkCliSettings;
  receiver: Receiver | null;
}

/** Checks the options and starts listening; bad input, or an address it cannot use, throws. */
async function startSinkCommand(argv: SinkArgv): Promise<StartedSink> {
  let started: StartedSink;
  let backlog: number | undefined;
  try {
    await readNamedInputs("sink", argv, SINK_INPUTS);
    const { options, settings, backlog: given } = sinkConfigFromArgv(argv);
    // Before listening, and without creating it: a bad path is bad input, not a lost count.
    if (settings.json !== undefined) checkOutputPath("--json", settings.json);
    // With --json the sink records each run's arrivals: a run's receiver on another host.
    const receiver = settings.json === undefined ? null : new Receiver(null);
    const sink = await startSink(options, receiver ?? undefined);
    started = { sink, settings, receiver };
    backlog = given;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Anything else failed to listen (EADDRINUSE, EACCES): the address given is unusable.
    throw new UsageError("--listen", (error as Error).message);
  }
  if (!started.settings.quiet) announce(started.sink, backlog);
  return started;
}

/** Where the sink listens, and a --backlog the kernel caps. */
function announce(sink: Sink, backlog: number | undefined): void {
  const where = sink.addresses.map((a) => a.path ?? `${a.host}:${a.port}`).join(", ");
  process.stderr.write(`mailvolley sink listening on ${where}\n`);
  const cap = somaxconn();
  if (cap !== null && backlog !== undefined && backlog > cap) {
    process.stderr.write(
      `mailvolley sink: --backlog ${backlog} is capped at ${cap} by net.core.somaxconn\n`,
    );
  }
}

/** Runs the sink until a signal or an exit condition; returns the exit code. */
export async function runSinkCommand(argv: SinkArgv): Promise<number> {
  const { sink, settings, receiver } = await startSinkCommand(argv);
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
      `${JSON.stringify(sinkJson(stats, reason, kernel, arrivalsOf(receiver)), null, 2)}\n`,
      "the count",
    );
  const code = sinkExitCode(stats, settings);
  if (code !== EXIT.ok) {
    process.stderr.write(
      `mailvolley sink: --expect: expected ${n(settings.expect ?? 0)} messages accepted, got ${n(stats.messagesAccepted)}\n`,
    );
  }
  return written ? code : EXIT.failed;
}

function arrivalsOf(receiver: Receiver | null): ArrivalsJson | undefined {
  return receiver === null ? undefined : arrivalsJson(receiver.runs, receiver.counts);
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
    if (takeEarlySignals().length > 0) onSignal(); // came while the sink started
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
      `\rsessions ${n(s.sessions)} (${n(s.sessionsActive)} open)  accepted ${n(s.messagesAccepted)}` +
        `  rejected ${n(s.messagesRejected)}  ${n(rate)}/s   `,
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
