/**
 * `mailvolley report result.json --html out.html [--granularity 10s]`, which re-renders a saved
 * result (or compare result) without running anything: JMeter's `-g`; and the threshold verdicts
 * `run` and `compare` print.
 */
import { readFile } from "node:fs/promises";
import type { ArgumentsCamelCase, Argv } from "yargs";
import { parseDuration } from "../config/parse.js";
import { checkResultShape } from "../config/result-shape.js";
import { COMPARE_SCHEMA, type Comparison, renderCompare } from "../report/compare.js";
import { thresholdActual } from "../report/figures.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderSummary } from "../report/terminal.js";
import { generatorBoundLine } from "../report/verdict.js";
import { type Mode, RESULT_SCHEMA, type Result } from "../stats/result.js";
import { regroupSeries } from "../stats/series.js";
import { seriesResult, seriesSnapshot } from "../stats/summarise.js";
import { evaluateThresholds, type Threshold } from "../stats/thresholds.js";
import { UsageError } from "../usage/usage-error.js";
import { arrivalFiles, joinArrivalFiles } from "./arrivals.js";
import { EXIT } from "./exit-codes.js";
import { checkWritable, exportsOf, type Output, writeOutput } from "./output.js";
import { readerSignals, stoppedBeforeWriting } from "./signals.js";

/**
 * Evaluates the thresholds into the Result (so JSON and HTML show them) and returns the
 * breached lines, one per failed threshold.
 */
export function applyThresholds(result: Result, thresholds: readonly Threshold[]): string[] {
  if (thresholds.length === 0) return [];
  result.thresholds = evaluateThresholds(thresholds, result);
  return result.thresholds
    .filter((t) => !t.passed)
    .map((t) => `${t.expression} (actual ${thresholdActual(t)})`);
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

/** A saved result or compare result, checked enough to render. */
export async function readResultFile(path: string): Promise<Result[]> {
  let parsed: { schema?: string; runs?: Result[] };
  try {
    // Read asynchronously: a signal while a slow file (a pipe) is read is still handled.
    parsed = JSON.parse(await readFile(path, "utf8"));
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
        all.length > 1 ? renderCompare(all, options) : renderSummary(all[0], options),
      exports: exportsOf<Result[]>([
        ["--html", argv.html, renderHtml],
        ["--json", argv.json, (all) => renderJson(all.length > 1 ? compareDoc(all) : all[0])],
      ]),
    };
    checkWritable(output.exports);
    const signals = readerSignals("report");
    try {
      let runs = await readResultFile(String(argv.result));
      if (argv.granularity !== undefined) {
        const ms = parseDuration("--granularity", argv.granularity);
        if (ms <= 0) throw new UsageError("--granularity", "must be above 0");
        runs = regranulate(runs, ms);
      }
      const undelivered = await joinArrivalFiles(runs, arrivals);
      if (await stoppedBeforeWriting(signals, "report")) return;
      const written = writeOutput(output, runs);
      process.exitCode = written && !undelivered ? EXIT.ok : EXIT.failed;
    } finally {
      signals.release();
    }
  },
};

/** The JSON of a compare: both runs under one schema (and those a signal kept from running). */
export function compareDoc(runs: Result[], notRun: Mode[] = []): Comparison {
  return notRun.length > 0
    ? { schema: COMPARE_SCHEMA, runs, notRun }
    : { schema: COMPARE_SCHEMA, runs };
}
