/**
 * `mailvolley capacity` as built, against the built-in sink with a known capacity: 4 sessions
 * that each wait 20 ms for every message's final reply carry at most 200 messages/s. Counts
 * and texts only; each search is bounded by --budget and short steps.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import type { CapacityDocument } from "../src/result/capacity-result.js";
import { type Sink, startSink } from "../src/sink/index.js";
import { mailvolley } from "./helpers/cli.js";
import { readSchema } from "./helpers/schema-fields.js";

const dir = mkdtempSync(join(tmpdir(), "mv-capacity-"));

async function sinkWith(fault: string): Promise<{ sink: Sink; target: string }> {
  const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], faults: [fault] }));
  const { host, port } = sink.addresses[0];
  return { sink, target: `${host}:${port}` };
}

describe("mailvolley capacity", () => {
  let slow: { sink: Sink; target: string };
  before(async () => {
    slow = await sinkWith("dot:ok:delay=20ms");
  });
  after(async () => {
    await slow.sink.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("4 sessions × 20 ms a message: the rate found lies at or below 200/s, with its 80/100/120 % steps", async () => {
    const json = join(dir, "c.json");
    const html = join(dir, "c.html");
    const args = ["capacity", slow.target, "-s", "4", "--step", "2s", "--warmup", "1s"];
    const out = await mailvolley(
      [...args, "--pause", "200ms", "--budget", "45s", "--json", json, "--html", html],
      180_000,
    );
    assert.equal(out.code, 0, out.stderr);
    const doc = JSON.parse(readFileSync(json, "utf8")) as CapacityDocument;
    assert.equal(doc.schema, "mailvolley/capacity@1");
    // The shipped schema holds the document, every step's full Result included.
    const validate = new Ajv2020({ strict: true, allErrors: true, keywords: ["better"] }).compile(
      readSchema(),
    );
    const valid = validate(doc);
    assert.deepEqual(
      (validate.errors ?? []).filter((e: ErrorObject) => e.keyword !== "if"),
      [],
    );
    assert.ok(valid);
    const c = doc.capacity;
    assert.ok(["target", "generator", "nobody"].includes(c.limitedBy), c.limitedBy);
    assert.equal(c.arrivals, "poisson");
    const found = c.sustainedPerSecond ?? 0;
    // No more than the arithmetic allows, whoever ended the search.
    assert.ok(found > 0 && found <= 205, `${found}/s`);
    assert.ok(c.steps.every((s) => s.result.schema === "mailvolley/result@1"));
    assert.ok(out.stdout.includes(`reuse: ${c.headline}`), out.stdout);
    assert.ok(readFileSync(html, "utf8").includes(`<p class="capacity-headline">`));
    assert.ok(readFileSync(html, "utf8").includes(`<svg class="capacity"`));
    if (c.limitedBy !== "target") {
      // A loaded machine may be the limit: then the search says so.
      assert.match(c.headline, /^Sustains at least /);
      return;
    }
    assert.ok(found >= 160, `${found}/s: within 15 % below 200/s (a bisection step of 5 % beside)`);
    assert.deepEqual(
      c.levels.map((l) => [l.percent, l.ratePerSecond, Object.keys(l).sort()]),
      [80, 100, 120].map((p) => [
        p,
        c.steps[c.levels[[80, 100, 120].indexOf(p)].step].ratePerSecond,
        ["pass", "percent", "ratePerSecond", "step"],
      ]),
    );
    assert.equal(c.levels[0].pass, true, "the 80 % step passes");
    assert.match(
      c.headline,
      /^Sustains (1\d\d|20[0-5]) messages\/s \([\d,]+\/min\) at the front door within the service levels; at 120 % \(\d+\/s\) /,
    );
  });

  test("--min above the rate found: exit 99, and the line says so", async () => {
    const out = await mailvolley([
      "capacity",
      slow.target,
      "-s",
      "4",
      "--from-rate",
      "20",
      "--step",
      "1s",
      "--warmup",
      "0s",
      "--budget",
      "1s",
      "--min",
      "1000/s",
    ]);
    assert.equal(out.code, 99, out.stderr);
    assert.match(out.stderr, /mailvolley capacity: reuse: 20\/s is below --min 1,000\/s/);
    // The budget ends the search after its first step, or (a loaded machine) the generator does.
    assert.match(
      out.stdout,
      /reuse: Sustains at least 20 messages\/s \(1,200\/min\) at the front door/,
    );
  });

  test("no step passes: exit 1, and the headline names what failed", async () => {
    const rejecting = await sinkWith("dot:554");
    try {
      const out = await mailvolley(["capacity", rejecting.target, "-s", "2", "--step", "1s"]);
      assert.equal(out.code, 1, out.stderr);
      assert.match(
        out.stdout,
        /reuse: No step met the service levels: in the first, closed-model step transaction p95 had no sample and [\d.]+ % of arrivals ended in an error\./,
      );
    } finally {
      await rejecting.sink.close();
    }
  });

  test("bad input: exit 2 and one line naming the option", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["--rate", "100"],
        /^mailvolley: --rate: not an option of capacity: each step's rate is the search's: give the first one with --from-rate\n$/,
      ],
      [["--qos", "connect fast"], /^mailvolley: --qos: .*e\.g\. 'connect p95<5s'/],
      [
        ["--mode", "sideways"],
        /^mailvolley: --mode: "sideways": give reuse, per-message or both\n$/,
      ],
      [["--resolution", "0"], /^mailvolley: --resolution: /],
      [["--arrivals", "bursty"], /^mailvolley: --arrivals: "bursty": give constant or poisson\n$/],
    ];
    for (const [args, message] of cases) {
      const out = await mailvolley(["capacity", "127.0.0.1:9", ...args]);
      assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
      assert.match(out.stderr, message);
    }
  });
});
