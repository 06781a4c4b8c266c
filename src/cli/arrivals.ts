/**
 * `--arrivals SINK.json` of `report` and `merge`: the delivery join of a run whose receiver ran
 * on another host (`run GATEWAY --receive elsewhere` on one, `mailvolley sink --json` on the
 * other), made offline from the run's accept ledger and the sink's arrivals.
 */
import {
  type ArrivalsJson,
  checkArrivals,
  joinArrivals,
  mergeArrivals,
  outsideRun,
} from "../delivery/arrivals-file.js";
import { deliveryFailed } from "../delivery/delivery-verdict.js";
import type { Result } from "../result/result.js";
import { readInputFile } from "../usage/input-file.js";
import { UsageError } from "../usage/usage-error.js";

/** The --arrivals values as a list of files (the option may repeat). */
export function arrivalFiles(value: unknown): string[] {
  if (value === undefined) return [];
  const files = (Array.isArray(value) ? value : [value]).map(String);
  if (files.some((f) => f.trim() === "")) {
    throw new UsageError("--arrivals", "give the JSON file a `mailvolley sink --json` wrote");
  }
  return files;
}

/**
 * Each run joined with the arrivals in `files` into its `delivery` section, a new Result; and
 * whether a message was lost, partial, bounced or duplicated (the exit code is then 1, as
 * `run --receive` gives). A pipe is read too, until `signal` ends the wait.
 */
export async function joinArrivalFiles(
  runs: Result[],
  files: readonly string[],
  signal?: AbortSignal,
): Promise<{ runs: Result[]; failed: boolean }> {
  if (files.length === 0) return { runs, failed: false };
  const read: { file: string; arrivals: ArrivalsJson }[] = [];
  for (const file of files) {
    const input = { option: "--arrivals", what: "arrivals JSON", pipes: true, signal };
    const text = (await readInputFile(file, input)).toString("utf8");
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (error) {
      throw new UsageError("--arrivals", `cannot read "${file}": ${(error as Error).message}`);
    }
    try {
      read.push({ file, arrivals: checkArrivals(doc) });
    } catch (error) {
      throw new UsageError("--arrivals", `${file}: ${(error as Error).message}`);
    }
  }
  // A message number the run never sent is no arrival of it: the file is not this run's.
  for (const run of runs) {
    const messages = messagesOf(run);
    if (messages === null) continue;
    for (const { file, arrivals } of read) {
      const outside = outsideRun(arrivals, run.runId, messages);
      if (outside !== "") throw new UsageError("--arrivals", `${file}: ${outside}`);
    }
  }
  const arrivals = mergeArrivals(read.map((r) => r.arrivals));
  const joined = runs.map((run): Result => {
    if (!run.acceptLedger || run.acceptLedger.length === 0) {
      throw new UsageError(
        "--arrivals",
        `run ${run.runId} kept no accepted messages to join: run it with --receive elsewhere`,
      );
    }
    const from = `another host (${files.join(", ")})`;
    return { ...run, delivery: joinArrivals(run.acceptLedger, arrivals, from) };
  });
  const failed = joined.some((run) => run.delivery !== undefined && deliveryFailed(run.delivery));
  return { runs: joined, failed };
}

/**
 * The messages of the whole run (every shard's: their numbers interleave), as -m gave them;
 * null when the run had no count (a duration) or its record is absent.
 */
function messagesOf(run: Result): number | null {
  const given = Number((run.run?.options as Record<string, unknown> | undefined)?.messages);
  return Number.isInteger(given) && given > 0 ? given : null;
}
