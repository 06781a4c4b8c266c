/**
 * `mailvolley capacity` through a private Postfix whose relay rate is known by construction:
 * one connection to the receiver (smtp_destination_concurrency_limit = 1), and the receiver
 * (the steps' --receive sink) taking 10 ms a message. Postfix's own relay rate is measured
 * first, from a burst drained through it; the capacity found through the gateway lies within
 * 25 % of it, while the front door, judged without --receive, takes far more. Counts and texts
 * only; each search is bounded by --budget and short steps.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { CapacityDocument } from "../src/result/capacity-result.js";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { freePort, HOST, requirePeer } from "./helpers/peer.js";
import { havePostfixRelay, type RelayPeer, startPostfixRelay } from "./helpers/postfix-relay.js";

const dir = mkdtempSync(join(tmpdir(), "mv-capacity-postfix-"));
/** The receiver's delay: at most 100 messages/s over one connection, less its round trips. */
const RECEIVER = ["--sink-fault", "dot:ok:delay=10ms"];

/** Messages delivered per second while the relay was saturated: the drain's full seconds. */
function relayRate(result: Result): number {
  const delivered = result.delivery?.perSecond.delivered ?? [];
  const first = delivered.findIndex((n) => n > 0);
  const last = delivered.length - 1 - [...delivered].reverse().findIndex((n) => n > 0);
  const full = delivered.slice(first + 1, last);
  return full.reduce((a, b) => a + b, 0) / Math.max(1, full.length);
}

describe("capacity through a Postfix relay of known rate", {
  skip: !havePostfixRelay() && process.env.MAILVOLLEY_REQUIRE_PEERS !== "1",
}, () => {
  let relay: RelayPeer;
  let receiverPort: number;
  let relayed = 0;
  before(async () => {
    if (!havePostfixRelay()) return;
    receiverPort = await freePort();
    relay = await startPostfixRelay({
      receiverPort,
      extra: ["smtp_destination_concurrency_limit = 1", "relay_destination_concurrency_limit = 1"],
    });
  });
  after(async () => {
    await relay?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("Postfix's relay rate, measured from a burst drained through it", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const json = join(dir, "burst.json");
    const target = `${HOST}:${relay.port}`;
    const out = await mailvolley(
      [
        "run",
        target,
        "-s",
        "4",
        "-m",
        "600",
        "--receive",
        `${HOST}:${receiverPort}`,
        ...RECEIVER,
        "--json",
        json,
        "-q",
      ],
      120_000,
    );
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(readFileSync(json, "utf8")) as Result;
    assert.equal(result.delivery?.delivered, 600);
    relayed = relayRate(result);
    // One connection, 10 ms a message: fewer than 100/s, and not nothing.
    assert.ok(relayed > 20 && relayed < 100, `${relayed}/s`);
  });

  test("the capacity through the gateway lies within 25 % of that rate", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    assert.ok(relayed > 0, "the relay rate was measured");
    const json = join(dir, "gateway.json");
    const out = await mailvolley(
      [
        "capacity",
        `${HOST}:${relay.port}`,
        "-s",
        "4",
        "--receive",
        `${HOST}:${receiverPort}`,
        ...RECEIVER,
        "--from-rate",
        String(Math.round(relayed / 2)),
        "--step",
        "5s",
        "--warmup",
        "2s",
        "--budget",
        "100s",
        "--json",
        json,
        "-q",
      ],
      400_000,
    );
    assert.equal(out.code, 0, out.stderr);
    const c = (JSON.parse(readFileSync(json, "utf8")) as CapacityDocument).capacity;
    assert.equal(c.throughGateway, true);
    assert.ok(c.levelsJudged.includes("backlog flat"));
    const found = c.sustainedPerSecond ?? 0;
    const steps = c.steps.map((s) => `${s.ratePerSecond} ${s.pass ? "pass" : s.failed.join("+")}`);
    // The figures, for the reader of the log: the rate found beside Postfix's own.
    t.diagnostic(
      `found ${found}/s (${c.limitedBy}), Postfix relays ${relayed}/s; steps: ${steps.join(", ")}`,
    );
    if (c.limitedBy === "generator") {
      // A loaded machine may set a failing step's rate: then "at least", never above the relay.
      assert.match(c.headline, /^Sustains at least /);
      assert.ok(found <= 1.25 * relayed, `found ${found}/s; steps: ${steps.join(", ")}`);
      return;
    }
    assert.equal(c.limitedBy, "target");
    assert.ok(
      Math.abs(found - relayed) <= 0.25 * relayed,
      `found ${found}/s, Postfix relays ${relayed}/s; steps: ${steps.join(", ")}`,
    );
    assert.match(c.headline, /^Sustains .* through the gateway within the service levels/);
  });

  test("the front door, without --receive, takes far more", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const json = join(dir, "front.json");
    const from = String(Math.round(relayed * 3));
    const out = await mailvolley(
      [
        "capacity",
        `${HOST}:${relay.port}`,
        "-s",
        "4",
        "--from-rate",
        from,
        "--step",
        "2s",
        "--warmup",
        "1s",
        "--pause",
        "500ms",
        "--budget",
        "10s",
        "--json",
        json,
        "-q",
      ],
      120_000,
    );
    assert.equal(out.code, 0, out.stderr);
    const c = (JSON.parse(readFileSync(json, "utf8")) as CapacityDocument).capacity;
    assert.ok(
      (c.sustainedPerSecond ?? 0) >= 2 * relayed,
      `${c.sustainedPerSecond}/s at the front door`,
    );
  });
});
