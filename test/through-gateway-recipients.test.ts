/**
 * Through a private Postfix relay (backoff 1 s) to the run's receiver, per recipient: a
 * recipient the receiver refused with 4xx is still inside the gateway (the drain waits for it,
 * and its arrival is a retry, counted as Postfix logs it); one refused with 5xx bounces its
 * message whether or not the notice comes; Ctrl-C in the drain ends it at once.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { freePort, HOST, requirePeer } from "./helpers/peer.js";
import { havePostfixRelay, startPostfixRelay } from "./helpers/postfix-relay.js";
import { runThroughRelay } from "./helpers/relay-run.js";
import { tempDir } from "./helpers/tmp.js";

interface Delivery {
  accepted: number;
  delivered: number;
  partial: number;
  lost: number;
  bounced: number;
  duplicated: number;
  notWaited: number;
  retried: number;
  retryAttempts: number;
  retryDelayMs: { count: number };
  notices: number;
  noticesUnjoined: number;
  bounceStatuses: Record<string, number>;
  drain: { end: string; waitedMs: number; missing: number };
}

/** Per queue id, Postfix's delivery lines of messages (not of its own notices, sender <>). */
function deliveries(
  log: string,
  status: string,
): { lines: number; ids: Set<string>; pairs: Set<string> } {
  const lines = log.split("\n");
  const notices = new Set(lines.flatMap((l) => /: ([0-9A-F]+): from=<>,/.exec(l)?.[1] ?? []));
  const mine = lines
    .map((l) => /: ([0-9A-F]+): to=<([^>]*)>.* status=(\w+)/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && m[3] === status && !notices.has(m[1]));
  return {
    lines: mine.length,
    ids: new Set(mine.map((m) => m[1])),
    pairs: new Set(mine.map((m) => `${m[1]} ${m[2]}`)),
  };
}

/** A run through a fresh relay; the exit code, the delivery and Postfix's settled log. */
async function throughPostfix(args: string[]) {
  const receiverPort = await freePort();
  const postfix = await startPostfixRelay({ receiverPort });
  return runThroughRelay<Delivery>(postfix, receiverPort, args);
}

describe("through a Postfix relay, per recipient", { timeout: 300_000 }, () => {
  test("3 recipients, every 7th deferred: all delivered, retried as Postfix deferred", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const {
      code,
      delivery: d,
      log,
    } = await throughPostfix([
      "-r",
      "3",
      "--sink-fault",
      "rcpt:451:every=7",
      "-m",
      "700",
      "-s",
      "10",
    ]);
    const deferred = deliveries(log, "deferred");
    const summary = JSON.stringify({ ...d, deferred: deferred.ids.size });
    assert.deepEqual([d.delivered, d.partial, d.lost, d.bounced], [700, 0, 0, 0], summary);
    assert.equal(d.retried, deferred.ids.size, `messages Postfix deferred: ${summary}`);
    // Per recipient, as Postfix logs them: each deferral, and the delivery that followed.
    assert.equal(d.retryAttempts, deferred.lines + deferred.pairs.size, summary);
    assert.equal(d.retryDelayMs.count, deferred.pairs.size, "one retry delay per recipient");
    assert.equal(d.drain.end, "arrived");
    assert.equal(code, 0);
  });

  test("1 recipient in 20 refused with 550: bounced as Postfix bounced, none lost", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const {
      code,
      delivery: d,
      log,
    } = await throughPostfix(["--sink-fault", "rcpt:550:every=20", "-m", "1000", "-s", "10"]);
    const bounced = deliveries(log, "bounced");
    const summary = JSON.stringify({ ...d, postfixBounced: bounced.ids.size });
    assert.equal(d.bounced, bounced.ids.size, summary);
    assert.ok(d.bounced >= 30, summary); // a notice taken may use up a fault's turn
    assert.deepEqual([d.lost, d.partial, d.retried], [0, 0, 0], summary);
    assert.deepEqual(d.bounceStatuses, { "5.3.0": d.bounced }, "the receiver's own status");
    assert.equal(d.noticesUnjoined, 0);
    assert.equal(d.delivered + d.bounced, 1000);
    assert.equal(code, 1, "bounced messages fail the run");
  });

  test("3 recipients, one refused with 550 in the same transaction: bounced, not retried", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const { delivery: d, log } = await throughPostfix([
      "-r",
      "3",
      "--sink-fault",
      "rcpt:550:every=7",
      "-m",
      "300",
      "-s",
      "5",
    ]);
    const bounced = deliveries(log, "bounced");
    const summary = JSON.stringify(d);
    assert.equal(d.bounced, bounced.ids.size, summary);
    assert.deepEqual([d.retried, d.retryAttempts, d.partial, d.lost], [0, 0, 0, 0], summary);
    assert.equal(d.delivered + d.bounced, 300);
  });

  test("Ctrl-C in the drain: ends it at once, nothing counted lost, exit 130", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const receiverPort = await freePort();
    const postfix = await startPostfixRelay({ receiverPort });
    const json = join(tempDir("mailvolley-drain-int-"), "result.json");
    try {
      // Every recipient deferred: nothing ever arrives, the drain would wait its 5 minutes.
      const run = startMailvolley(
        [
          "run",
          `${HOST}:${postfix.port}`,
          "--receive",
          `${HOST}:${receiverPort}`,
          "--json",
          json,
        ].concat(["--sink-fault", "rcpt:451", "-m", "40", "-s", "4", "--drain-timeout", "5m"]),
        60_000,
      );
      let stderr = "";
      await new Promise<void>((resolve) => {
        run.child.stderr?.on("data", (s: string) => {
          stderr += s;
          if (stderr.includes("still inside the gateway")) resolve();
        });
        run.child.on("close", () => resolve());
      });
      run.child.kill("SIGINT");
      const out = await run.done;
      assert.equal(out.code, 130, out.stderr);
      const d = JSON.parse(readFileSync(json, "utf8")).delivery as Delivery;
      assert.equal(d.drain.end, "interrupted");
      assert.deepEqual([d.notWaited, d.lost, d.partial], [40, 0, 0]);
      assert.equal(d.drain.missing, 40);
      assert.match(
        out.stdout,
        /Drain +waited [\d.]+ s, then interrupted: 40 messages not waited for/,
      );
      assert.match(out.stdout, /not waited for 40/);
    } finally {
      await postfix.stop();
    }
  });

  test("compare --receive: each run's delivery section in the terminal, and why it exits 1", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const receiverPort = await freePort();
    const postfix = await startPostfixRelay({ receiverPort });
    try {
      const out = await mailvolley(
        ["compare", `${HOST}:${postfix.port}`, "--receive", `${HOST}:${receiverPort}`]
          .concat(["--sink-fault", "rcpt:550:every=50", "-m", "100", "-s", "4", "--pause", "0s"])
          .concat(["--drain-timeout", "60s"]),
        150_000,
      );
      assert.equal(out.code, 1, out.stderr);
      for (const run of ["per-message", "reuse"]) {
        assert.match(
          out.stdout,
          new RegExp(
            `${run} run\\nThrough the gateway → received at ${HOST}:${receiverPort}\\nVerdict `,
          ),
        );
        // A notice the receiver takes may come between two messages and take a fault's turn:
        // how many bounce is the gateway's timing; that each run says so is the result.
        assert.match(
          out.stderr,
          new RegExp(
            `mailvolley compare: the ${run} run through the gateway: bounced \\d+ of 100 accepted \\(exit 1\\)`,
          ),
        );
      }
      const rows = [
        ...out.stdout.matchAll(
          /^Delivery +delivered (\d+)\/100 +lost 0 +partial 0 +bounced (\d+)/gm,
        ),
      ];
      assert.equal(rows.length, 2, out.stdout);
      for (const [, delivered, bounced] of rows) {
        assert.equal(Number(delivered) + Number(bounced), 100);
        assert.ok(Number(bounced) >= 1);
      }
      assert.equal(out.stdout.match(/^Bounced +5\.3\.0 ×\d+/gm)?.length, 2);
    } finally {
      await postfix.stop();
    }
  });
});
