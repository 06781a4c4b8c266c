/**
 * `mailvolley report result.json --html out.html [--granularity 10s]`, which re-renders a saved
 * result (or compare result) without running anything: JMeter's `-g`; and the threshold verdicts
 * `run` and `compare` print.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { parseDuration } from "../config/parse.js";
import { checkResultShape } from "../config/result-shape.js";
import { COMPARE_SCHEMA, type Comparison, renderCompare } from "../report/compare.js";
import { thresholdActual } from "../report/figures.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderRunSummary } from "../report/repeat.js";
import { generatorBoundLine } from "../report/verdict.js";
import { concluded } from "../result/assemble.js";
import { type Mode, RESULT_SCHEMA, type Result } from "../result/result.js";
import { seriesResult, seriesSnapshot } from "../result/summarise.js";
import { evaluateThresholds, type Threshold } from "../result/threshold-verdicts.js";
import { regroupSeries } from "../stats/series.js";
import { readInputFile } from "../usage/input-file.js";
import { UsageError } from "../usage/usage-error.js";
import { arrivalFiles, joinArrivalFiles } from "./arrivals.js";
import { EXIT } from "./exit-codes.js";
import { checkWritable, exportsOf, type Output, writeOutput } from "./output.js";
import { readerSignals, type StopSignals, stoppedBeforeWriting } from "./signals.js";

/**
 * The Result with the thresholds evaluated into it (so JSON and HTML show them), and the
 * breached lines, one per failed threshold.
 */
export function applyThresholds(
  result: Result,
  thresholds: readonly Threshold[],
): { result: Result; breaches: string[] } {
  if (thresholds.length === 0) return { result, breaches: [] };
  const outcomes = evaluateThresholds(thresholds, result);
  const breaches = outcomes
    .filter((t) => !t.passed)
    .map((t) => `${t.expression} (actual ${thresholdActual(t)})`);
  return { result: concluded(result, { thresholds: outcomes }), breaches };
}

export function printBreaches(lines: readonly string[]): void {
  for (const line of lines) process.stderr.write(`mailvolley: threshold breached: ${line}\n`);
}

/**
 * --fail-on-generator-bound: a line on stderr for each run whose rate mailvolley set; true when
 * any did (the run then exits 99, as for a breached threshold).
 */
export function generatorGate(results: readonly Result[], enabled: boolean): boolean {
  if (!enabled) return false;
  const lines = results.flatMap((r) => generatorBoundLine(r) ?? []);
  for (const line of lines)
    process.stderr.write(`mailvolley: --fail-on-generator-bound: ${line}\n`);
  return lines.length > 0;
}

/** `report` and `merge`: the arrivals a sink on another host recorded. */
export const ARRIVALS_OPTION = {
  // Not an array option: repeated, yargs gives every value; one value a flag, so the option
  // never swallows the result files after it.
  type: "string",
  describe:
    "Join with the arrivals FILE a `mailvolley sink --json` recorded (the run used --receive elsewhere); repeatable",
} as const;

type ReportArgv = ArgumentsCamelCase<Record<string, unknown>>;

/**
 * Runs `read` (the inputs of a command that only reads, then writes) with a signal that a
 * SIGINT or SIGTERM fires: a FIFO waiting for its writer, or a long read, ends there, and
 * nothing has been written. Null when a signal ended it.
 */
export async function readingUntilSignal<T>(
  signals: StopSignals,
  read: (signal: AbortSignal) => Promise<T>,
): Promise<T | null> {
  const reading = new AbortController();
  const abort = () => reading.abort();
  signals.attach({ drain: abort, stop: abort });
  try {
    return await read(reading.signal);
  } catch (error) {
    if (reading.signal.aborted) return null;
    throw error;
  } finally {
    signals.attach(null);
  }
}

/**
 * A saved result or compare result, checked enough to render. A pipe is read too (`report
 * <(zcat r.json.gz)`), until `signal` ends the wait.
 */
export async function readResultFile(path: string, signal?: AbortSignal): Promise<Result[]> {
  const text = await readInputFile(path, {
    option: "result",
    what: "JSON result",
    pipes: true,
    signal,
  });
  let parsed: { schema?: string; runs?: Result[] };
  try {
    parsed = JSON.parse(text.toString("utf8"));
  } catch (error) {
    throw new UsageError("result", `cannot read "${path}": ${(error as Error).message}`);
  }
  const runs = Array.isArray(parsed.runs) ? parsed.runs : [parsed as Result];
  for (const run of runs) checkResultShape(run, path, RESULT_SCHEMA);
  return runs;
}

/** The runs with their series in intervals of `granularityMs`. */
export function regranulate(runs: Result[], granularityMs: number): Result[] {
  return runs.map((run) => {
    if (!run.series) return run;
    const recorded = run.series.intervalMs;
    if (granularityMs % recorded !== 0) {
      throw new UsageError(
        "--granularity",
        `${granularityMs}ms is not a whole multiple of the recorded ${recorded}ms interval`,
      );
    }
    const grouped = regroupSeries(seriesSnapshot(run.series), granularityMs);
    return { ...run, series: seriesResult(grouped) };
  });
}

export const reportCommand = {
  command: "report <result>",
  describe: "Re-render a saved JSON result (run or compare) as text, HTML or JSON",
  builder: (yargs: Argv) =>
    yargs
      .positional("result", { type: "string", describe: "A JSON file written by --json" })
      // requiresArg: a bare --html is refused before the summary prints, not after.
      .option("html", {
        type: "string",
        requiresArg: true,
        describe: "Write the HTML report to FILE",
      })
      .option("json", {
        type: "string",
        requiresArg: true,
        describe: "Write the (re-grouped) JSON to FILE",
      })
      .option("granularity", {
        type: "string",
        describe: "Time series interval, a multiple of the recorded one (e.g. 10s)",
      })
      .option("arrivals", ARRIVALS_OPTION)
      .option("quiet", { alias: "q", type: "boolean", describe: "Print no summary" }),
  handler: async (argv: ReportArgv) => {
    const arrivals = arrivalFiles(argv.arrivals);
    const output: Output<Result[]> = {
      quiet: Boolean(argv.quiet),
      summary: (all, options) =>
        all.length > 1 ? renderCompare(all, options) : renderRunSummary(all[0], options),
      exports: exportsOf<Result[]>([
        ["--html", argv.html, renderHtml],
        ["--json", argv.json, (all) => renderJson(all.length > 1 ? compareDoc(all) : all[0])],
      ]),
    };
    checkWritable(output.exports);
    const signals = readerSignals("report");
    try {
      const read = await readingUntilSignal(signals, async (signal) => {
        let runs = await readResultFile(String(argv.result), signal);
        if (argv.granularity !== undefined) {
          const ms = parseDuration("--granularity", argv.granularity);
          if (ms <= 0) throw new UsageError("--granularity", "must be above 0");
          runs = regranulate(runs, ms);
        }
        const joined = await joinArrivalFiles(runs, arrivals, signal);
        return { runs: joined.runs, undelivered: joined.failed };
      });
      if ((await stoppedBeforeWriting(signals, "report")) || read === null) return;
      const { runs, undelivered } = read;
      const written = writeOutput(output, runs);
      process.exitCode = written && !undelivered ? EXIT.ok : EXIT.failed;
    } finally {
      signals.release();
    }
  },
};

/** The JSON of a compare: both runs under one schema (and those a signal kept from running). */
export function compareDoc(
  runs: Result[],
  notRun: Mode[] = [],
  repeat?: Comparison["repeat"],
): Comparison {
  return {
    schema: COMPARE_SCHEMA,
    runs,
    ...(notRun.length > 0 ? { notRun } : {}),
    ...(repeat ? { repeat } : {}),
  };
}
