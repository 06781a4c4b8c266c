/**
 * Through a Postfix relay with the load on two worker threads: each thread streams its accept
 * records to the main thread's join over its port while the run goes, the last of them after
 * the thread's result, and every message is still joined once.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { mailvolley } from "./helpers/cli.js";
import { freePort, HOST, requirePeer } from "./helpers/peer.js";
import { havePostfixRelay, startPostfixRelay } from "./helpers/postfix-relay.js";
import { tempDir } from "./helpers/tmp.js";

const MESSAGES = 600;

test("two worker threads stream their accept records to the join", {
  timeout: 180_000,
}, async (t) => {
  if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
  const receiverPort = await freePort();
  const postfix = await startPostfixRelay({ receiverPort });
  const file = join(tempDir("mailvolley-workers-"), "result.json");
  try {
    const out = await mailvolley(
      ["run", `${HOST}:${postfix.port}`, "--receive", `${HOST}:${receiverPort}`].concat(
        ["-m", String(MESSAGES), "-s", "6", "--workers", "2", "--drain-timeout", "60s", "-q"],
        ["--json", file],
      ),
      150_000,
    );
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(readFileSync(file, "utf8"));
    const d = result.delivery;
    assert.equal(result.generator.threads.length, 3, "the main thread and two workers");
    assert.deepEqual(
      [d.accepted, d.delivered, d.lost, d.duplicated, d.unconfirmed],
      [MESSAGES, MESSAGES, 0, 0, 0],
    );
    assert.equal(d.endToEndMs.count, MESSAGES);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    assert.equal(sum(d.perSecond.accepted), MESSAGES);
    assert.equal(sum(d.perSecond.delivered), MESSAGES);
    assert.ok(d.backlogMax >= 1 && d.backlogMax <= MESSAGES, `backlogMax ${d.backlogMax}`);
    assert.equal(d.keys.traceHeader, MESSAGES);
  } finally {
    await postfix.stop();
  }
});
