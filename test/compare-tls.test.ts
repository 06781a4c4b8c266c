/**
 * compare --starttls makes three runs (per message with full handshakes, per message resumed,
 * reuse): its verdict, headline, progress lines and --out totals speak of three runs, never of
 * "both", and name each run as its column does.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ratioVerdict } from "../src/report/verdict.js";
import type { GeneratorResult, Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { tempDir } from "./helpers/tmp.js";

/** A fixed run whose generator verdict says the target set its rate. */
function limitedByTarget(mode: "per-message" | "reuse"): Result {
  const generator = { limitedBy: "target", reasons: [], advice: "", threads: [] };
  return { ...fixedResult(mode), generator: generator as unknown as GeneratorResult };
}

describe("compare with three runs", () => {
  test("the ratio verdict counts the runs it speaks of", () => {
    const two = [limitedByTarget("per-message"), limitedByTarget("reuse")];
    assert.match(ratioVerdict(two)?.text ?? "", /^Both runs were limited by the target/);
    const three = [limitedByTarget("per-message"), ...two];
    const text = ratioVerdict(three)?.text ?? "";
    assert.match(text, /^All three runs were limited by the target/);
    assert.doesNotMatch(text, /both/i);
  });

  test("compare --starttls: rate limits and progress named per run, for all three", async () => {
    const args = ["compare", "--starttls", "-m", "30", "-s", "3", "--pause", "0"];
    // Every 10th MAIL refused for policy (RFC 3463 4.7.1): 3 of each run's 30, however timed.
    args.push("--sink-fault", "mail:450:every=10:text=4.7.1 too much mail");
    const prom = join(tempDir("mailvolley-compare-tls-"), "totals.prom");
    args.push("--out", `prometheus=${prom}`);
    const out = await mailvolley(args, 120_000);
    assert.equal(out.code, 0, out.stderr);
    // Each run's totals under its own name: the resumed run does not overwrite the full one.
    const totals = readFileSync(prom, "utf8");
    for (const run of ["per-message full", "per-message resumed", "reuse"]) {
      const sent = new RegExp(
        `^mailvolley_messages_total\\{mode="${run}",outcome="sent"\\} 30$`,
        "m",
      );
      assert.match(totals, sent);
      const rejected = `mailvolley_messages_total{mode="${run}",outcome="rejected"} 3`;
      assert.ok(totals.includes(rejected), `${rejected} in\n${totals}`);
    }
    for (const run of ["per-message full", "per-message resumed", "reuse"]) {
      assert.match(out.stderr, new RegExp(`^mailvolley compare: ${run} run…$`, "m"));
    }
    assert.match(
      out.stdout,
      /^Message rate limits answered 3 times per-message full, 3 times per-message resumed and 3 times with reuse: reuse does not dodge those\.$/m,
    );
    assert.match(
      out.stdout,
      /^First rate limit: .* into the per-message full run, .*; .* into the per-message resumed run, .*; .* into the reuse run, /m,
    );
    assert.match(out.stdout, /p50 reuse \/ full +p99 reuse \/ full/);
    assert.doesNotMatch(out.stdout, /Both runs/);
  });
});
