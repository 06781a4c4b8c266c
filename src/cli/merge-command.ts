/**
 * `mailvolley merge shard-0.json shard-1.json … [--threshold …] [--json out.json] [--html …]`:
 * one result from a run sharded across machines, as if one generator had sent it all. The
 * shards are checked first (result/shard-check.ts): a missing or doubled shard, another load or
 * mixed modes is one line and exit 2. Compare results merge mode by mode into one compare.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { ArgumentsCamelCase, Argv } from "yargs";
import { REPORT_OPTIONS } from "../config/option-table.js";

import { parseThresholds } from "../config/thresholds.js";
import { renderCompare } from "../report/compare.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderSummary } from "../report/terminal.js";
import { type MergeInput, mergeShards } from "../result/merge-results.js";
import type { Result } from "../result/result.js";
import { describeShardStarts } from "../result/shard-check.js";
import { printable } from "../stats/printable.js";
import { UsageError } from "../usage/usage-error.js";
import { arrivalFiles, joinArrivalFiles } from "./arrivals.js";
import { EXIT, type ExitCode, loadExitCode } from "./exit-codes.js";
import { tableOptions } from "./load-options.js";
import { checkWritable, type Export, exportsOf, writeOutput } from "./output.js";
import {
  ARRIVALS_OPTION,
  applyThresholds,
  compareDoc,
  generatorGate,
  printBreaches,
  readingUntilSignal,
  readResultFile,
} from "./report-command.js";
import { readerSignals, stoppedBeforeWriting } from "./signals.js";

type MergeArgv = ArgumentsCamelCase<Record<string, unknown>>;

/** A result file as read: one run, or a compare's two. */
interface ResultFile {
  file: string;
  runs: Result[];
}

export const mergeCommand = {
  command: "merge <results..>",
  describe: "Merge the JSON results of a run sharded across machines into one",
  builder: (yargs: Argv) =>
    tableOptions(
      yargs
        .positional("results", { type: "string", array: true, describe: "JSON results (--json)" })
        .option("json", {
          type: "string",
          requiresArg: true,
          describe: "Write the merged JSON result to FILE (- for stdout)",
        })
        // requiresArg: a bare --html is refused before anything is merged, as in `report`.
        .option("html", {
          type: "string",
          requiresArg: true,
          describe: "Write the merged HTML report to FILE",
        })
        .option("arrivals", ARRIVALS_OPTION)
        .option("quiet", { alias: "q", type: "boolean", describe: "Print no summary" }),
      {
        threshold: REPORT_OPTIONS.threshold,
        "fail-on-generator-bound": REPORT_OPTIONS["fail-on-generator-bound"],
      },
    ),
  handler: async (argv: MergeArgv) => {
    const files = (argv.results as string[]) ?? [];
    if (files.length < 2) throw new UsageError("merge", "give at least two result files");
    checkFilesOnce(files);
    parseThresholds(argv.threshold); // bad threshold text: exit 2 before anything is read
    const arrivals = arrivalFiles(argv.arrivals);
    const json = (all: Result[]) => renderJson(all.length > 1 ? compareDoc(all) : all[0]);
    const exports = exportsOf<Result[]>([
      ["--html", argv.html, renderHtml],
      ["--json", argv.json, json],
    ]);
    checkWritable(exports);
    const signals = readerSignals("merge");
    try {
      const done = await readingUntilSignal(signals, async (signal) => {
        const read: ResultFile[] = [];
        for (const file of files)
          read.push({ file, runs: await readResultFile(file, "merge", signal) });
        const merged = mergeFiles(read);
        const results = merged.map((m) => m.result);
        const joined = await joinArrivalFiles(results, arrivals, signal);
        return {
          merged: merged.map((m, i) => ({ ...m, result: joined.runs[i] })),
          undelivered: joined.failed,
        };
      });
      if ((await stoppedBeforeWriting(signals, "merge")) || done === null) return;
      process.exitCode = report(done.merged, exports, argv, done.undelivered);
    } finally {
      signals.release();
    }
  },
};

/** The merged runs' summary, exports, threshold and generator verdicts; the exit code. */
function report(
  merged: { result: Result; starts: string }[],
  exports: Export<Result[]>[],
  argv: MergeArgv,
  undelivered: boolean,
): ExitCode {
  const thresholds = parseThresholds(argv.threshold);
  const quiet = Boolean(argv.quiet);
  const judged = merged.map(({ result, starts }) => {
    if (!quiet && starts) process.stderr.write(`mailvolley merge: ${starts}\n`);
    return applyThresholds(result, thresholds);
  });
  const breaches = judged.flatMap(({ result, breaches: lines }) =>
    merged.length > 1 ? lines.map((line) => `${result.mode}: ${line}`) : lines,
  );
  const runs = judged.map((j) => j.result);
  const written = writeOutput(
    {
      quiet,
      summary: (all, options) =>
        all.length > 1 ? renderCompare(all, options) : renderSummary(all[0], options),
      exports,
    },
    runs,
  );
  printBreaches(breaches);
  const generatorBound = generatorGate(runs, Boolean(argv.failOnGeneratorBound));
  const code = loadExitCode({
    signal: null,
    breached: breaches.length > 0 || generatorBound,
    // A message lost, partial, bounced or doubled fails the merged run, as it fails a run.
    failed: undelivered,
  });
  return written || code !== EXIT.ok ? code : EXIT.failed;
}

/** One file given twice (under one name or two) would count its run twice: refused. */
function checkFilesOnce(files: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const file of files) {
    let real = resolve(file);
    try {
      real = realpathSync(file);
    } catch {
      // A missing file is refused when it is read, naming it.
    }
    const first = seen.get(real);
    if (first !== undefined) {
      const names = first === file ? file : `${first} and ${file}`;
      throw new UsageError("merge", `${names}: one file given twice; give each result once`);
    }
    seen.set(real, file);
  }
}

/**
 * Single runs merge into one; compare results (two runs each) merge mode by mode into one
 * compare, in the first file's order. Each merge is checked; a refusal is one UsageError line.
 */
const SELF_TEST_TARGET = "embedded-sink";

function mergeFiles(files: readonly ResultFile[]): { result: Result; starts: string }[] {
  const compares = files.filter((f) => f.runs.length > 1).map((f) => f.file);
  if (compares.length > 0 && compares.length < files.length) {
    throw new UsageError(
      "merge",
      `${compares.join(", ")} ${compares.length > 1 ? "are compares" : "is a compare"} (two runs) ` +
        "and the others single runs; merge the shards of one command",
    );
  }
  checkTargets(files);
  const modes = files[0].runs.map((r) => r.mode);
  return modes.map((mode) => {
    const inputs: MergeInput[] = files.map(({ file, runs }) => {
      const result = runs.find((r) => r.mode === mode) ?? runs[0];
      return { file, result };
    });
    try {
      const { merged, starts } = mergeShards(inputs);
      return { result: merged, starts: describeShardStarts(starts) };
    } catch (error) {
      // ShardCheckError, or mergeResults refusing shards of different series intervals.
      throw new UsageError("merge", (error as Error).message);
    }
  });
}

/**
 * Shards of one run measured one target. A self-test (the built-in sink measures mailvolley)
 * joined to a run against a gateway would give a rate of neither: refused. Shards that name
 * one gateway by different addresses may be right, so those merge with a note.
 */
function checkTargets(files: readonly ResultFile[]): void {
  const targets = files.map(({ file, runs }) => ({ file, target: runs[0]?.target ?? "" }));
  const selfTests = targets.filter((t) => t.target === SELF_TEST_TARGET);
  const others = targets.filter((t) => t.target !== SELF_TEST_TARGET);
  if (selfTests.length > 0 && others.length > 0) {
    throw new UsageError(
      "merge",
      `${selfTests[0].file} is a self-test and ${others[0].file} ran against ${others[0].target}; merge the shards of one run against one target`,
    );
  }
  const distinct = [...new Set(others.map((t) => t.target))];
  if (distinct.length > 1) {
    process.stderr.write(
      // The targets are the files' text: shown as the terminal can take it.
      `mailvolley merge: note: the shards name ${distinct.length} targets (${printable(distinct.join(", "))}); merged as one run\n`,
    );
  }
}
