/**
 * Letters users bring from other tools (issue 13 item 6, issue 16 "Also"): ab's -n (requests)
 * and -c (concurrency) are -m and -s, smtp-source's -L is --lmtp.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";

test("ab's -n and -c, and smtp-source's -L, do what -m, -s and --lmtp do", async () => {
  const out = await mailvolley([
    "run",
    "-n",
    "7",
    "-c",
    "2",
    "-L",
    "--workers",
    "1",
    "--json",
    "-",
  ]);
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout) as Result;
  assert.equal(result.messages.attempted, 7);
  assert.equal(result.messages.accepted, 7);
  assert.equal(result.sessions, 2);
  assert.equal(result.sink?.messagesAccepted, 7);
  const trace = await mailvolley(["run", "-n", "1", "-c", "1", "-L", "--workers", "1", "-v", "-q"]);
  assert.equal(trace.code, 0, trace.stderr);
  assert.match(trace.stderr, /LHLO /);
});
