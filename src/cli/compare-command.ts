/**
 * `mailvolley compare [target] [run options]`: the same load twice, with a connection per
 * message and with session reuse (in --order, --pause between), then both side by side.
 * Without a target each run gets a fresh built-in sink, which can play a gateway under limits
 * (--sink-max-connection-rate and friends) to show what reuse dodges.
 */
import type { Argv } from "yargs";
import { buildCompareCommandConfig } from "../config/command-config.js";
import { COMPARE_OPTIONS, RUN_OPTIONS } from "../config/option-table.js";
import type { RunConfig } from "../config/run-config.js";
import { runRecord } from "../config/run-record.js";
import { renderCompare, runLabel } from "../report/compare.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderSummary } from "../report/terminal.js";
import { deliveryFailed, executeRun, type RunExtras, type RunIo } from "../run/run.js";
import type { Mode, Result } from "../stats/result.js";
import { EXIT, loadExitCode } from "./exit-codes.js";
import {
  type CommandArgv,
  checkEmbeddedSink,
  givenOptions,
  loadOptions,
  tableOptions,
} from "./load-options.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { pauseCountdown, progressPrinter } from "./progress.js";
import { applyThresholds, compareDoc, generatorGate, printBreaches } from "./report-command.js";
import { announceStop } from "./run-command.js";
import { checkSeriesOut, SeriesStreams } from "./series-stream.js";
import { StopSignals } from "./signals.js";
import { warnPlaintextAuth } from "./warnings.js";

export const compareCommand = {
  command: "compare [target]",
  describe: "Run the same load per-message and with session reuse, and show them side by side",
  builder: (yargs: Argv) =>
    tableOptions(loadOptions(yargs), COMPARE_OPTIONS)
      // compare runs both modes (--order picks which first), so --mode is not its option.
      .hide("mode")
      .positional("target", {
        type: "string",
        describe: `${RUN_OPTIONS.target.describe} (none: two built-in sinks)`,
      }),
  handler: async (argv: CommandArgv) => {
    const {
      runs: configs,
      pauseMs,
      report,
      sink,
      receive,
    } = buildCompareCommandConfig(givenOptions(argv));
    if (configs[0].target === null || receive !== null) checkEmbeddedSink(sink);
    warnPlaintextAuth(configs[0], configs[0].target);
    const { json, quiet } = configs[0];
    const exports = exportsOf<Result[]>([
      ["--json", json, (runs) => renderJson(compareDoc(runs, notRun(configs, runs)))],
      ["--html", report.html, (runs) => (runs.length > 0 ? renderHtml(runs) : null)],
    ]);
    checkWritable(exports);
    checkSeriesOut(report.seriesOut);
    const signals = new StopSignals((signal, running) => {
      if (running) announceStop(signal, configs[0].load.graceMs);
      else process.stderr.write(`\nmailvolley compare: ${signal}: stopping; no further run\n`);
    });
    const streams = new SeriesStreams(report.seriesOut, configs[0].intervalMs);
    try {
      // --receive: each run gets its own receiving sink at the address, one after the other.
      const extras = { sink, apdexMs: report.apdexMs, receive };
      const runs = await runBoth(configs, pauseMs, { signals, streams }, extras);
      const breaches = runs.flatMap((r) =>
        applyThresholds(r, report.thresholds).map((line) => `${r.mode}: ${line}`),
      );
      const written = writeOutput({ quiet, summary: compareSummary, exports }, runs);
      printBreaches(breaches);
      printUndelivered(runs);
      const generatorBound = generatorGate(runs, report.failOnGeneratorBound);
      const sinkDiffers = runs.some(
        (r) => r.sink !== undefined && r.sink.messagesAccepted !== r.messages.accepted,
      );
      const code = loadExitCode({
        signal: signals.received,
        breached: breaches.length > 0 || generatorBound,
        failed: sinkDiffers || runs.some((r) => r.delivery && deliveryFailed(r.delivery)),
      });
      process.exitCode = written || code !== EXIT.ok ? code : EXIT.failed;
    } finally {
      streams.close();
      signals.release();
    }
  },
};

/**
 * The two runs in order, --pause between. A signal drains the run in hand (its in-flight
 * messages get --grace, as in `run`), ends a pause at once, and starts no further run.
 */
async function runBoth(
  configs: readonly RunConfig[],
  pauseMs: number,
  { signals, streams }: { signals: StopSignals; streams: SeriesStreams },
  extras: RunExtras,
): Promise<Result[]> {
  const runs: Result[] = [];
  const quiet = configs[0].quiet;
  for (const [i, config] of configs.entries()) {
    if (i > 0 && pauseMs > 0) {
      if (!quiet) {
        process.stderr.write(
          `mailvolley compare: pausing ${(pauseMs / 1000).toFixed(1)}s before the ${runName(config, configs)} run\n`,
        );
      }
      const clear = quiet
        ? () => {}
        : pauseCountdown(process.stderr, pauseMs, runName(config, configs));
      await signals.pause(pauseMs).finally(clear);
    }
    if (signals.received !== null) break;
    if (!quiet) process.stderr.write(`mailvolley compare: ${runName(config, configs)} run…\n`);
    const printer = progressPrinter(process.stderr, config.quiet || config.verbose, {
      messages: config.messages,
      durationMs: config.load.durationMs,
    });
    streams.begin();
    const io: RunIo = {
      onStart: (stop, drain) => signals.attach({ stop, drain }),
      onDrainStart: (end) => signals.attach({ stop: end, drain: end }),
      progress: (progress) => {
        streams.write(runName(config, configs), progress.points);
        printer.update(progress);
      },
    };
    const outcome = await executeRun(config, io, { ...extras, run: () => runRecord(config) });
    signals.attach(null);
    streams.finish(outcome.result, runName(config, configs));
    printer.finish();
    if (signals.received !== null) outcome.result.stoppedBy = signals.received;
    runs.push(outcome.result);
  }
  const skipped = notRun(configs, runs);
  if (skipped.length > 0 && !quiet) {
    process.stderr.write(
      `mailvolley compare: ${signals.received}: the ${skipped.join(" and ")} run was not started\n`,
    );
  }
  return runs;
}

/** Why a run through the gateway fails the compare (exit 1): its messages not delivered. */
function printUndelivered(runs: readonly Result[]): void {
  for (const r of runs) {
    const d = r.delivery;
    if (!d || !deliveryFailed(d)) continue;
    const states = (["lost", "partial", "bounced", "duplicated"] as const)
      .filter((state) => d[state] > 0)
      .map((state) => `${state} ${d[state]}`);
    process.stderr.write(
      `mailvolley compare: the ${runLabel(r, runs)} run through the gateway: ${states.join(", ")} of ${d.accepted} accepted (exit 1)\n`,
    );
  }
}

/** The modes a signal kept from running. */
function notRun(configs: readonly RunConfig[], runs: readonly Result[]): Mode[] {
  return configs.slice(runs.length).map((c) => c.mode);
}

/** Both runs side by side; a compare cut short by a signal shows the run it has. */
function compareSummary(runs: Result[], options: { color: boolean }): string | null {
  if (runs.length >= 2) return renderCompare(runs, options);
  return runs.length === 1 ? renderSummary(runs[0], options) : null;
}

/** The run's name as the report gives it: with two per-message runs, "per-message full" or "… resumed". */
function runName(config: RunConfig, configs: readonly RunConfig[]): string {
  if (configs.filter((c) => c.mode === config.mode).length < 2) return config.mode;
  return `${config.mode} ${config.tlsResume ? "resumed" : "full"}`;
}
