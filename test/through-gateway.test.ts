/**
 * Through the gateway (--receive) against a real private Postfix on loopback that relays
 * everything to the run's receiving sink: what the gateway discards is lost, exactly that
 * class; what the receiver defers comes again and is delivered, with the retries counted.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { mailvolley } from "./helpers/cli.js";
import { freePort, HOST, requirePeer } from "./helpers/peer.js";
import { havePostfixRelay, type RelayOptions, startPostfixRelay } from "./helpers/postfix-relay.js";
import { tempDir } from "./helpers/tmp.js";

interface Delivery {
  accepted: number;
  delivered: number;
  lost: number;
  duplicated: number;
  bounced: number;
  partial: number;
  retried: number;
  retryAttempts: number;
  drainMs: number;
  notices: number;
  foreign: number;
  endToEndMs: { count: number; p99: number };
  classes: Record<string, { accepted: number; lost: number; delivered: number }>;
  firstLost: { seq: number; className: string; queueId: string }[];
}

/** Runs mailvolley through a fresh Postfix relay; returns the exit code and the delivery. */
async function throughPostfix(
  relay: Omit<RelayOptions, "receiverPort">,
  args: string[],
  drainTimeout = "60s",
): Promise<{ code: number | null; delivery: Delivery; stdout: string; stderr: string }> {
  const receiverPort = await freePort();
  const postfix = await startPostfixRelay({ ...relay, receiverPort });
  const dir = tempDir("mailvolley-gateway-");
  const json = join(dir, "result.json");
  try {
    const out = await mailvolley(
      [
        "run",
        `${HOST}:${postfix.port}`,
        "--receive",
        `${HOST}:${receiverPort}`,
        "--drain-timeout",
        drainTimeout,
        "--json",
        json,
        "-q",
        ...args.map((a) => a.replace("DIR", dir)),
      ],
      150_000,
    );
    const { readFileSync } = await import("node:fs");
    const result = JSON.parse(readFileSync(json, "utf8"));
    return { code: out.code, delivery: result.delivery, stdout: out.stdout, stderr: out.stderr };
  } finally {
    await postfix.stop();
  }
}

describe("through a Postfix relay", { timeout: 300_000 }, () => {
  test("header_checks DISCARD of one class: exactly that class lost", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const dir = tempDir("mailvolley-plan-");
    const plan = join(dir, "plan.yaml");
    writeFileSync(plan, "classes:\n  - { name: bulk, share: 19 }\n  - { name: spam, share: 1 }\n");
    const { code, delivery: d } = await throughPostfix(
      { headerChecks: ["/^X-Mailvolley-Class: spam/ DISCARD"] },
      ["--plan", plan, "-m", "2000", "-s", "10"],
      // The 100 discarded never come: the drain runs to its end, so it is kept short.
      "20s",
    );
    assert.equal(d.accepted, 2000);
    assert.equal(d.delivered, 1900);
    assert.equal(d.lost, 100);
    assert.equal(d.duplicated, 0);
    assert.equal(d.classes.spam.lost, 100);
    assert.equal(d.classes.bulk.lost, 0);
    assert.equal(d.firstLost[0].className, "spam");
    assert.match(d.firstLost[0].queueId, /^[0-9A-Za-z]+$/, "the gateway's queue id is recorded");
    assert.equal(d.endToEndMs.count, 1900);
    assert.ok(d.endToEndMs.p99 > 0);
    assert.equal(typeof d.drainMs, "number");
    assert.equal(code, 1, "lost messages fail the run");
  });

  test("the receiver defers every 10th recipient: all delivered, retries counted", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const { code, delivery: d } = await throughPostfix({}, [
      "-m",
      "1000",
      "-s",
      "10",
      "--sink-fault",
      "rcpt:451:every=10",
    ]);
    assert.equal(d.accepted, 1000);
    assert.equal(d.delivered, 1000);
    assert.equal(d.lost, 0);
    assert.ok(d.retried >= 90, `retried ${d.retried}`);
    assert.ok(d.retryAttempts >= 2 * d.retried);
    assert.equal(code, 0);
  });
});
