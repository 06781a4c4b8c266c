/**
 * `mailvolley merge shard1.json shard2.json … [--json out.json] [--html out.html]`: one result
 * from a run sharded across machines, as if one generator had sent it all.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { ConfigError } from "../config/parse.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderSummary } from "../report/terminal.js";
import { mergeResults } from "../stats/merge-results.js";
import type { Result } from "../stats/result.js";
import { EXIT } from "./exit-codes.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { readResultFile } from "./report-command.js";
import { readerSignals, stoppedBeforeWriting } from "./signals.js";

type MergeArgv = ArgumentsCamelCase<Record<string, unknown>>;

export const mergeCommand = {
  command: "merge <results..>",
  describe: "Merge the JSON results of a run sharded across machines into one",
  builder: (yargs: Argv) =>
    yargs
      .positional("results", { type: "string", array: true, describe: "JSON results (--json)" })
      .option("json", {
        type: "string",
        describe: "Write the merged JSON result to FILE (- for stdout)",
      })
      .option("html", { type: "string", describe: "Write the merged HTML report to FILE" })
      .option("quiet", { alias: "q", type: "boolean", describe: "Print no summary" }),
  handler: async (argv: MergeArgv) => {
    const files = (argv.results as string[]) ?? [];
    if (files.length < 2) throw new ConfigError("merge", "give at least two result files");
    const exports = exportsOf<Result>([
      ["--html", argv.html, (result) => renderHtml([result])],
      ["--json", argv.json, renderJson],
    ]);
    checkWritable(exports);
    const signals = readerSignals("merge");
    try {
      const merged = await mergeFiles(files);
      if (await stoppedBeforeWriting(signals, "merge")) return;
      const written = writeOutput(
        { quiet: Boolean(argv.quiet), summary: renderSummary, exports },
        merged,
      );
      process.exitCode = written ? EXIT.ok : EXIT.failed;
    } finally {
      signals.release();
    }
  },
};

/** The shards' results merged into one; a ConfigError for anything that is not a shard. */
async function mergeFiles(files: readonly string[]): Promise<Result> {
  const shards: Result[] = [];
  for (const file of files) {
    const runs = await readResultFile(file);
    if (runs.length !== 1) {
      throw new ConfigError("merge", `"${file}" holds a compare (two runs); merge single runs`);
    }
    shards.push(runs[0]);
  }
  try {
    return mergeResults(shards);
  } catch (error) {
    throw new ConfigError("merge", (error as Error).message);
  }
}
