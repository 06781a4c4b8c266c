/**
 * Warnings: a reply mailvolley accepts though it bends a rule is counted, not hidden and not
 * failed. Postfix smtp-sink answers every RSET with `250 2.1.0 Ok` (an address status where
 * RFC 3463 has none): the run keeps its sessions, and the warning count is the number of RSETs
 * smtp-sink's own -v log shows, summed over two threads, in the JSON, the terminal, the HTML
 * and after `report` and `merge`. The built-in sink answers RSET `250 2.0.0`: no warning.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { requirePeer } from "./helpers/peer.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-warnings-");
const MESSAGES = 20;

function readResult(path: string): Result {
  return JSON.parse(readFileSync(path, "utf8")) as Result;
}

function rsetWarnings(result: Result): number {
  return result.warnings?.find((w) => w.code === "rset-status")?.count ?? 0;
}

for (const mode of ["reuse", "per-message"] as const) {
  test(`smtp-sink's 250 2.1.0 to RSET, ${mode}: one warning per RSET, over both threads`, async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    // -f rcpt: every RCPT gets a 5xx, so every transaction ends with an RSET (or QUIT).
    const peer = await startPostfixSmtpSink({ args: ["-v", "-f", "rcpt"] });
    const json = join(dir, `${mode}.json`);
    const html = join(dir, `${mode}.html`);
    let out: Awaited<ReturnType<typeof mailvolley>>;
    try {
      const target = `${peer.host}:${peer.port}`;
      const args = ["-m", String(MESSAGES), "-s", "4", "--workers", "2", "--mode", mode];
      out = await mailvolley(["run", target, ...args, "--json", json, "--html", html]);
    } finally {
      await peer.stop();
    }
    const rsets = ((await peer.log()).match(/: RSET$/gm) ?? []).length;
    const result = readResult(json);
    assert.equal(result.messages.rejected, MESSAGES, out.stderr);
    const workers = result.generator?.threads.filter((th) => th.name.startsWith("worker"));
    assert.equal(workers?.length, 2, "two threads counted");
    assert.deepEqual(
      result.errors.map((e) => e.reply),
      ["500"],
      "RCPT's 500 is the only error: RSET's 2.1.0 is no protocol error",
    );
    assert.equal(rsetWarnings(result), rsets, "one warning per RSET smtp-sink read");
    assert.ok(rsets > 0, "the run sent RSETs");
    // Reuse keeps its 4 sessions; per-message opens one connection a message.
    const connections = mode === "reuse" ? 4 : MESSAGES;
    assert.equal(result.connections.opened, connections, "no session lost to the RSET reply");
    assert.equal(result.warnings?.[0].firstReply, "250 2.1.0 Ok");
    const line = new RegExp(
      `^Warnings +rset-status ×${rsets}: RSET answered with an address status .*; first reply: 250 2\\.1\\.0 Ok$`,
      "m",
    );
    assert.match(out.stdout, line);
    assert.match(
      readFileSync(html, "utf8"),
      new RegExp(`data-field="warnings\\.0\\.count" data-value="${rsets}"`),
    );
    if (mode === "per-message") return; // report and merge read both modes alike
    // A saved result's warnings are read back (schema-checked) and add up when merged.
    const report = await mailvolley(["report", json]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, line);
    const merged = join(dir, "merged.json");
    // A second run of the same figures (one result given twice is refused).
    const twin = join(dir, "twin.json");
    const other = readResult(json);
    other.runId = other.runId.split("").reverse().join("");
    writeFileSync(twin, JSON.stringify(other));
    const merge = await mailvolley(["merge", json, twin, "-q", "--json", merged]);
    assert.equal(merge.code, 0, merge.stderr);
    assert.equal(rsetWarnings(readResult(merged)), 2 * rsets);
  });
}

test("compare: each run's rset-status count in its column, the two adding up to smtp-sink's RSETs", async (t) => {
  if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
  const peer = await startPostfixSmtpSink({ args: ["-v", "-f", "rcpt"] });
  const json = join(dir, "compare.json");
  let out: Awaited<ReturnType<typeof mailvolley>>;
  try {
    const target = `${peer.host}:${peer.port}`;
    out = await mailvolley(["compare", target, "-m", "8", "-s", "2", "--json", json]);
  } finally {
    await peer.stop();
  }
  const rsets = ((await peer.log()).match(/: RSET$/gm) ?? []).length;
  const runs = (JSON.parse(readFileSync(json, "utf8")) as { runs: Result[] }).runs;
  const counts = runs.map(rsetWarnings);
  assert.equal(counts[0] + counts[1], rsets, out.stderr);
  assert.ok(rsets > 0, "the runs sent RSETs");
  assert.match(out.stdout, new RegExp(`^  rset-status +${counts[0]} +${counts[1]} `, "m"));
});

test("the built-in sink answers RSET 250 2.0.0: RSETs sent, no warning", async () => {
  const json = join(dir, "builtin.json");
  // One session, so that -v traces every command.
  const out = await mailvolley([
    "run",
    "-m",
    "6",
    "-s",
    "1",
    "-v",
    "--sink-fault",
    "rcpt:550",
    "--json",
    json,
  ]);
  assert.ok((out.stderr.match(/^> RSET$/gm) ?? []).length > 0, "the run sent RSETs");
  const result = readResult(json);
  assert.equal(result.messages.rejected, 6, out.stderr);
  assert.equal(result.warnings, undefined);
  assert.doesNotMatch(out.stdout, /^Warnings/m);
});
