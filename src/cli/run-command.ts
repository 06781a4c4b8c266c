/**
 * `mailvolley run [target]`: the command line → LoadConfig (config/load-config.ts), the run,
 * its live progress and Ctrl-C, the reports, the exit code.
 */
import type { Argv } from "yargs";
import { buildLoadConfig } from "../config/load-config.js";
import { RUN_OPTIONS } from "../config/option-table.js";
import type { RunConfig } from "../config/run-config.js";
import { runRecord } from "../config/run-record.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderSummary } from "../report/terminal.js";
import type { Progress } from "../run/load.js";
import { executeRun, type RunIo } from "../run/run.js";
import type { Result } from "../stats/result.js";
import { breachedLive } from "../stats/thresholds.js";
import { loadExitCode } from "./exit-codes.js";
import { type CommandArgv, givenOptions, loadOptions } from "./load-options.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { progressPrinter } from "./progress.js";
import { applyThresholds, generatorGate, printBreaches } from "./report-command.js";
import { warnPlaintextAuth } from "./warnings.js";

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
    const { run: config, report, sink } = buildLoadConfig(givenOptions(argv));
    const exports = exportsOf<Result>([
      ["--json", config.json, renderJson],
      ["--html", report.html, (result) => renderHtml([result])],
    ]);
    checkWritable(exports);
    warnPlaintextAuth(config, config.target);
    const printer = progressPrinter(process.stderr, config.quiet || config.verbose, {
      messages: config.messages,
      durationMs: config.load.durationMs,
    });
    let abortedFor: string[] = [];
    const live = liveControl(config, (progress, stop) => {
      printer.update(progress);
      if (!report.abortOnFail || abortedFor.length > 0) return;
      abortedFor = breachedLive(report.thresholds, progress);
      if (abortedFor.length > 0) stop();
    });
    const outcome = await executeRun(config, live.io, {
      sink,
      apdexMs: report.apdexMs,
      run: runRecord(config),
    });
    live.release();
    printer.finish();
    const breaches = applyThresholds(outcome.result, report.thresholds);
    writeOutput({ quiet: config.quiet, summary: renderSummary, exports }, outcome.result);
    if (abortedFor.length > 0) {
      process.stderr.write(
        `mailvolley: --abort-on-fail stopped the run: ${abortedFor.join("; ")}\n`,
      );
    }
    printBreaches(breaches);
    const generatorBound = generatorGate([outcome.result], report.failOnGeneratorBound);
    process.exitCode = loadExitCode({
      interrupted: live.interrupted(),
      breached: breaches.length > 0 || abortedFor.length > 0 || generatorBound,
      failed: outcome.exitCode !== 0,
    });
  },
};

/**
 * The run's io: the -v trace, progress (with a way to stop the run), and Ctrl-C: the first
 * drains within the grace period, the second cuts the messages in flight off.
 */
function liveControl(
  config: RunConfig,
  onProgress: (progress: Progress, stop: () => void) => void,
) {
  let interrupted = false;
  let stopRun: () => void = () => {};
  let onSigint: (() => void) | null = null;
  const io: RunIo = {
    trace: config.verbose ? (line) => process.stderr.write(`${line}\n`) : undefined,
    progress: (p) => onProgress(p, () => stopRun()),
    onStart: (stop, drain) => {
      stopRun = stop;
      onSigint = () => {
        if (interrupted) {
          stop();
          return;
        }
        interrupted = true;
        const grace = (config.load.graceMs / 1000).toFixed(1);
        process.stderr.write(
          `\nmailvolley: stopping; messages in flight get ${grace}s (Ctrl-C again to cut them off)\n`,
        );
        drain();
      };
      process.on("SIGINT", onSigint);
      if (!config.quiet) announceStart(config); // once Ctrl-C is ours
    },
  };
  return {
    io,
    interrupted: () => interrupted,
    release: () => {
      if (onSigint) process.off("SIGINT", onSigint);
    },
  };
}

/** A shard waiting for --start-at says so, so a quiet terminal is not taken for a hang. */
function announceStart(config: RunConfig): void {
  const { shard, startAt } = config;
  if (startAt === null || startAt <= Date.now()) return;
  const who = shard ? `shard ${shard.index}/${shard.count}` : "the run";
  const inSeconds = Math.ceil((startAt - Date.now()) / 1000);
  process.stderr.write(
    `mailvolley: ${who} starts at ${new Date(startAt).toISOString()} (in ${inSeconds}s)\n`,
  );
}
