/**
 * `mailvolley report result.json --html out.html [--granularity 10s]`, which re-renders a saved
 * result (or compare result, or capacity search) without running anything: JMeter's `-g`; and
 * the threshold verdicts `run` and `compare` print.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { parseDuration } from "../config/parse.js";
import { checkCapacityShape, checkResultShape } from "../config/result-shape.js";
import { shellQuote } from "../deploy/kubernetes.js";
import { renderCapacity } from "../report/capacity.js";
import { COMPARE_SCHEMA, type Comparison, renderCompare } from "../report/compare.js";
import { thresholdActual } from "../report/figures.js";
import { renderHtml } from "../report/html.js";
import { renderCapacityHtml } from "../report/html-capacity.js";
import { renderJson } from "../report/json.js";
import { renderRunSummary } from "../report/repeat.js";
import { generatorBoundLine } from "../report/verdict.js";
import { concluded } from "../result/assemble.js";
import { CAPACITY_SCHEMA, type CapacityDocument } from "../result/capacity-result.js";
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

/** A saved document as `report` renders it: runs (one, or a compare's), or a capacity search. */
export type SavedDocument =
  | { kind: "runs"; runs: Result[] }
  | { kind: "capacity"; capacity: CapacityDocument };

/** The JSON of a saved document, not yet checked. A pipe is read too, until `signal` ends it. */
async function parseSavedFile(path: string, signal?: AbortSignal): Promise<unknown> {
  const text = await readInputFile(path, {
    option: "result",
    what: "JSON result",
    pipes: true,
    signal,
  });
  try {
    return JSON.parse(text.toString("utf8"));
  } catch (error) {
    throw new UsageError("result", `cannot read "${path}": ${(error as Error).message}`);
  }
}

/**
 * Whether the document names itself a capacity search, of any version: one of another version
 * is then refused as a capacity search ("this version reads mailvolley/capacity@1").
 */
function isCapacitySearch(parsed: unknown): boolean {
  const schema = (parsed as { schema?: unknown } | null)?.schema;
  return typeof schema === "string" && schema.startsWith(`${CAPACITY_SCHEMA.split("@")[0]}@`);
}

/** A run, or a compare's runs, each checked enough to render. */
function checkedRuns(parsed: unknown, path: string): Result[] {
  const runs = Array.isArray((parsed as { runs?: unknown } | null)?.runs)
    ? (parsed as { runs: Result[] }).runs
    : [parsed as Result];
  for (const run of runs) checkResultShape(run, path, RESULT_SCHEMA);
  return runs;
}

/**
 * A saved result, compare result or capacity search, told apart by its `schema` and checked
 * enough to render. A pipe is read too (`report <(zcat r.json.gz)`), until `signal` ends the
 * wait.
 */
export async function readSavedDocument(
  path: string,
  signal?: AbortSignal,
): Promise<SavedDocument> {
  const parsed = await parseSavedFile(path, signal);
  if (isCapacitySearch(parsed)) {
    checkCapacityShape(parsed, path, CAPACITY_SCHEMA);
    return { kind: "capacity", capacity: parsed as CapacityDocument };
  }
  return { kind: "runs", runs: checkedRuns(parsed, path) };
}

/** Why a command that reads runs takes no capacity search, as the line refusing one says. */
const NOT_RUNS = {
  merge: "not a shard of a run: merge joins the shards of one run",
  diff: "not a run's result: diff compares the results of runs",
} as const;

/**
 * A saved result or compare result, checked as readSavedDocument checks it, for `command`,
 * which reads runs: a capacity search is refused with one line saying how to see it.
 */
export async function readResultFile(
  path: string,
  command: keyof typeof NOT_RUNS,
  signal?: AbortSignal,
): Promise<Result[]> {
  const parsed = await parseSavedFile(path, signal);
  if (isCapacitySearch(parsed)) {
    throw new UsageError(
      command,
      `${path} is a capacity search, ${NOT_RUNS[command]}; report it with \`mailvolley report ${shellQuote(path)}\``,
    );
  }
  return checkedRuns(parsed, path);
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
  describe: "Re-render a saved JSON result (run, compare or capacity) as text, HTML or JSON",
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
    const quiet = Boolean(argv.quiet);
    const runOutput: Output<Result[]> = {
      quiet,
      summary: (all, options) =>
        all.length > 1 ? renderCompare(all, options) : renderRunSummary(all[0], options),
      exports: exportsOf<Result[]>([
        ["--html", argv.html, renderHtml],
        ["--json", argv.json, (all) => renderJson(all.length > 1 ? compareDoc(all) : all[0])],
      ]),
    };
    // What `capacity` itself prints and writes, from the same renderers.
    const capacityOutput: Output<CapacityDocument> = {
      quiet,
      summary: renderCapacity,
      exports: exportsOf<CapacityDocument>([
        ["--html", argv.html, renderCapacityHtml],
        ["--json", argv.json, renderJson],
      ]),
    };
    checkWritable(runOutput.exports); // capacityOutput's are the same paths
    const signals = readerSignals("report");
    try {
      const read = await readingUntilSignal(signals, (signal) =>
        readToReport(argv, arrivals, signal),
      );
      if ((await stoppedBeforeWriting(signals, "report")) || read === null) return;
      const written =
        read.kind === "capacity"
          ? writeOutput(capacityOutput, read.capacity)
          : writeOutput(runOutput, read.runs);
      const undelivered = read.kind === "runs" && read.undelivered;
      process.exitCode = written && !undelivered ? EXIT.ok : EXIT.failed;
    } finally {
      signals.release();
    }
  },
};

/** What a capacity search's report has no use for, and why. */
const CAPACITY_REFUSES = {
  "--granularity": "whose report shows no time series",
  "--arrivals": "whose steps joined their deliveries as they ran",
} as const;

/**
 * The document `report` renders: a capacity search as saved (its steps' series and deliveries
 * were judged as the search ran: --granularity and --arrivals are refused), or the runs
 * re-grouped and joined with the arrivals files, and whether a message was undelivered.
 */
async function readToReport(
  argv: ReportArgv,
  arrivals: readonly string[],
  signal: AbortSignal,
): Promise<
  | { kind: "capacity"; capacity: CapacityDocument }
  | { kind: "runs"; runs: Result[]; undelivered: boolean }
> {
  const path = String(argv.result);
  const doc = await readSavedDocument(path, signal);
  if (doc.kind === "capacity") {
    const option =
      argv.granularity !== undefined ? "--granularity" : arrivals.length > 0 ? "--arrivals" : null;
    if (option === null) return doc;
    throw new UsageError(
      option,
      `${path} is a capacity search, ${CAPACITY_REFUSES[option]}; give ${option} with a run's result`,
    );
  }
  let runs = doc.runs;
  if (argv.granularity !== undefined) {
    const ms = parseDuration("--granularity", argv.granularity);
    if (ms <= 0) throw new UsageError("--granularity", "must be above 0");
    runs = regranulate(runs, ms);
  }
  const joined = await joinArrivalFiles(runs, arrivals, signal);
  return { kind: "runs", runs: joined.runs, undelivered: joined.failed };
}

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
