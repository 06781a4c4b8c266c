/**
 * Through the gateway with Exim as the gateway, beside the Postfix tests: Exim relays to the
 * run's receiver with BDAT, names its queue id as `id=…`, and words its log its own way. The
 * discard and bounce cases, each checked against Exim's own log.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type EximOptions, haveEximRelay, startEximRelay } from "./helpers/exim-relay.js";
import { freePort, requirePeer } from "./helpers/peer.js";
import { runThroughRelay } from "./helpers/relay-run.js";
import { tempDir } from "./helpers/tmp.js";

interface Delivery {
  accepted: number;
  delivered: number;
  lost: number;
  bounced: number;
  partial: number;
  retried: number;
  bounceStatuses: Record<string, number>;
  classes: Record<string, { accepted: number; delivered: number; lost: number }>;
  firstLost: { className: string; queueId: string }[];
}

const INSTALL = "bash .ci/run unpacks exim4-daemon-light into /var/tmp/mailvolley-exim";

/** Exim's message ids whose log lines match `pattern`, of messages (not its own bounces). */
function eximIds(log: string, pattern: RegExp): Set<string> {
  const lines = log.split("\n");
  const id = (line: string) => /^\S+ \S+ (\S+-\S+-\S+) /.exec(line)?.[1];
  const bounces = new Set(lines.filter((l) => / <= <> /.test(l)).map(id));
  return new Set(
    lines.filter((l) => pattern.test(l) && !bounces.has(id(l))).flatMap((l) => id(l) ?? []),
  );
}

async function throughExim(relay: Omit<EximOptions, "receiverPort">, args: string[]) {
  const receiverPort = await freePort();
  const exim = await startEximRelay({ ...relay, receiverPort });
  return runThroughRelay<Delivery>(exim, receiverPort, ["-s", "4", ...args]);
}

describe("through an Exim relay", { timeout: 300_000 }, () => {
  test("a router discards one class: exactly that class lost, with Exim's ids", async (t) => {
    if (!requirePeer(t, "exim4 (unpacked)", haveEximRelay(), INSTALL)) return;
    const plan = join(tempDir("mailvolley-exim-plan-"), "plan.yaml");
    writeFileSync(plan, "classes:\n  - { name: bulk, share: 19 }\n  - { name: spam, share: 1 }\n");
    const {
      code,
      delivery: d,
      log,
    } = await throughExim(
      {
        routers: [
          "discard_spam:",
          "  driver = redirect",
          // Exim's own expansion syntax, not a template string.
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Exim's ${if …} expansion
          "  condition = ${if eq{$h_X-Mailvolley-Class:}{spam}}",
          "  data = :blackhole:",
        ],
      },
      ["--plan", plan, "-m", "200"],
    );
    const discarded = eximIds(log, / => :blackhole: /);
    const summary = JSON.stringify({ ...d, discarded: discarded.size });
    assert.equal(d.lost, discarded.size, summary);
    assert.equal(d.classes.spam.lost, d.classes.spam.accepted, summary);
    assert.deepEqual([d.classes.bulk.lost, d.delivered], [0, 190], summary);
    assert.ok(d.firstLost.length > 0);
    for (const m of d.firstLost) {
      assert.equal(m.className, "spam");
      assert.ok(discarded.has(m.queueId), `Exim's id=${m.queueId} of a lost message`);
    }
    // The receiver was sent every message with BDAT: Exim's log marks each delivery "K".
    assert.ok(/ => \S+ R=to_receiver T=to_receiver H=\S+ \S+ K /.test(log), "delivered by BDAT");
    assert.equal(code, 1, "lost messages fail the run");
  });

  test("1 recipient in 20 refused with 550: bounced as Exim bounced, none lost", async (t) => {
    if (!requirePeer(t, "exim4 (unpacked)", haveEximRelay(), INSTALL)) return;
    const {
      code,
      delivery: d,
      log,
    } = await throughExim({}, ["--sink-fault", "rcpt:550:every=20", "-m", "200"]);
    const failed = eximIds(log, / \*\* .*: 550 /);
    const summary = JSON.stringify({ ...d, failed: failed.size });
    assert.equal(d.bounced, failed.size, summary);
    assert.ok(d.bounced >= 5, summary); // a notice taken may use up a fault's turn
    assert.deepEqual([d.lost, d.partial, d.retried], [0, 0, 0], summary);
    // The receiver's own 5.3.0 for each; a notice that came adds Exim's status (5.0.0).
    assert.equal(d.bounceStatuses["5.3.0"], d.bounced, summary);
    assert.equal(d.delivered + d.bounced, 200);
    assert.equal(code, 1, "bounced messages fail the run");
  });
});
