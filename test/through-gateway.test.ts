/**
 * Through the gateway (--receive) against a real private Postfix on loopback that relays
 * everything to the run's receiving sink: what the gateway discards is lost, exactly that
 * class; what the receiver defers comes again and is delivered, with the retries counted.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { mailvolley } from "./helpers/cli.js";
import { freePort, HOST, requirePeer } from "./helpers/peer.js";
import { havePostfixRelay, type RelayOptions, startPostfixRelay } from "./helpers/postfix-relay.js";
import { readSchema, schemaFields } from "./helpers/schema-fields.js";
import { tempDir } from "./helpers/tmp.js";

const schema = readSchema();
const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);

function schemaProblems(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

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
  firstDuplicated: { seq: number; className: string; queueId: string }[];
}

/** Runs mailvolley through a fresh Postfix relay; returns the exit code and the delivery. */
async function throughPostfix(
  relay: Omit<RelayOptions, "receiverPort">,
  args: string[],
  drainTimeout = "60s",
): Promise<{ code: number | null; delivery: Delivery; log: string; html: string }> {
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
        "--html",
        join(dir, "report.html"),
        "-q",
        ...args.map((a) => a.replace("DIR", dir)),
      ],
      150_000,
    );
    assert.equal(out.stderr.includes("Error"), false, out.stderr);
    const result = JSON.parse(readFileSync(json, "utf8"));
    assert.deepEqual(schemaProblems(result), [], "the result matches schema/result.schema.json");
    assert.deepEqual(schemaFields(schema, result).problems, [], "every field has a description");
    const html = readFileSync(join(dir, "report.html"), "utf8");
    return { code: out.code, delivery: result.delivery, log: postfix.log(), html };
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
    const {
      code,
      delivery: d,
      html,
    } = await throughPostfix(
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
    assert.match(html, /data-field="delivery\.lost" data-value="100"/);
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

  test("the gateway delivers twice: duplicates counted as Postfix logs them", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    // Postfix gives up on a final reply after 2 s; the receiver takes 1% of messages and
    // answers them after 3 s, so Postfix sends those again.
    const {
      code,
      delivery: d,
      log,
    } = await throughPostfix({ extra: ["smtp_data_done_timeout = 2s"] }, [
      "-m",
      "1000",
      "-s",
      "10",
      "--sink-fault",
      "dot:ok:delay=3000:p=0.01",
      // The second copies come after Postfix's retry delay, once the first ones are all in.
      "--late-window",
      "8s",
    ]);
    const sentTwice = new Set(
      log
        .split("\n")
        .filter((line) => line.includes("may be sent more than once"))
        .map((line) => /: ([0-9A-F]+): to=/.exec(line)?.[1]),
    );
    assert.ok(sentTwice.size > 0, "some final replies timed out");
    // Each timeout Postfix logs "may" send twice: where the receiver had taken the message
    // first, it did. On a loaded machine some timeouts come before the receiver read the data,
    // and then the message arrives once, so the count is at most Postfix's.
    assert.ok(d.duplicated > 0 && d.duplicated <= sentTwice.size, `${d.duplicated} duplicated`);
    for (const m of d.firstDuplicated) assert.ok(sentTwice.has(m.queueId), m.queueId);
    assert.equal(d.delivered + d.duplicated, 1000);
    assert.equal(d.lost, 0);
    assert.equal(code, 1, "duplicates fail the run");
  });

  test("the receiver refuses 1% with 554: bounced, their notices joined, not mail", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const { code, delivery: d } = await throughPostfix({}, [
      "-m",
      "1000",
      "-s",
      "10",
      "--sink-fault",
      "dot:554:p=0.01",
    ]);
    assert.ok(d.bounced > 0);
    assert.equal(d.notices, d.bounced, "every notice joined to its message");
    assert.equal(d.delivered + d.bounced, 1000);
    assert.equal(d.foreign, 0, "notices are not counted as mail");
    assert.equal(code, 1, "bounced messages fail the run");
  });
});
