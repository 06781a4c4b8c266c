/**
 * SIGINT, then SIGTERM, at moments drawn from a seeded PRNG over many self-tests: the first
 * signal drains, the second cuts what is in flight. Each time the client's accepted count must
 * lie within what its embedded sink took: accepted <= sink accepted <= accepted + unconfirmed
 * (a message cut off after its data went whole may have been taken). The moments are events the
 * run prints (its -v trace of session 0), not sleeps.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { test } from "node:test";
import type { Result } from "../src/result/result.js";
import { startMailvolley } from "./helpers/cli.js";
import { prng } from "./helpers/prng.js";

const RUNS = 12;

/** What a child wrote to stderr, from its start, and waits on it that end when it ends. */
class Stderr {
  text = "";
  private ended = false;
  private readonly waiters = new Set<() => void>();

  constructor(child: ChildProcess) {
    child.stderr!.on("data", (chunk: Buffer | string) => {
      this.text += chunk.toString();
      for (const waiter of this.waiters) waiter();
    });
    child.stderr!.once("end", () => {
      this.ended = true;
      for (const waiter of this.waiters) waiter();
    });
  }

  /**
   * Resolves with the position after the `n`th match of `pattern` (a /g RegExp) found from
   * `from` on; with the end of the text when the child ended first.
   */
  after(pattern: RegExp, n: number, from = 0): Promise<number> {
    return new Promise((resolve) => {
      const check = () => {
        const matches = [...this.text.slice(from).matchAll(pattern)];
        const hit = n <= 0 ? { index: 0, 0: "" } : matches[n - 1];
        if (hit === undefined && !this.ended) return;
        this.waiters.delete(check);
        resolve(hit === undefined ? this.text.length : from + hit.index! + hit[0].length);
      };
      this.waiters.add(check);
      check();
    });
  }
}

test("SIGINT then SIGTERM at random moments: accepted <= sink <= accepted + unconfirmed", async () => {
  const next = prng(3707);
  const pick = (n: number) => Math.floor(next() * n);
  for (let run = 0; run < RUNS; run++) {
    const mode = pick(2) === 0 ? "reuse" : "per-message";
    const chunking = mode === "reuse" && pick(2) === 0 ? ["--chunking"] : [];
    // Final replies held a while, so that messages are in flight whenever a signal comes.
    const args = ["run", "-s", "4", "-m", "300", "--mode", mode, ...chunking, "-v"];
    args.push("--sink-fault", "dot:ok:delay=10ms-120ms", "--grace", "30s", "--json", "-");
    const { child, done } = startMailvolley([...args, "--workers", "1"], 60_000);
    const trace = new Stderr(child);
    // The first signal after 1 to 60 lines of session 0's conversation (the banner first)...
    const first = 1 + pick(60);
    await trace.after(/^[<>] /gm, first);
    child.kill("SIGINT");
    // ...the second once the run said it is stopping, then after 0 to 3 more final replies.
    const stopping = await trace.after(/stopping/g, 1);
    await trace.after(/^< 250 2\.0\.0/gm, pick(4), stopping);
    child.kill("SIGTERM");
    const { code, stdout, stderr } = await done;
    const what = `run ${run} (${args.join(" ")}; SIGINT after ${first} lines): exit ${code}`;
    assert.ok(code === 130 || code === 0, `${what}: ${stderr.slice(-400)}`);
    const result = JSON.parse(stdout) as Result;
    const m = result.messages;
    const unconfirmed = m.unconfirmed ?? 0;
    assert.equal(m.attempted, m.accepted + m.rejected + m.failed + unconfirmed, what);
    const sink = result.sink?.messagesAccepted ?? -1;
    const counts = `${what}: client ${JSON.stringify(m)}, sink accepted ${sink}`;
    assert.ok(m.accepted <= sink, `the client accepted what the sink did not take: ${counts}`);
    assert.ok(sink <= m.accepted + unconfirmed, `the sink took what the client failed: ${counts}`);
  }
});
