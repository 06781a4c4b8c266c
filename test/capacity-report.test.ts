/**
 * A saved capacity search read back by the built bin: `report` prints and writes what
 * `capacity` printed and wrote, byte for byte; `merge` and `diff`, which read runs, refuse it in
 * one line; a damaged file is one line naming it. The search is a real one, bounded: one
 * session against a sink that holds each message 100 ms, 1 s steps, a coarse --resolution and
 * a transaction level that such queues break within a few doublings.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fillSinkOptions } from "../src/config/sink-config.js";
import type { CapacityDocument } from "../src/result/capacity-result.js";
import { type Sink, startSink } from "../src/sink/index.js";
import { mailvolley, type Outcome } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "mv-capacity-report-"));
const json = join(dir, "c.json");
const html = join(dir, "c.html");

/** A file beside the search's, with `change` made to a copy of its document. */
function damaged(name: string, change: (doc: CapacityDocument) => void): string {
  const doc = JSON.parse(readFileSync(json, "utf8")) as CapacityDocument;
  change(doc);
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

describe("a saved capacity search", () => {
  let sink: Sink;
  let capacity: Outcome;
  let doc: CapacityDocument;
  before(async () => {
    sink = await startSink(
      fillSinkOptions({ listen: ["127.0.0.1:0"], faults: ["dot:ok:delay=100ms"] }),
    );
    const { host, port } = sink.addresses[0];
    capacity = await mailvolley(
      [
        "capacity",
        `${host}:${port}`,
        "-s",
        "1",
        "--mode",
        "both",
        "--qos",
        "transaction p95<300ms",
        "--from-rate",
        "2",
        "--resolution",
        "50",
        "--step",
        "1s",
        "--warmup",
        "0s",
        "--budget",
        "6s",
        "--pause",
        "100ms",
        "--json",
        json,
        "--html",
        html,
      ],
      120_000,
    );
    // 0: a rate found; 1: no step passed. Either is a document to report.
    assert.ok(capacity.code === 0 || capacity.code === 1, capacity.stderr);
    doc = JSON.parse(readFileSync(json, "utf8")) as CapacityDocument;
  });
  after(async () => {
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("report prints what capacity printed: headlines, step tables, the 80/100/120 tables, side by side", async () => {
    const out = await mailvolley(["report", json]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stderr, "");
    assert.equal(out.stdout, capacity.stdout);
    assert.ok(doc.perMessage, "--mode both saves both searches");
    for (const c of [doc.perMessage, doc.capacity]) {
      assert.ok(out.stdout.includes(`${c.mode}: ${c.headline}\n`), out.stdout);
    }
    assert.match(out.stdout, /^step +offered +accepted +delivered +connect p95 /m);
    // The 80/100/120 table wherever a search found its levels.
    const tables = out.stdout.match(/^service level +shown +80 % \(/gm) ?? [];
    const withLevels = [doc.perMessage, doc.capacity].filter((c) => c.levels.length > 0);
    assert.equal(tables.length, withLevels.length, out.stdout);
    assert.match(out.stdout, /\nSide by side: per-message sustains .*, reuse .*\.\n$/);
  });

  test("report --html writes the page capacity wrote; --json writes the document back as it was", async () => {
    const again = join(dir, "again.html");
    const back = join(dir, "again.json");
    const out = await mailvolley(["report", json, "--html", again, "--json", back, "-q"]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, "");
    assert.equal(readFileSync(again, "utf8"), readFileSync(html, "utf8"));
    assert.equal(readFileSync(back, "utf8"), readFileSync(json, "utf8"));
    const piped = await mailvolley(["report", json, "--json", "-"]);
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, readFileSync(json, "utf8"));
    assert.equal(piped.stderr, capacity.stdout, "the summary goes to stderr beside a piped export");
  });

  test("merge and diff refuse a capacity search in one line that says how to see it; exit 2", async () => {
    const copy = join(dir, "c2.json");
    copyFileSync(json, copy);
    const run = join(dir, "run.json");
    const made = await mailvolley(["run", "-m", "20", "-s", "2", "--json", run, "-q"]);
    assert.equal(made.code, 0, made.stderr);
    const fix = (path: string) => `report it with \`mailvolley report ${path}\``;
    const cases: [string[], string][] = [
      [
        ["merge", json, copy],
        `mailvolley: merge: ${json} is a capacity search, not a shard of a run: merge joins the shards of one run; ${fix(json)}\n`,
      ],
      [
        ["merge", run, copy],
        `mailvolley: merge: ${copy} is a capacity search, not a shard of a run: merge joins the shards of one run; ${fix(copy)}\n`,
      ],
      [
        ["diff", json, copy],
        `mailvolley: diff: ${json} is a capacity search, not a run's result: diff compares the results of runs; ${fix(json)}\n`,
      ],
      [
        ["diff", run, copy],
        `mailvolley: diff: ${copy} is a capacity search, not a run's result: diff compares the results of runs; ${fix(copy)}\n`,
      ],
      [
        ["report", json, "--granularity", "10s"],
        `mailvolley: --granularity: ${json} is a capacity search, whose report shows no time series; give --granularity with a run's result\n`,
      ],
      [
        ["report", json, "--arrivals", run],
        `mailvolley: --arrivals: ${json} is a capacity search, whose steps joined their deliveries as they ran; give --arrivals with a run's result\n`,
      ],
    ];
    for (const [args, line] of cases) {
      const out = await mailvolley(args);
      assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
      assert.equal(out.stderr, line);
      assert.equal(out.stdout, "");
    }
  });

  test("a damaged capacity file: one line naming the file and what is wrong, exit 2", async () => {
    const truncated = join(dir, "truncated.json");
    writeFileSync(truncated, readFileSync(json, "utf8").slice(0, 2000));
    const notCapacity = (path: string, why: string) =>
      `mailvolley: result: "${path}" is not a mailvolley capacity search: ${why}\n`;
    /** The line's start, as given, then any one line (the JSON parser's or codec's words). */
    const startsWith = (start: string) =>
      new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^\n]+\n$`);
    const cases: [string, RegExp | string][] = [
      [truncated, startsWith(`mailvolley: result: cannot read "${truncated}": `)],
      [
        damaged("version.json", (d) => {
          (d as { schema: string }).schema = "mailvolley/capacity@2";
        }),
        notCapacity(
          join(dir, "version.json"),
          'schema "mailvolley/capacity@2"; this version reads "mailvolley/capacity@1"',
        ),
      ],
      [
        damaged("no-capacity.json", (d) => {
          delete (d as Partial<CapacityDocument>).capacity;
        }),
        notCapacity(
          join(dir, "no-capacity.json"),
          "the document must have required property 'capacity'",
        ),
      ],
      [
        damaged("counts.json", (d) => {
          d.capacity.steps[0].result.messages.accepted += 1;
        }),
        notCapacity(
          join(dir, "counts.json"),
          "capacity.steps.0.result.messages.attempted is not accepted + rejected + failed + unconfirmed",
        ),
      ],
      [
        damaged("histogram.json", (d) => {
          d.capacity.steps[0].result.histograms.connect = "AAAA";
        }),
        startsWith(
          notCapacity(
            join(dir, "histogram.json"),
            "capacity.steps.0.result.histograms.connect is not a histogram: ",
          ).trimEnd(),
        ),
      ],
    ];
    // A level pointing past the steps, in a search that found its levels.
    const name = doc.capacity.levels.length > 0 ? "capacity" : "perMessage";
    const section = (d: CapacityDocument) => (name === "capacity" ? d.capacity : d.perMessage);
    const found = section(doc);
    if (found && found.levels.length > 0) {
      const steps = found.steps.length;
      cases.push([
        damaged("level.json", (d) => {
          const levels = section(d)?.levels ?? [];
          levels[0].step = steps;
        }),
        notCapacity(
          join(dir, "level.json"),
          `${name}.levels.0.step ${steps} is not a step (${steps} steps)`,
        ),
      ]);
    }
    for (const [path, line] of cases) {
      const out = await mailvolley(["report", path]);
      assert.equal(out.code, 2, `${path}: ${out.stderr}`);
      if (typeof line === "string") assert.equal(out.stderr, line);
      else assert.match(out.stderr, line);
      assert.equal(out.stdout, "");
    }
  });
});
