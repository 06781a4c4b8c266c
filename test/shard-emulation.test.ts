/**
 * A Kubernetes Indexed Job, emulated on one machine: N `mailvolley run --shard auto/N` processes,
 * each with its JOB_COMPLETION_INDEX and one --start-at, against one external `mailvolley sink`
 * process, then `mailvolley merge`. The shards together must be the unsharded run: the sink
 * counts what they sent, per class exactly, every sequence number once, and the merged counts
 * equal one unsharded run of the same load. Closed model (-m) and open model (--rate with -m).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Result } from "../src/result/result.js";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const SHARDS = 3;
const MESSAGES = 90;
/** Shares 3:2:1 over 90 messages: exact class counts. */
const CLASSES = { bulk: 45, news: 30, vip: 15 };

interface SinkCounts {
  messages: { accepted: number; rejected: number };
  recipients: { accepted: number };
  classes: Record<string, { accepted: number; rejected: number }>;
}

/** A `mailvolley sink` process on a free port that dumps what it accepts into `dump`. */
async function startSinkProcess(dir: string, name: string) {
  const json = join(dir, `${name}.json`);
  const dump = join(dir, `${name}-dump`);
  const { child, done } = startMailvolley(
    ["sink", "--listen", "127.0.0.1:0", "--json", json, "--dump", dump],
    120_000,
  );
  const port = await new Promise<number>((resolve, reject) => {
    let seen = "";
    child.stderr?.on("data", (s: string) => {
      seen += s;
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", () => reject(new Error(`the sink exited: ${seen}`)));
  });
  return {
    target: `127.0.0.1:${port}`,
    /** Stops the sink and returns its counts and the sequence numbers of the messages it took. */
    async stop(): Promise<{ counts: SinkCounts; seqs: number[] }> {
      child.kill("SIGTERM");
      const out = await done;
      assert.equal(out.code === 0 || out.code === 1, true, out.stderr);
      const counts = JSON.parse(readFileSync(json, "utf8")) as SinkCounts;
      const seqs = readdirSync(dump).map((file) => {
        const text = readFileSync(join(dump, file), "latin1");
        const match = /^Message-ID: <0*(\d+)\./m.exec(text);
        assert.ok(match, `${file} has a Message-ID`);
        return Number(match[1]);
      });
      return { counts, seqs };
    },
  };
}

/** Per class: [name, attempted, accepted]. */
const classCounts = (r: Result) => r.classes.map((c) => [c.name, c.attempted, c.accepted]);

async function emulate(label: string, load: string[]): Promise<void> {
  const dir = tempDir("mailvolley-shard-emulation-");
  const plan = join(dir, "plan.yaml");
  writeFileSync(
    plan,
    [
      "classes:",
      ...Object.entries(CLASSES).map(([name, n]) => `  - { name: ${name}, share: ${n / 15} }`),
      "",
    ].join("\n"),
  );
  const options = ["--plan", plan, "-m", String(MESSAGES), "-s", "6", "-r", "2", "-N", ...load];

  const sink = await startSinkProcess(dir, "sink");
  // Far enough ahead for three Node.js processes to start on a busy machine; if one is later,
  // it starts at once and its result says how late.
  const startAt = (Date.now() + 3000) / 1000;
  const shards = Array.from({ length: SHARDS }, (_, i) => {
    const file = join(dir, `shard-${i}.json`);
    const args = ["run", sink.target, ...options, "--shard", `auto/${SHARDS}`];
    const run = startMailvolley(
      // Machines differ in threads: the split and the load's hash do not depend on them.
      [...args, "--start-at", String(startAt), "--json", file, "-q", "--workers", `${1 + (i % 2)}`],
      120_000,
      { JOB_COMPLETION_INDEX: String(i) },
    );
    return { file, done: run.done };
  });
  for (const [i, shard] of shards.entries()) {
    const out = await shard.done;
    assert.equal(out.code, 0, `${label} shard ${i}: ${out.stderr}`);
  }
  const { counts, seqs } = await sink.stop();
  const results = shards.map((s) => JSON.parse(readFileSync(s.file, "utf8")) as Result);

  // The sum of accepted is the sink's count, and each shard sent only its stripe.
  const accepted = results.reduce((n, r) => n + r.messages.accepted, 0);
  assert.equal(accepted, MESSAGES, label);
  assert.equal(counts.messages.accepted, accepted, label);
  assert.deepEqual(
    seqs.sort((a, b) => a - b),
    Array.from({ length: MESSAGES }, (_, k) => k),
    `${label}: every sequence number (and so every generated address) once across the shards`,
  );
  assert.deepEqual(
    Object.fromEntries(Object.entries(counts.classes).map(([n, c]) => [n, c.accepted])),
    CLASSES,
    `${label}: the sink's per-class counts are exact`,
  );
  assert.equal(counts.recipients.accepted, 2 * MESSAGES);
  for (const [i, r] of results.entries()) {
    assert.equal(r.shard?.index, i);
    assert.equal(r.shard?.configHash, results[0].shard?.configHash);
    assert.equal(r.shard?.startAt, new Date(Math.round(startAt * 1000)).toISOString());
    assert.ok((r.shard?.startLatenessMs ?? -1) >= 0, `${label} shard ${i} never starts early`);
  }

  const out = await mailvolley(["merge", ...shards.map((s) => s.file), "--json", "-", "-q"]);
  assert.equal(out.code, 0, out.stderr);
  const merged = JSON.parse(out.stdout) as Result;
  assert.deepEqual(
    merged.shards?.map((s) => s.index),
    [0, 1, 2],
  );

  // One unsharded run of the same load, against a sink of its own.
  const wholeSink = await startSinkProcess(dir, "whole");
  const whole = await mailvolley(["run", wholeSink.target, ...options, "--json", "-", "-q"]);
  assert.equal(whole.code, 0, whole.stderr);
  await wholeSink.stop();
  const unsharded = JSON.parse(whole.stdout) as Result;
  assert.deepEqual(merged.messages, unsharded.messages, `${label}: merged = unsharded`);
  assert.deepEqual(merged.recipients, unsharded.recipients);
  assert.deepEqual(classCounts(merged), classCounts(unsharded));
  assert.deepEqual(
    classCounts(merged),
    Object.entries(CLASSES).map(([name, n]) => [name, n, n]),
  );
  assert.equal(merged.sessions, unsharded.sessions);
}

describe("one run over three emulated pods", { timeout: 240_000 }, () => {
  test("closed model: -m split across the shards", () => emulate("closed", []));

  test("open model: --rate with -m, arrivals striped across the shards", () =>
    // A generous --max-delay: on a busy test machine no arrival may be dropped, or the
    // merged counts could not equal the unsharded run's.
    emulate("open", ["--rate", "300", "--max-delay", "60s"]));
});
