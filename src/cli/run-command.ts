/**
 * `mailvolley run [target]`: the command line → RunCommandConfig (config/command-config.ts), the run,
 * its live progress and signals, the reports, the exit code.
 */
import type { Argv } from "yargs";
import { checkAddresses } from "../config/address-checks.js";
import { buildRunCommandConfig } from "../config/command-config.js";
import { REPEAT_OPTIONS, RUN_OPTIONS } from "../config/option-table.js";
import { buildRepeatOptions, type RepeatOptions } from "../config/repeat-options.js";
import { newRunId, withConfigHash } from "../config/run-config.js";
import { runRecord } from "../config/run-record.js";
import { repeatSection } from "../diff/repeat.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderRunSummary } from "../report/repeat.js";
import { concluded } from "../result/assemble.js";
import { exitCodeOf } from "../result/exit-code.js";
import type { Result } from "../result/result.js";
import { breachedLive } from "../result/threshold-verdicts.js";
import { executeRun, type RunIo } from "../run/run.js";
import { printable } from "../stats/printable.js";
import { mark } from "../stats/timeline.js";
import { EXIT, type ExitCode, loadExitCode, type StopSignal } from "./exit-codes.js";
import { type CommandArgv, givenOptions, loadOptions, tableOptions } from "./load-options.js";
import { readNamedInputs } from "./named-inputs.js";
import { checkWritable, type Export, exportsOf, writeOutput } from "./output.js";
import { pauseCountdown, progressPrinter } from "./progress.js";
import { applyThresholds, generatorGate, printBreaches } from "./report-command.js";
import { checkSeriesOut, SeriesStreams } from "./series-stream.js";
import { StopSignals } from "./signals.js";
import { noteDefaultMessages, noteOptions, warnPlaintextAuth } from "./start-warnings.js";

export const runCommand = {
  command: "run [target]",
  describe: "Send load to an SMTP server (no target: self-test against the built-in sink)",
  builder: (yargs: Argv) =>
    tableOptions(loadOptions(yargs), REPEAT_OPTIONS)
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
        ["$0 run 127.0.0.1:2525 --repeat 5 --json a.json", "five runs: each figure's mean ± CI"],
      ]),
  handler: async (argv: CommandArgv) => {
    mark("command started");
    const given = givenOptions(argv);
    await readNamedInputs("run", given);
    const { run: config, report, sink, receive } = buildRunCommandConfig(given);
    const repeat = buildRepeatOptions(given);
    const exports = exportsOf<Result>([
      ["--json", config.json, renderJson],
      ["--html", report.html, (result) => renderHtml([result])],
    ]);
    checkWritable([...exports, ...report.seriesOut.map(({ path }) => ({ option: "--out", path }))]);
    warnPlaintextAuth(config, config.target);
    noteDefaultMessages(given, config);
    noteOptions(config);
    await checkAddresses(config.target, config.sourceAddresses, config.timeouts.connect);
    checkSeriesOut(report.seriesOut);
    // Listening from here to the last byte written: a signal never kills the process half-way.
    // Between --repeat's runs nothing is in flight: a signal only keeps the next run from starting.
    const made: Result[] = [];
    const signals = new StopSignals((signal, running) => {
      if (draining.now) {
        process.stderr.write(
          `\nmailvolley: ${signal}: the drain ends now; what has not arrived is not waited for\n`,
        );
      } else if (running || made.length === 0) announceStop(signal, config.load.graceMs);
      else process.stderr.write(`\nmailvolley: ${signal}: stopping; no further run\n`);
    });
    const streams = new SeriesStreams(report.seriesOut, config.intervalMs);
    try {
      process.exitCode = await runAndReport(
        config,
        report,
        { sink, receive },
        exports,
        { signals, streams },
        repeat,
        made,
      );
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

/** Each of --repeat's runs (one without it), `--pause` apart; `made` holds each as it ends. */
async function runEach(
  config: RunCommandConfig["run"],
  report: RunCommandConfig["report"],
  receivers: Pick<RunCommandConfig, "sink" | "receive">,
  io: { signals: StopSignals; streams: SeriesStreams },
  repeat: RepeatOptions,
  made: Result[],
): Promise<RunOutcome[]> {
  const { signals, streams } = io;
  const runs: RunOutcome[] = [];
  // The first run always starts (a signal already held applies at its start, as without
  // --repeat); after a signal no further run does.
  for (let i = 0; i < repeat.count; i++) {
    if (
      i > 0 &&
      (signals.received !== null || (await pauseBefore(i, repeat, signals, config.quiet)))
    ) {
      break;
    }
    // Each run its own id (its messages' X-Mailvolley-Run); --start-at starts the first only.
    const again =
      i === 0 ? config : withConfigHash({ ...config, runId: newRunId(), startAt: null });
    if (repeat.count > 1 && !config.quiet) {
      process.stderr.write(`mailvolley: run ${i + 1} of ${repeat.count}…\n`);
    }
    if (i > 0) streams.begin();
    runs.push(await runOnce(again, report, receivers, io));
    made.push(runs[i].result);
  }
  return runs;
}

/** The run (each of --repeat's runs) with its progress, then its reports; returns the exit code. */
async function runAndReport(
  config: RunCommandConfig["run"],
  report: RunCommandConfig["report"],
  receivers: Pick<RunCommandConfig, "sink" | "receive">,
  exports: Export<Result>[],
  io: { signals: StopSignals; streams: SeriesStreams },
  repeat: RepeatOptions,
  made: Result[],
): Promise<ExitCode> {
  const { signals } = io;
  const runs = await runEach(config, report, receivers, io, repeat, made);
  const last = runs.length - 1;
  const spread =
    repeat.count > 1
      ? repeatSection(
          runs.map((r) => r.result),
          repeat.pauseMs,
        )
      : undefined;
  const judged = runs.map((r, i) =>
    applyThresholds(
      i === last && spread ? concluded(r.result, { repeat: spread }) : r.result,
      report.thresholds,
    ),
  );
  const result = judged[last].result;
  const breaches = judged.flatMap((j, i) =>
    j.breaches.map((line) => (runs.length > 1 ? `run ${i + 1}: ${line}` : line)),
  );
  const written = writeOutput({ quiet: config.quiet, summary: renderRunSummary, exports }, result);
  mark("output written");
  const abortedFor = runs.flatMap((r) => r.abortedFor);
  if (abortedFor.length > 0) {
    process.stderr.write(`mailvolley: --abort-on-fail stopped the run: ${abortedFor.join("; ")}\n`);
  }
  printBreaches(breaches);
  const generatorBound = generatorGate(
    runs.map((r) => r.result),
    report.failOnGeneratorBound,
  );
  // Each run's own code (result/exit-code.ts), then what the command adds: a signal, an abort.
  const codes = judged.map((j) => exitCodeOf(j.result, report.thresholds));
  const code = loadExitCode({
    signal: signals.received,
    breached: codes.includes(EXIT.thresholds) || abortedFor.length > 0 || generatorBound,
    failed: codes.includes(EXIT.failed),
  });
  return written || code !== EXIT.ok ? code : EXIT.failed;
}

/** --pause before run `i` (from 0) of --repeat; true when a signal ended it: no further run. */
async function pauseBefore(
  i: number,
  repeat: RepeatOptions,
  signals: StopSignals,
  quiet: boolean,
): Promise<boolean> {
  if (repeat.pauseMs <= 0) return signals.received !== null;
  const next = `run ${i + 1} of ${repeat.count}`;
  if (!quiet) {
    process.stderr.write(
      `mailvolley: pausing ${(repeat.pauseMs / 1000).toFixed(1)}s before ${next}\n`,
    );
  }
  const clear = quiet ? () => {} : pauseCountdown(process.stderr, repeat.pauseMs, next);
  await signals.pause(repeat.pauseMs).finally(clear);
  return signals.received !== null;
}

interface RunOutcome {
  result: Result;
  abortedFor: string[];
}

/** One run with its live progress; its Result and why it was aborted. */
async function runOnce(
  config: RunCommandConfig["run"],
  report: RunCommandConfig["report"],
  { sink, receive }: Pick<RunCommandConfig, "sink" | "receive">,
  { signals, streams }: { signals: StopSignals; streams: SeriesStreams },
): Promise<RunOutcome> {
  const printer = progressPrinter(process.stderr, config.quiet || config.verbose, {
    messages: config.messages,
    durationMs: config.load.durationMs,
  });
  let abortedFor: string[] = [];
  const io: RunIo = {
    // Reply text is the server's: escaped before it reaches the terminal.
    trace: config.verbose ? (line) => process.stderr.write(`${printable(line)}\n`) : undefined,
    onStart: (stop, drain) => {
      draining.now = false; // each of --repeat's runs starts with its load, not a drain
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
  // With --receive the run drains (every message joined, or --drain-timeout) before it returns.
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
  const result = concluded(outcome.result, { stoppedBy: signals.received });
  return { result, abortedFor };
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
