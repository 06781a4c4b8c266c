/**
 * `mailvolley run [target]`: the command line → RunCommandConfig (config/command-config.ts), the run,
 * its live progress and signals, the reports, the exit code.
 */
import type { Argv } from "yargs";
import { buildRunCommandConfig } from "../config/command-config.js";
import { RUN_OPTIONS } from "../config/option-table.js";
import { runRecord } from "../config/run-record.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderSummary } from "../report/terminal.js";
import { executeRun, type RunIo } from "../run/run.js";
import { printable } from "../stats/printable.js";
import type { Result } from "../stats/result.js";
import { breachedLive } from "../stats/thresholds.js";
import { mark } from "../stats/timeline.js";
import { EXIT, type ExitCode, loadExitCode, type StopSignal } from "./exit-codes.js";
import { type CommandArgv, checkEmbeddedSink, givenOptions, loadOptions } from "./load-options.js";
import { checkWritable, type Export, exportsOf, writeOutput } from "./output.js";
import { progressPrinter } from "./progress.js";
import { applyThresholds, generatorGate, printBreaches } from "./report-command.js";
import { checkSeriesOut, SeriesStreams } from "./series-stream.js";
import { StopSignals } from "./signals.js";
import { noteDefaultMessages, warnPlaintextAuth } from "./warnings.js";

export const runCommand = {
  command: "run [target]",
  describe: "Send load to an SMTP server (no target: self-test against the built-in sink)",
  builder: (yargs: Argv) =>
    loadOptions(yargs)
      .positional("target", {
        type: "string",
        describe: `${RUN_OPTIONS.target.describe} (port 25 when none)`,
      })
      .example([
        ["$0 run", "self-test: 10,000 messages to the built-in sink"],
        ["$0 run 127.0.0.1:2525 -s 20 -m 50000", "a bulk sender: 20 sessions kept open"],
        ["$0 run 127.0.0.1:2525 --mode per-message -s 20", "a connection per message"],
        ["$0 run 127.0.0.1:2525 --rate 500 -d 60s", "open model: 500 arrivals a second"],
        ["$0 run 127.0.0.1:2525 --threshold 'p99<50ms' --json r.json", "a CI gate: exit 99"],
      ]),
  handler: async (argv: CommandArgv) => {
    mark("command started");
    const given = givenOptions(argv);
    const { run: config, report, sink, receive } = buildRunCommandConfig(given);
    if (config.target === null || receive !== null) checkEmbeddedSink(sink);
    const exports = exportsOf<Result>([
      ["--json", config.json, renderJson],
      ["--html", report.html, (result) => renderHtml([result])],
    ]);
    checkWritable([...exports, ...report.seriesOut.map(({ path }) => ({ option: "--out", path }))]);
    warnPlaintextAuth(config, config.target);
    noteDefaultMessages(given, config);
    checkSeriesOut(report.seriesOut);
    // Listening from here to the last byte written: a signal never kills the process half-way.
    const signals = new StopSignals((signal) =>
      draining.now
        ? process.stderr.write(
            `\nmailvolley: ${signal}: the drain ends now; what has not arrived is not waited for\n`,
          )
        : announceStop(signal, config.load.graceMs),
    );
    const streams = new SeriesStreams(report.seriesOut, config.intervalMs);
    try {
      process.exitCode = await runAndReport(config, report, { sink, receive }, exports, {
        signals,
        streams,
      });
    } finally {
      streams.close();
      signals.release();
    }
  },
};

type RunCommandConfig = ReturnType<typeof buildRunCommandConfig>;

/** Whether the run is draining (--receive): a signal then ends the wait, not the load. */
const draining = { now: false };

/** A signal in the drain ends it: the report then says what had not arrived. */
function endDrainOnSignal(signals: StopSignals): (end: () => void) => void {
  return (end) => {
    draining.now = true;
    signals.attach({ stop: end, drain: end });
  };
}

/** The run with its progress, then its reports; returns the exit code. */
async function runAndReport(
  config: RunCommandConfig["run"],
  report: RunCommandConfig["report"],
  { sink, receive }: Pick<RunCommandConfig, "sink" | "receive">,
  exports: Export<Result>[],
  { signals, streams }: { signals: StopSignals; streams: SeriesStreams },
): Promise<ExitCode> {
  const printer = progressPrinter(process.stderr, config.quiet || config.verbose, {
    messages: config.messages,
    durationMs: config.load.durationMs,
  });
  let abortedFor: string[] = [];
  const io: RunIo = {
    // Reply text is the server's: escaped before it reaches the terminal.
    trace: config.verbose ? (line) => process.stderr.write(`${printable(line)}\n`) : undefined,
    onStart: (stop, drain) => {
      signals.attach({ stop, drain });
      if (!config.quiet) announceStart(config); // once a signal is ours
    },
    onDrainStart: endDrainOnSignal(signals),
    progress: (progress) => {
      streams.write(config.mode, progress.points);
      printer.update(progress);
      if (!report.abortOnFail || abortedFor.length > 0) return;
      abortedFor = breachedLive(report.thresholds, progress);
      if (abortedFor.length > 0) signals.stopNow();
    },
  };
  const outcome = await executeRun(config, io, {
    sink,
    apdexMs: report.apdexMs,
    run: () => runRecord(config),
    receive,
    onDrain: config.quiet ? undefined : drainPrinter(process.stderr),
  });
  signals.attach(null);
  streams.finish(outcome.result);
  printer.finish();
  if (signals.received !== null) outcome.result.stoppedBy = signals.received;
  const breaches = applyThresholds(outcome.result, report.thresholds);
  const written = writeOutput(
    { quiet: config.quiet, summary: renderSummary, exports },
    outcome.result,
  );
  mark("output written");
  if (abortedFor.length > 0) {
    process.stderr.write(`mailvolley: --abort-on-fail stopped the run: ${abortedFor.join("; ")}\n`);
  }
  printBreaches(breaches);
  const generatorBound = generatorGate([outcome.result], report.failOnGeneratorBound);
  const code = loadExitCode({
    signal: signals.received,
    breached: breaches.length > 0 || abortedFor.length > 0 || generatorBound,
    failed: outcome.exitCode !== 0,
  });
  return written || code !== EXIT.ok ? code : EXIT.failed;
}

/** Non-TTY: one drain line per this many seconds (the drain reports once a second). */
const DRAIN_LOG_EVERY = 10;

/**
 * The messages still inside the gateway while the run drains: on a TTY one line rewritten in
 * place, elsewhere a line every DRAIN_LOG_EVERY seconds.
 */
export function drainPrinter(stream: NodeJS.WriteStream): (inside: number) => void {
  let calls = 0;
  return (inside) => {
    // -1: the drain is over; a live line makes way for the summary.
    if (inside < 0) {
      if (stream.isTTY && calls > 0) stream.write("\r\u001b[K");
      return;
    }
    const line = `mailvolley: draining: ${inside} still inside the gateway`;
    if (stream.isTTY) stream.write(`\r${line}\u001b[K`);
    else if (calls % DRAIN_LOG_EVERY === 0) stream.write(`${line}\n`);
    calls++;
  };
}

/** A shard waiting for --start-at says so, so a quiet terminal is not taken for a hang. */
function announceStart(config: RunCommandConfig["run"]): void {
  const { shard, startAt } = config;
  if (startAt === null || startAt <= Date.now()) return;
  const who = shard ? `shard ${shard.index}/${shard.count}` : "the run";
  const inSeconds = Math.ceil((startAt - Date.now()) / 1000);
  process.stderr.write(
    `mailvolley: ${who} starts at ${new Date(startAt).toISOString()} (in ${inSeconds}s)\n`,
  );
}

/** The line a first signal prints: what happens now, and how to cut it short. */
export function announceStop(signal: StopSignal, graceMs: number): void {
  const again = signal === "SIGINT" ? "Ctrl-C again" : "another signal";
  process.stderr.write(
    `\nmailvolley: ${signal}: stopping; messages in flight get ${(graceMs / 1000).toFixed(1)}s` +
      ` (${again} cuts them off)\n`,
  );
}
