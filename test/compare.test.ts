/**
 * compare against the built-in sink playing a gateway with a connection rate limit: the
 * per-message run meets 421s at the banner that the reuse run avoids. And the CLI's contract:
 * JSON with both runs, thresholds exiting 99, bad threshold text exiting 2.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildRunConfig } from "../src/config/run-config.js";
import { parseSinkSettings } from "../src/config/sink-config.js";
import type { Result } from "../src/result/result.js";
import { executeRun } from "../src/run/run.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

test("per-message meets the gateway's connection rate limit; reuse does not", async () => {
  const sink = parseSinkSettings({ maxConnectionRate: "30/60s" });
  const runs: Result[] = [];
  for (const mode of ["per-message", "reuse"]) {
    const config = buildRunConfig({ mode, sessions: 4, messages: 200, workers: 1 });
    runs.push((await executeRun(config, {}, { sink })).result);
  }
  const [perMessage, reuse] = runs;
  assert.ok(perMessage.errorClasses.refused >= 150, JSON.stringify(perMessage.errorClasses));
  assert.equal(perMessage.errors[0].reply, "421");
  assert.equal(perMessage.errors[0].phase, "banner");
  assert.equal(perMessage.connections.refused, perMessage.errorClasses.refused);
  assert.equal(reuse.errorClasses.refused, 0);
  assert.equal(reuse.messages.accepted, 200);
  assert.equal(reuse.connections.opened, 4);
});

test("mailvolley compare: both runs in the JSON, side by side on stdout", async () => {
  const dir = tempDir("mailvolley-compare-");
  const json = join(dir, "compare.json");
  const out = await mailvolley([
    "compare",
    ...["-s", "3", "-m", "120", "--workers", "1", "--pause", "0", "--order", "reuse,per-message"],
    ...["--sink-max-connection-rate", "20/60s", "--json", json],
  ]);
  assert.equal(out.code, 0, out.stderr);
  const doc = JSON.parse(readFileSync(json, "utf8")) as { schema: string; runs: Result[] };
  assert.equal(doc.schema, "mailvolley/compare@1");
  assert.deepEqual(
    doc.runs.map((r) => r.mode),
    ["reuse", "per-message"],
  );
  assert.match(out.stdout, /Session reuse delivered/);
  assert.match(out.stdout, /refused by gateway/);
  // 100 of 120 per-message connections refused: the gateway's policy set that run's rate, however
  // busy the generator was spinning through the refusals.
  const perMessage = doc.runs[1];
  assert.equal(perMessage.connections.refused, 100);
  assert.equal(perMessage.generator?.limitedBy, "target");
  assert.match(perMessage.generator?.reasons[0] ?? "", /turned away 100 of 120 messages/);
  assert.match(out.stdout, /per-message run: limited by the target/);
  assert.match(out.stdout, /reuse \/ per-message/);
});

test("a breached threshold prints the breach and exits 99; a kept one exits 0", async () => {
  const common = ["run", "-s", "2", "-m", "50", "--workers", "1", "-q"];
  const breached = await mailvolley([...common, "--threshold", "p99<0.001ms"]);
  assert.equal(breached.code, 99, breached.stderr);
  assert.match(breached.stderr, /threshold breached: p99<0.001ms/);
  const kept = await mailvolley([
    ...common,
    "--threshold",
    "error_rate<1%",
    "--threshold",
    "p99<60s",
  ]);
  assert.equal(kept.code, 0, kept.stderr);
});

test("bad threshold text is one line naming --threshold, exit 2", async () => {
  for (const bad of ["p99<<5", "p42<5ms", "p99{phase:nope}<5ms", "error_rate<5ms", "rate>fast"]) {
    const out = await mailvolley(["run", "-m", "1", "--threshold", bad]);
    assert.equal(out.code, 2, `${bad}: ${out.stderr}`);
    assert.match(out.stderr, /^mailvolley: --threshold: /);
    assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
  }
});

test("mailvolley report re-renders a saved result in longer intervals, as HTML too", async () => {
  const dir = tempDir("mailvolley-report-");
  const json = join(dir, "run.json");
  const run = await mailvolley([
    "run",
    "-s",
    "2",
    "-m",
    "100",
    "--workers",
    "1",
    "-q",
    "--json",
    json,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const html = join(dir, "run.html");
  const regrouped = join(dir, "regrouped.json");
  const out = await mailvolley([
    "report",
    json,
    "--granularity",
    "2s",
    "--html",
    html,
    "--json",
    regrouped,
  ]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /Statistics/);
  assert.equal((JSON.parse(readFileSync(regrouped, "utf8")) as Result).series.intervalMs, 2000);
  assert.match(readFileSync(html, "utf8"), /^<!doctype html>/);
  const bad = await mailvolley(["report", json, "--granularity", "1500ms"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--granularity/);
});
