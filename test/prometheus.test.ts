/**
 * --out prometheus=FILE: Prometheus' text exposition of the running totals, for node_exporter's
 * textfile collector: valid lines, the Result's totals at the end, and whole files while the run
 * goes (a killed run leaves its last complete interval).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Result } from "../src/result/result.js";
import { ERROR_CLASSES } from "../src/stats/errors.js";
import { mailvolley, startMailvolley } from "./helpers/cli.js";

/** Every sample as "name{labels}" → value, checking each line against the 0.0.4 grammar. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  assert.ok(text.endsWith("\n"), "the file ends with a line end");
  for (const line of text.trimEnd().split("\n")) {
    const help = /^# HELP ([a-z_]+) \S.*$/.exec(line);
    const type = /^# TYPE ([a-z_]+) (counter|gauge)$/.exec(line);
    if (help) continue;
    if (type) {
      typed.add(type[1]);
      continue;
    }
    const m = /^([a-z_]+)\{((?:[a-z_]+="[^"]*",?)*)\} (-?[0-9.]+(?:e[+-]?\d+)?)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    assert.ok(typed.has(m[1]), `${m[1]} has no TYPE before its samples`);
    samples.set(`${m[1]}{${m[2]}}`, Number(m[3]));
  }
  return samples;
}

describe("--out prometheus=FILE", () => {
  test("at the end: the Result's totals, by mode and outcome, with the verdict", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mv-prom-"));
    try {
      const file = join(dir, "mailvolley.prom");
      const json = join(dir, "r.json");
      const out = await mailvolley([
        "run",
        "-m",
        "300",
        "-s",
        "3",
        "--rate",
        "400",
        "-q",
        "--json",
        json,
        "--out",
        `prometheus=${file}`,
      ]);
      assert.equal(out.code, 0, out.stderr);
      const r = JSON.parse(readFileSync(json, "utf8")) as Result;
      const s = parse(readFileSync(file, "utf8"));
      const total = (outcome: string) =>
        s.get(`mailvolley_messages_total{mode="reuse",outcome="${outcome}"}`);
      assert.equal(total("sent"), r.messages.attempted);
      assert.equal(total("accepted"), r.messages.accepted);
      assert.equal(total("failed"), r.messages.failed);
      assert.equal(total("dropped"), r.messages.dropped);
      assert.equal(
        s.get('mailvolley_connections_opened_total{mode="reuse"}'),
        r.connections.opened,
      );
      assert.equal(s.get('mailvolley_elapsed_seconds{mode="reuse"}'), r.elapsedSeconds);
      const verdict = `mailvolley_limited_by{mode="reuse",verdict="${r.generator?.limitedBy}"}`;
      assert.equal(s.get(verdict), 1);
      assert.deepEqual(
        [...s.keys()].filter((k) => k.startsWith("mailvolley_errors_total")).length,
        ERROR_CLASSES.length,
        "one sample per error class",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("while the run goes the file is whole: a killed run leaves its last interval's totals", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mv-prom-"));
    try {
      const file = join(dir, "mailvolley.prom");
      const { child, done } = startMailvolley(
        ["run", "-s", "2", "-d", "60s", "--rate", "100", "-q", "--out", `prometheus=${file}`],
        30_000,
      );
      // Positive signal: a file with some messages sent, while the run goes (bounded poll).
      const sent = () =>
        existsSync(file)
          ? (parse(readFileSync(file, "utf8")).get(
              'mailvolley_messages_total{mode="reuse",outcome="sent"}',
            ) ?? 0)
          : 0;
      for (let i = 0; i < 2000 && sent() === 0; i++) await sleep(10);
      assert.ok(sent() > 0, "no totals written while the run went");
      child.kill("SIGKILL");
      await done;
      const s = parse(readFileSync(file, "utf8"));
      assert.ok((s.get('mailvolley_messages_total{mode="reuse",outcome="accepted"}') ?? 0) > 0);
      assert.equal(s.get('mailvolley_elapsed_seconds{mode="reuse"}'), undefined, "not the end");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an unknown format is one line naming the three, exit 2", async () => {
    const out = await mailvolley(["run", "-m", "5", "--out", "prom=x.prom"]);
    assert.equal(out.code, 2);
    assert.equal(
      out.stderr,
      'mailvolley: --out: "prom=x.prom": give ndjson=FILE, csv=FILE or prometheus=FILE\n',
    );
  });
});
