/**
 * `mailvolley compare [target] [run options]`: the same load twice, with a connection per
 * message and with session reuse (in --order, --pause between), then both side by side.
 * Without a target each run gets a fresh built-in sink, which can play a gateway under limits
 * (--sink-max-connection-rate and friends) to show what reuse dodges.
 */
import type { Argv } from "yargs";
import { buildCompareConfig } from "../config/load-config.js";
import { COMPARE_OPTIONS, RUN_OPTIONS } from "../config/option-table.js";
import { runRecord } from "../config/run-record.js";
import { renderCompare } from "../report/compare.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { executeRun } from "../run/run.js";
import type { Result } from "../stats/result.js";
import { loadExitCode } from "./exit-codes.js";
import { type CommandArgv, givenOptions, loadOptions, tableOptions } from "./load-options.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { applyThresholds, compareDoc, generatorGate, printBreaches } from "./report-command.js";
import { warnPlaintextAuth } from "./warnings.js";

export const compareCommand = {
  command: "compare [target]",
  describe: "Run the same load per-message and with session reuse, and show them side by side",
  builder: (yargs: Argv) =>
    tableOptions(loadOptions(yargs), COMPARE_OPTIONS).positional("target", {
      type: "string",
      describe: `${RUN_OPTIONS.target.describe} (none: two built-in sinks)`,
    }),
  handler: async (argv: CommandArgv) => {
    const { runs: configs, pauseMs, report, sink } = buildCompareConfig(givenOptions(argv));
    warnPlaintextAuth(configs[0], configs[0].target);
    const { json, quiet } = configs[0];
    const exports = exportsOf<Result[]>([
      ["--json", json, (runs) => renderJson(compareDoc(runs))],
      ["--html", report.html, (runs) => (runs.length > 0 ? renderHtml(runs) : null)],
    ]);
    checkWritable(exports);
    const runs: Result[] = [];
    let interrupted = false;
    let stopCurrent: (() => void) | null = null;
    const onSigint = () => {
      interrupted = true;
      stopCurrent?.();
    };
    process.on("SIGINT", onSigint);
    try {
      for (const [i, config] of configs.entries()) {
        if (interrupted) break;
        if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        if (!quiet) process.stderr.write(`mailvolley compare: ${config.mode} run…\n`);
        const io = { onStart: (stop: () => void) => (stopCurrent = stop) };
        const outcome = await executeRun(config, io, {
          sink,
          apdexMs: report.apdexMs,
          run: runRecord(config),
        });
        runs.push(outcome.result);
      }
    } finally {
      process.off("SIGINT", onSigint);
    }
    const breaches = runs.flatMap((r) =>
      applyThresholds(r, report.thresholds).map((line) => `${r.mode}: ${line}`),
    );
    const summary = (all: Result[], options: { color: boolean }) =>
      all.length === 2 ? renderCompare(all, options) : null;
    writeOutput({ quiet, summary, exports }, runs);
    printBreaches(breaches);
    const generatorBound = generatorGate(runs, report.failOnGeneratorBound);
    const sinkDiffers = runs.some(
      (r) => r.sink !== undefined && r.sink.messagesAccepted !== r.messages.accepted,
    );
    process.exitCode = loadExitCode({
      interrupted,
      breached: breaches.length > 0 || generatorBound,
      failed: sinkDiffers,
    });
  },
};
