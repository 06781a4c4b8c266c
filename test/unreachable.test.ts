/**
 * A host that never answers a SYN (a firewall's drop, a wrong address): the run ends at its
 * first connect timeout and says so, instead of retrying every session --reconnect-attempts
 * times. The host is a loopback listener whose accept queue is full (helpers/stalled-listener.ts);
 * the counts, not a clock, show that no connection was retried.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { startStalledListener } from "./helpers/stalled-listener.js";

test("a host that drops every SYN: the run ends at the first connect timeout, saying so", async () => {
  const host = await startStalledListener();
  try {
    for (const mode of ["reuse", "per-message"]) {
      const out = await mailvolley([
        "run",
        `127.0.0.1:${host.port}`,
        "--mode",
        mode,
        "-m",
        "20",
        "-s",
        "3",
        "--timeout-connect",
        "1s",
        "--json",
        "-",
        "-q",
      ]);
      assert.equal(out.code, 1, out.stderr);
      const result = JSON.parse(out.stdout) as Result;
      // One connection per session, none retried: 3, where 5 attempts each would open 15.
      assert.equal(result.connections.opened, 3, mode);
      assert.equal(result.connections.established, 0);
      assert.equal(result.messages.accepted, 0);
      assert.equal(result.messages.failed, 20);
      assert.equal(result.accounting?.unsent, mode === "reuse" ? 20 : 17);
      const unsent = result.errors.find((e) => e.class === "unsent");
      assert.equal(
        unsent?.text,
        "no connection: timed out, every connection (--timeout-connect 1s)",
      );
      // Nobody refused them: the verdict says what happened to the connections.
      assert.equal(result.generator?.limitedBy, "nobody");
      assert.deepEqual(result.generator?.reasons, [
        "no connection reached a banner: 3 opened, every one timed out",
      ]);
    }
  } finally {
    await host.stop();
  }
});
