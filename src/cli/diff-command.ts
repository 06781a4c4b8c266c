/**
 * `mailvolley diff A B` (each a result of --repeat) or `mailvolley diff a1 a2 -- b1 b2` (single
 * results, several a side): is B better than A beyond the noise? Reads the files, refuses two
 * different loads unless --force, and exits 99 when a --fail-if bound is breached.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { type DiffDocument, type DiffSide, diffOf } from "../diff/diff.js";
import { parseFailIf } from "../diff/gate.js";
import { loadDifferences } from "../diff/load.js";
import { runsOf } from "../diff/repeat.js";
import { renderDiff, renderDiffJson } from "../report/diff.js";
import { renderDiffHtml } from "../report/html-diff.js";
import type { Result } from "../result/result.js";
import { UsageError } from "../usage/usage-error.js";
import { EXIT } from "./exit-codes.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { readResultFile } from "./report-command.js";

type DiffArgv = ArgumentsCamelCase<Record<string, unknown>>;

const SIDES =
  "give A and B: `diff a.json b.json` (each a result of --repeat), or several results a side: `diff a1.json a2.json -- b1.json b2.json`";

/** The files of A and of B: two files, or the files before and after `--`. */
export function sidesOf(
  files: readonly string[],
  afterDash: readonly string[],
): [string[], string[]] {
  if (afterDash.length > 0) {
    if (files.length === 0) throw new UsageError("diff", `no result before --; ${SIDES}`);
    return [[...files], [...afterDash]];
  }
  if (files.length !== 2)
    throw new UsageError(
      "diff",
      `${files.length === 1 ? "one result file" : `${files.length} result files`}; ${SIDES}`,
    );
  return [[files[0]], [files[1]]];
}

/** A side's results, each file's runs in order, and its DiffSide. */
async function readSide(files: readonly string[]): Promise<{ results: Result[]; side: DiffSide }> {
  const results: Result[] = [];
  for (const file of files) {
    const runs = await readResultFile(file, "diff");
    if (runs.length > 1) {
      throw new UsageError(
        file,
        "is a compare result (two modes); diff takes results of run, with or without --repeat",
      );
    }
    results.push(...runs);
  }
  return {
    results,
    side: { files: [...files], load: results[0].run?.load ?? null, runs: results.flatMap(runsOf) },
  };
}

/** Every way the loads differ from A's first result, naming the file: "b.json: sessions: 1 vs 10". */
function differences(first: Result, sides: { files: string[]; results: Result[] }[]): string[] {
  const lines = new Set<string>();
  for (const { files, results } of sides) {
    results.forEach((r, i) => {
      for (const line of loadDifferences(first, r)) lines.add(`${files[i] ?? files[0]}: ${line}`);
    });
  }
  return [...lines];
}

export const diffCommand = {
  command: "diff <files..>",
  describe:
    "Compare two sets of runs of one load figure by figure: is B better than A, beyond the noise?",
  builder: (yargs: Argv) =>
    yargs
      .parserConfiguration({ "parse-numbers": false, "populate--": true })
      .positional("files", {
        type: "string",
        array: true,
        // yargs shows a variadic positional's empty default as "[default: []]": none is given.
        default: undefined,
        describe: "A and B: two results of --repeat, or A's results -- B's results",
      })
      .option("json", { type: "string", describe: "Write the diff as JSON to FILE (- for stdout)" })
      .option("html", {
        type: "string",
        describe: "Write an HTML page with every run as a point to FILE",
      })
      .option("force", { type: "boolean", describe: "Compare results of different loads" })
      .option("fail-if", {
        // Not an array option: it would swallow the result files after it; repeated, yargs
        // gives every value.
        type: "string",
        describe:
          "Exit 99 when a figure's change is significant and beyond this, repeatable: 'throughput<-5%'",
      })
      .option("quiet", { alias: "q", type: "boolean", describe: "Print no table" })
      .example([
        ["$0 diff a.json b.json", "A and B each from run --repeat 5"],
        ["$0 diff a1.json a2.json a3.json -- b1.json b2.json b3.json", "single runs, three a side"],
        ["$0 diff a.json b.json --fail-if 'throughput<-5%'", "a CI gate: exit 99"],
      ]),
  handler: async (argv: DiffArgv) => {
    const files = ((argv.files as string[] | undefined) ?? []).map(String);
    const [aFiles, bFiles] = sidesOf(files, ((argv["--"] as unknown[]) ?? []).map(String));
    const gates = [argv.failIf ?? []].flat().map((text) => parseFailIf(String(text)));
    const exports = exportsOf<DiffDocument>([
      ["--json", argv.json, renderDiffJson],
      ["--html", argv.html, renderDiffHtml],
    ]);
    checkWritable(exports);
    const a = await readSide(aFiles);
    const b = await readSide(bFiles);
    const found = differences(a.results[0], [
      { files: aFiles, results: a.results },
      { files: bFiles, results: b.results },
    ]);
    if (found.length > 0 && !argv.force) {
      throw new UsageError(
        "--force",
        `A and B ran different loads (${found.join("; ")}); diff runs of one load, or give --force to compare them anyway`,
      );
    }
    const doc = diffOf(a.side, b.side, gates, found);
    const written = writeOutput({ quiet: Boolean(argv.quiet), summary: renderDiff, exports }, doc);
    const breached = doc.diff.failIf.filter((g) => g.breached);
    for (const gate of breached) {
      process.stderr.write(`mailvolley: --fail-if breached: ${gate.expression}\n`);
    }
    process.exitCode = breached.length > 0 ? EXIT.thresholds : written ? EXIT.ok : EXIT.failed;
  },
};
