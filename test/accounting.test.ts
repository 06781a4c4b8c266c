/**
 * Every message a run was asked for is counted once: attempted (accepted, rejected or failed,
 * unsent ones among the failed) plus dropped arrivals equals -m, in both modes and both load
 * models, here with the target down (nothing listens on port 1 of loopback).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mailvolley } from "./helpers/cli.js";

const ASKED = 20;
const rows: [mode: string, model: string[]][] = [
  ["reuse", ["--rate", "10/s"]],
  ["per-message", ["--rate", "10/s"]],
  ["reuse", []],
  ["per-message", []],
];

describe("accounting: a run against a closed port counts every message asked for", () => {
  for (const [mode, model] of rows) {
    const args = ["run", "127.0.0.1:1", "--mode", mode, ...model, "-m", `${ASKED}`, "-s", "2"];
    test(args.join(" "), async () => {
      const out = await mailvolley([...args, "--json", "-", "-q"], 60_000);
      assert.equal(out.code, 1, out.stderr);
      const result = JSON.parse(out.stdout);
      const m = result.messages;
      assert.equal(m.attempted, m.accepted + m.rejected + m.failed);
      assert.equal(m.attempted + m.dropped, ASKED, JSON.stringify(m));
      assert.equal(result.generator.limitedBy, "nobody");
      assert.match(result.generator.reasons[0], /no connection reached a banner/);
    });
  }
});
