/**
 * `mailvolley compare [target] [run options]`: the same load twice, with a connection per
 * message and with session reuse (in --order, --pause between), then both side by side.
 * Without a target each run gets a fresh built-in sink, which can play a gateway under limits
 * (--sink-max-connection-rate and friends) to show what reuse dodges.
 */
import type { Argv } from "yargs";
import { checkAddresses } from "../config/address-checks.js";
import { buildCompareCommandConfig } from "../config/command-config.js";
import { COMPARE_OPTIONS, REPEAT_OPTIONS, RUN_OPTIONS } from "../config/option-table.js";
import { buildRepeatOptions } from "../config/repeat-options.js";
import { newRunId, type RunConfig, withConfigHash } from "../config/run-config.js";
import { runRecord } from "../config/run-record.js";
import { headlineFigures } from "../diff/headline-figures.js";
import { ratioSpreads, repeatSection } from "../diff/repeat.js";
import { type CompareRepeat, renderCompare, runLabel } from "../report/compare.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderCompareRepeat } from "../report/repeat.js";
import { renderSummary } from "../report/terminal.js";
import { sinkAgrees } from "../result/accounting.js";
import { concluded } from "../result/assemble.js";
import type { Mode, Result } from "../result/result.js";
import { deliveryFailed, executeRun, type RunExtras, type RunIo } from "../run/run.js";
import { EXIT, loadExitCode } from "./exit-codes.js";
import { type CommandArgv, givenOptions, loadOptions, tableOptions } from "./load-options.js";
import { readNamedInputs } from "./named-inputs.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { pauseCountdown, progressPrinter } from "./progress.js";
import { applyThresholds, compareDoc, generatorGate, printBreaches } from "./report-command.js";
import { announceStop } from "./run-command.js";
import { checkSeriesOut, SeriesStreams } from "./series-stream.js";
import { StopSignals } from "./signals.js";
import { noteOptions, warnPlaintextAuth } from "./start-warnings.js";

export const compareCommand = {
  command: "compare [target]",
  describe: "Run the same load per-message and with session reuse, and show them side by side",
  builder: (yargs: Argv) =>
    tableOptions(tableOptions(loadOptions(yargs), COMPARE_OPTIONS), {
      repeat: REPEAT_OPTIONS.repeat,
    })
      // compare runs both modes (--order picks which first), so --mode is not its option.
      .hide("mode")
      .positional("target", {
        type: "string",
        describe: `${RUN_OPTIONS.target.describe} (none: two built-in sinks)`,
      }),
  handler: async (argv: CommandArgv) => {
    const given = givenOptions(argv);
    await readNamedInputs("compare", given);
    const { runs: configs, pauseMs, report, sink, receive } = buildCompareCommandConfig(given);
    const { count: rounds } = buildRepeatOptions(given);
    warnPlaintextAuth(configs[0], configs[0].target);
    noteOptions(configs[0]);
    const { target, sourceAddresses, timeouts } = configs[0];
    await checkAddresses(target, sourceAddresses, timeouts.connect);
    const { json, quiet } = configs[0];
    let repeat: CompareRepeat | undefined;
    const exports = exportsOf<Result[]>([
      ["--json", json, (runs) => renderJson(compareDoc(runs, notRun(configs, runs), repeat))],
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
      const all = await runBoth(
        inRounds(configs, rounds),
        pauseMs,
        { signals, streams },
        extras,
        configs.length,
      );
      const { runs: shown, repeat: repeated } = lastRound(all, configs, rounds, pauseMs);
      repeat = repeated;
      const breaches = all.flatMap((r) =>
        applyThresholds(r, report.thresholds).breaches.map((line) => `${r.mode}: ${line}`),
      );
      const runs = shown.map((r) => applyThresholds(r, report.thresholds).result);
      const summary = (shown: Result[], options: { color: boolean }) => {
        const text = compareSummary(shown, options);
        return text !== null && repeat ? renderCompareRepeat(text, shown, repeat, options) : text;
      };
      const written = writeOutput({ quiet, summary, exports }, runs);
      printBreaches(breaches);
      printUndelivered(all);
      const generatorBound = generatorGate(all, report.failOnGeneratorBound);
      const sinkDiffers = all.some((r) => !sinkAgrees(r));
      const code = loadExitCode({
        signal: signals.received,
        breached: breaches.length > 0 || generatorBound,
        failed: sinkDiffers || all.some((r) => r.delivery && deliveryFailed(r.delivery)),
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
  perRound = configs.length,
): Promise<Result[]> {
  const runs: Result[] = [];
  const quiet = configs[0].quiet;
  // A run is named within its round: --repeat lists every mode once a round.
  const round = configs.slice(0, perRound);
  for (const [i, config] of configs.entries()) {
    if (i > 0 && pauseMs > 0) {
      if (!quiet) {
        process.stderr.write(
          `mailvolley compare: pausing ${(pauseMs / 1000).toFixed(1)}s before the ${runName(config, round)} run\n`,
        );
      }
      const clear = quiet
        ? () => {}
        : pauseCountdown(process.stderr, pauseMs, runName(config, round));
      await signals.pause(pauseMs).finally(clear);
    }
    if (signals.received !== null) break;
    if (!quiet) process.stderr.write(`mailvolley compare: ${runName(config, round)} run…\n`);
    const printer = progressPrinter(process.stderr, config.quiet || config.verbose, {
      messages: config.messages,
      durationMs: config.load.durationMs,
    });
    streams.begin();
    const io: RunIo = {
      onStart: (stop, drain) => signals.attach({ stop, drain }),
      onDrainStart: (end) => signals.attach({ stop: end, drain: end }),
      progress: (progress) => {
        streams.write(runName(config, round), progress.points);
        printer.update(progress);
      },
    };
    const outcome = await executeRun(config, io, { ...extras, run: () => runRecord(config) });
    signals.attach(null);
    streams.finish(outcome.result, runName(config, round));
    printer.finish();
    runs.push(concluded(outcome.result, { stoppedBy: signals.received }));
  }
  const skipped = notRun(configs, runs);
  if (skipped.length > 0 && !quiet) {
    process.stderr.write(
      `mailvolley compare: ${signals.received}: the ${skipped.join(" and ")} run was not started\n`,
    );
  }
  return runs;
}

/** --repeat: the runs of `rounds` rounds, each a fresh run id (--start-at starts the first). */
function inRounds(configs: readonly RunConfig[], rounds: number): RunConfig[] {
  const again = (c: RunConfig) => withConfigHash({ ...c, runId: newRunId(), startAt: null });
  return Array.from({ length: rounds }, (_, r) => (r === 0 ? configs : configs.map(again))).flat();
}

/**
 * The last whole round of --repeat's runs (what the report shows), each run with its mode's
 * spread over the whole rounds, and the ratios reuse / per-message per round. A round cut
 * short by a signal is left out of the spreads; without a whole round, the runs as they are.
 */
function lastRound(
  all: Result[],
  configs: readonly RunConfig[],
  rounds: number,
  pauseMs: number,
): { runs: Result[]; repeat?: CompareRepeat } {
  const k = configs.length;
  const whole = Math.floor(all.length / k);
  if (rounds < 2 || whole < 1) return { runs: all.slice(-k) };
  const column = (i: number) => Array.from({ length: whole }, (_, r) => all[r * k + i]);
  const runs = all
    .slice((whole - 1) * k, whole * k)
    .map((run, i) => concluded(run, { repeat: repeatSection(column(i), pauseMs) }));
  const base = configs.findIndex((c) => c.mode === "per-message");
  const reuse = configs.findIndex((c) => c.mode === "reuse");
  const figures = (i: number) => column(i).map(headlineFigures);
  return { runs, repeat: { rounds: whole, ratios: ratioSpreads(figures(base), figures(reuse)) } };
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
