/**
 * `report --arrivals` reads a file another host wrote: each field is checked (types, ranges,
 * message numbers inside the run, times present) and a broken file gives one line naming the
 * file and the field, exit 2, never made-up figures.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { checkArrivals, outsideRun } from "../src/delivery/arrivals-file.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const RUN = "0123456789ab";
const GOLDEN = fileURLToPath(new URL("../../test/golden/result-reuse.json", import.meta.url));

/** A sink's file with one message of run RUN; `change` breaks a column's first entry. */
function file(change: Record<string, unknown> = {}): { arrivals: unknown } {
  const run: Record<string, unknown> = {
    lastArrivalMs: 1_700_000_001_000,
    seq: [3],
    firstMs: [1_700_000_000_500],
    copies: [1],
    rcpts: [1],
    dupRcpts: [0],
    refusals: [0],
    retried: [0],
    retryDelaysMs: [[]],
    gaveUp: [0],
    pending: [0],
    bounceStatus: [""],
    key: ["traceHeader"],
  };
  for (const [column, value] of Object.entries(change)) {
    if (column === "lastArrivalMs") run[column] = value;
    else (run[column] as unknown[])[0] = value;
  }
  return { arrivals: { foreign: 0, notices: 0, noticesUnjoined: 0, runs: { [RUN]: run } } };
}

describe("checkArrivals: each field of a sink's file", () => {
  test("a whole file passes", () => {
    assert.equal(checkArrivals(file()).runs[RUN].seq[0], 3);
  });

  for (const [change, message] of [
    [{ copies: "2" }, /arrivals\.runs\.0123456789ab\.copies\[0\]: "2" is not a count/],
    [{ copies: -1 }, /copies\[0\]: -1 is not a count/],
    [{ rcpts: 1.5 }, /rcpts\[0\]: 1\.5 is not a count/],
    [{ firstMs: null }, /firstMs\[0\]: null is not an epoch ms time/],
    [{ firstMs: 0 }, /firstMs\[0\]: 0 is no time for a message that arrived/],
    [{ retried: 1 }, /retryDelaysMs\[0\]: \[\] is not one delay \(ms\) per retried recipient/],
    [{ bounceStatus: "bounced" }, /bounceStatus\[0\]: "bounced" is not "" or enhanced statuses/],
    [{ key: "guess" }, /key\[0\]: "guess" is not one of traceHeader/],
    [{ lastArrivalMs: "soon" }, /lastArrivalMs: "soon" is not an epoch ms time/],
  ] as const) {
    test(`${JSON.stringify(change)}: refused, naming the field`, () => {
      assert.throws(() => checkArrivals(file(change)), message);
    });
  }

  test("a column missing or of another length: refused, naming it", () => {
    const doc = file() as { arrivals: { runs: Record<string, Record<string, unknown>> } };
    delete doc.arrivals.runs[RUN].dupRcpts;
    assert.throws(() => checkArrivals(doc), /\.dupRcpts: missing, or not one entry per message/);
  });

  test("a message number beyond the run's messages", () => {
    const a = checkArrivals(file({ seq: 400 }));
    assert.equal(outsideRun(a, RUN, 1000), "");
    assert.match(outsideRun(a, RUN, 400), /seq\[0\]: message 400 is beyond the run's 400 messages/);
  });
});

describe("report --arrivals with a broken file", { timeout: 60_000 }, () => {
  test("one line naming the file and the field, exit 2", async () => {
    const dir = tempDir("mailvolley-arrivals-");
    const broken = join(dir, "arrivals.json");
    writeFileSync(broken, JSON.stringify(file({ copies: "many" })));
    const out = await mailvolley(["report", GOLDEN, "--arrivals", broken]);
    assert.equal(out.code, 2, out.stderr);
    assert.equal(out.stdout, "");
    assert.equal(
      out.stderr.trim(),
      `mailvolley: --arrivals: ${broken}: arrivals.runs.${RUN}.copies[0]: "many" is not a count`,
    );
  });
});
