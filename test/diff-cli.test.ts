/**
 * `run --repeat` and `mailvolley diff` through the built bin, with a known difference and with
 * none: two built-in sinks that hold each message's final reply 2 ms and 5 ms
 * (--fault dot:ok:delay=…), a lock-step single session, 5 runs each. What is asserted is the
 * verdict, never a speed: 3 ms more per message is a difference no loaded machine hides.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { type Sink, startSink } from "../src/sink/index.js";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { readSchema } from "./helpers/schema-fields.js";
import { tempDir } from "./helpers/tmp.js";

/** The shipped schema, strict, with mailvolley's one annotation keyword. */
const valid = new Ajv2020({ strict: true, allErrors: true, keywords: ["better"] }).compile(
  readSchema(),
);

interface DiffJson {
  schema: string;
  diff: {
    conclusive: boolean;
    loadDifferences: string[];
    figures: {
      figure: string;
      change: number | null;
      p: number | null;
      significant: boolean;
      verdict: string;
    }[];
    failIf: { expression: string; breached: boolean }[];
  };
}

const dir = tempDir("mailvolley-diff-");
const at = (name: string) => join(dir, name);
const read = <T>(name: string): T => JSON.parse(readFileSync(at(name), "utf8")) as T;

/** `run TARGET` lock-step over one session, as the known difference has it. */
const lockStep = (target: string, ...more: string[]) => [
  "run",
  target,
  "-s",
  "1",
  "--pipelining",
  "off",
  ...more,
];

describe("diff of a known difference and of none", () => {
  const sinks: Sink[] = [];
  const targets: string[] = [];

  before(async () => {
    for (const delay of ["2ms", "5ms"]) {
      const sink = await startSink(
        fillSinkOptions({ listen: ["127.0.0.1:0"], faults: [`dot:ok:delay=${delay}`] }),
      );
      sinks.push(sink);
      targets.push(`${sink.addresses[0].host}:${sink.addresses[0].port}`);
    }
    for (const [i, name] of ["a.json", "b.json"].entries()) {
      const args = lockStep(targets[i], "-m", "300", "--repeat", "5", "--pause", "0s");
      const { code, stdout, stderr } = await mailvolley([...args, "--json", at(name)], 120_000);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^Repeated {6}5 runs; the figures above are the last run's$/m);
      assert.match(stdout, /^ {2}throughput +[\d,.]+ ± [\d,.]+ /m);
      assert.match(stderr, /mailvolley: run 5 of 5…/);
    }
  });

  after(async () => {
    for (const sink of sinks) await sink.close();
  });

  test("the result keeps each run's figures and each figure's spread", () => {
    const result = read<{
      runId: string;
      repeat: Record<string, never> & {
        count: number;
        runs: { runId: string; figures: { throughput: number } }[];
        spread: { throughput: { runs: number; ciLow: number; ciHigh: number } };
      };
    }>("a.json");
    assert.equal(result.repeat.count, 5);
    assert.equal(result.repeat.runs.length, 5);
    assert.equal(new Set(result.repeat.runs.map((r) => r.runId)).size, 5, "a run id each");
    assert.equal(result.repeat.runs[4].runId, result.runId, "the rest is the last run's");
    assert.equal(result.repeat.spread.throughput.runs, 5);
    assert.ok(result.repeat.spread.throughput.ciLow < result.repeat.spread.throughput.ciHigh);
  });

  test("2 ms against 5 ms: throughput worse, and significant", async () => {
    const { code, stdout } = await mailvolley([
      "diff",
      at("a.json"),
      at("b.json"),
      "--json",
      at("d.json"),
      "--html",
      at("d.html"),
    ]);
    assert.equal(code, 0);
    const doc = read<DiffJson>("d.json");
    assert.equal(doc.schema, "mailvolley/diff@1");
    assert.ok(valid(doc), JSON.stringify(valid.errors));
    assert.ok(valid(read("a.json")), JSON.stringify(valid.errors));
    assert.equal(doc.diff.conclusive, true);
    const throughput = doc.diff.figures.find((f) => f.figure === "throughput");
    assert.ok(throughput);
    assert.equal(throughput.significant, true);
    assert.equal(throughput.verdict, "worse");
    assert.ok(throughput.change !== null && throughput.change < 0, `change ${throughput.change}`);
    assert.match(stdout, /^throughput +.+ worse$/m);
    const html = readFileSync(at("d.html"), "utf8");
    assert.equal((html.match(/<circle class="a"/g) ?? []).length >= 5, true);
    assert.match(
      html,
      /<tr data-figure="throughput">.*data-field="diff\.figures\.0\.verdict">worse</,
    );
  });

  test("a result against itself: every figure change 0, not significant, ~", async () => {
    const { code, stdout } = await mailvolley([
      "diff",
      at("a.json"),
      at("a.json"),
      "--json",
      at("same.json"),
    ]);
    assert.equal(code, 0);
    const doc = read<DiffJson>("same.json");
    assert.ok(doc.diff.figures.length >= 5);
    for (const f of doc.diff.figures) {
      assert.equal(f.significant, false, f.figure);
      assert.equal(f.verdict, "~", f.figure);
      assert.equal(f.change, 0, f.figure);
    }
    assert.doesNotMatch(stdout, / (better|worse)$/m);
  });

  test("--fail-if: exit 99 when the change is significant and beyond the bound", async () => {
    const breached = await mailvolley([
      "diff",
      at("a.json"),
      at("b.json"),
      "-q",
      "--fail-if",
      "throughput<-5%",
    ]);
    assert.equal(breached.code, 99);
    assert.equal(breached.stderr, "mailvolley: --fail-if breached: throughput<-5%\n");
    const held = await mailvolley([
      "diff",
      at("a.json"),
      at("a.json"),
      "-q",
      "--fail-if",
      "throughput<-5%",
    ]);
    assert.equal(held.code, 0, held.stderr);
    const bad = await mailvolley([
      "diff",
      at("a.json"),
      at("b.json"),
      "--fail-if",
      "throughput<-5",
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^mailvolley: --fail-if: "throughput<-5": expected FIGURE OP CHANGE%/);
  });

  test("single results a side (a1 a2 -- b1 b2): fewer than 3 runs, nothing concluded", async () => {
    for (const [i, name] of ["a1", "a2", "b1", "b2"].entries()) {
      const { code } = await mailvolley([
        ...lockStep(targets[i < 2 ? 0 : 1], "-m", "50", "-q"),
        "--json",
        at(`${name}.json`),
      ]);
      assert.equal(code, 0);
    }
    const { code, stdout } = await mailvolley([
      "diff",
      at("a1.json"),
      at("a2.json"),
      "--",
      at("b1.json"),
      at("b2.json"),
    ]);
    assert.equal(code, 0);
    assert.match(stdout, /^A {2}.*a1\.json, .*a2\.json \(2 runs\)$/m);
    assert.match(stdout, /^B {2}.*b1\.json, .*b2\.json \(2 runs\)$/m);
    assert.match(stdout, /fewer than 3 runs a side: nothing can be concluded/);
    assert.doesNotMatch(stdout, / (better|worse)$/m);
  });

  test("different loads are refused, the difference named, unless --force", async () => {
    await mailvolley([...lockStep(targets[1], "-m", "50", "-q"), "--json", at("m50.json")]);
    const refused = await mailvolley(["diff", at("a.json"), at("m50.json")]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /^mailvolley: --force: A and B ran different loads \(.*m50\.json: messages: 300 vs 50\); diff runs of one load, or give --force/,
    );
    const forced = await mailvolley(["diff", at("a.json"), at("m50.json"), "--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /load differs \(--force\): .*m50\.json: messages: 300 vs 50/);
  });

  test("compare --repeat: rounds of both modes, and the ratio reuse / per-message with its interval", async () => {
    const args = ["compare", targets[0], "-m", "100", "-s", "2", "--repeat", "2", "--pause", "0s"];
    const { code, stdout } = await mailvolley([
      ...args,
      "--json",
      at("c.json"),
      "--html",
      at("c.html"),
    ]);
    assert.equal(code, 0);
    assert.match(stdout, /^Repeated {6}2 rounds; the columns above are the last round's$/m);
    assert.match(stdout, /^ {2}reuse \/ per-message +mean ± 95 % CI/m);
    assert.match(stdout, /^ {2}throughput +[\d.,]+× ± [\d.,]+ /m);
    const doc = read<{
      runs: { mode: string; repeat: { count: number } }[];
      repeat: { rounds: number; ratios: { throughput: { runs: number } } };
    }>("c.json");
    assert.ok(valid(doc), JSON.stringify(valid.errors));
    assert.deepEqual(
      doc.runs.map((r) => [r.mode, r.repeat.count]),
      [
        ["per-message", 2],
        ["reuse", 2],
      ],
    );
    assert.equal(doc.repeat.rounds, 2);
    assert.equal(doc.repeat.ratios.throughput.runs, 2);
    const html = readFileSync(at("c.html"), "utf8");
    assert.match(html, /<h2>Repeated: reuse \/ per-message over 2 rounds<\/h2>/);
    assert.match(
      html,
      /<tr data-figure="throughput"><td>throughput<\/td><td data-value="[\d.]+">[\d.,]+× ± /,
    );
    assert.match(html, /<h2>Repeated: 2 runs — per-message<\/h2>/);
  });

  test("run --repeat: Ctrl-C during --pause starts no further run and writes the runs made", async () => {
    const args = [...lockStep(targets[0], "-m", "20"), "--repeat", "3", "--pause", "10m"];
    const { child, done } = startMailvolley([...args, "--json", at("stopped.json")]);
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer | string) => {
      stderr += String(chunk);
      if (stderr.includes("pausing 600.0s before run 2 of 3")) child.kill("SIGINT");
    });
    const { code, stderr: all } = await done;
    assert.equal(code, 130, all);
    assert.match(all, /mailvolley: SIGINT: stopping; no further run/);
    const result = read<{ messages: { accepted: number }; repeat: { count: number } }>(
      "stopped.json",
    );
    assert.equal(result.repeat.count, 1);
    assert.equal(result.messages.accepted, 20);
  });
});
