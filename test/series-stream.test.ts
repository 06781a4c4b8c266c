/**
 * --out ndjson=FILE and --out csv=FILE: the time series streamed a line per interval while the
 * run goes, equal to the final Result's series, and left on disk by a killed run.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { StreamedPoint } from "../src/cli/series-stream.js";
import type { Result } from "../src/result/result.js";
import { LatencyRecorder } from "../src/stats/histogram.js";
import { SeriesJoin, type SeriesPoint } from "../src/stats/series.js";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-series-");
const EMPTY = new LatencyRecorder().encoded();

function point(t: number, sent: number): SeriesPoint {
  return {
    t,
    sent,
    accepted: sent,
    rejected: 0,
    failed: 0,
    unconfirmed: 0,
    dropped: 0,
    connectionsOpened: 0,
    openSessions: 1,
    errors: [0, 0, 0, 0, 0, 0],
    histogram: EMPTY,
  };
}

function ndjson(path: string): StreamedPoint[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as StreamedPoint);
}

describe("SeriesJoin", () => {
  test("an interval streams once every worker has reached it, added in worker order", () => {
    const join2 = new SeriesJoin(2);
    join2.add(0, [point(1000, 1), point(2000, 2)]);
    assert.deepEqual(join2.take(), [], "worker 1 has reported nothing");
    join2.add(1, [point(1000, 10)]);
    assert.deepEqual(
      join2.take().map((p) => [p.t, p.sent, p.openSessions]),
      [[1000, 11, 2]],
    );
    join2.add(1, [point(3000, 30)]); // worker 1 had no interval 2000 (a stalled loop)
    assert.deepEqual(
      join2.take().map((p) => [p.t, p.sent]),
      [[2000, 2]],
    );
    assert.deepEqual(join2.take(), []);
  });
});

describe("--out", () => {
  test("NDJSON and CSV lines are the final Result's series, two workers", async () => {
    const lines = join(dir, "run.ndjson");
    const csv = join(dir, "run.csv");
    const out = await mailvolley([
      "run",
      "-s",
      "2",
      "-d",
      "3500ms",
      "--rate",
      "200",
      "--workers",
      "2",
      "-q",
      "--json",
      "-",
      "--out",
      `ndjson=${lines}`,
      "--out",
      `csv=${csv}`,
    ]);
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(out.stdout) as Result;
    const streamed = ndjson(lines);
    assert.ok(streamed.length >= 3, `${streamed.length} intervals`);
    assert.deepEqual(
      streamed.map(({ time, mode, ...p }) => {
        assert.equal(time, new Date(p.t).toISOString());
        assert.equal(mode, "reuse");
        return p;
      }),
      result.series.points.map(({ histogram: _h, connectHistogram: _c, generator: _g, ...p }) => p),
    );
    const rows = readFileSync(csv, "utf8").trimEnd().split("\n");
    assert.match(rows[0], /^time,t,mode,sent,dropped,accepted,rejected,failed,/);
    assert.deepEqual(
      rows.slice(1).map((row) => row.split(",").slice(1, 6)),
      result.series.points.map((p) => [p.t, "reuse", p.sent, p.dropped, p.accepted].map(String)),
    );
    const total = streamed.reduce((sum, p) => sum + p.accepted, 0);
    assert.equal(total, result.messages.accepted);
  });

  test("a killed run leaves every interval it completed, each line whole", async () => {
    const lines = join(dir, "killed.ndjson");
    const { child, done } = startMailvolley(
      ["run", "-s", "2", "-d", "60s", "--rate", "100", "-q", "--out", `ndjson=${lines}`],
      30_000,
    );
    // Positive signal: two intervals on disk while the run goes (bounded poll).
    const lineCount = () =>
      existsSync(lines) ? readFileSync(lines, "utf8").split("\n").length - 1 : 0;
    for (let i = 0; i < 2000 && lineCount() < 2; i++) await sleep(10);
    assert.ok(lineCount() >= 2, "no interval streamed while the run went");
    child.kill("SIGKILL");
    await done;
    const text = readFileSync(lines, "utf8");
    assert.ok(text.endsWith("\n"), "the last line is whole");
    const streamed = ndjson(lines);
    assert.ok(streamed.length >= 2);
    for (let i = 1; i < streamed.length; i++) assert.ok(streamed[i].t > streamed[i - 1].t);
  });

  test("bad --out: one line naming it, exit 2, no file", async () => {
    for (const [value, pattern] of [
      ["xml=x.xml", /--out: "xml=x\.xml": give ndjson=FILE, csv=FILE or prometheus=FILE/],
      ["ndjson", /--out: "ndjson": give ndjson=FILE/],
      ["csv=-", /--out: "csv=-": stream to a file/],
      [`csv=${join(dir, "no-such-dir", "x.csv")}`, /--out: cannot write/],
    ] as const) {
      const out = await mailvolley(["run", "-m", "5", "--out", value]);
      assert.equal(out.code, 2, out.stderr);
      assert.match(out.stderr, pattern);
      assert.equal(out.stderr.trimEnd().split("\n").length, 1, out.stderr);
    }
  });
});
