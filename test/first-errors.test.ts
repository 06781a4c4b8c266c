/**
 * Where each error class first appeared, exactly (issue 13 item 2): the ordinal of the
 * connection and of the message at the moment of the first occurrence, against the built-in
 * sink's anvil-style limits (Postfix smtpd's own anvil is in smtpd.test.ts); and every failed
 * message in exactly one error row (issue 17 item 6), against Postfix smtp-sink hanging up.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Result } from "../src/result/result.js";
import { LOST_WITH_SESSION, RunStats } from "../src/stats/collector.js";
import { mergeFirstErrors, RunOrdinals } from "../src/stats/first-errors.js";
import { mailvolley } from "./helpers/cli.js";
import { requirePeer } from "./helpers/peer.js";
import { runClient } from "./helpers/run-client.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";
import { portOf, withSink } from "./sink-helpers.js";

describe("first occurrence of an error class", () => {
  test("connection rate 30/60s, a connection per message: refused at connection 31", async () => {
    await withSink({ maxConnectionRate: "30/60s" }, async (sink) => {
      const result = await runClient(`127.0.0.1:${portOf(sink)}`, {
        sessions: 4,
        messages: 60,
        mode: "per-message",
        reconnectAttempts: 1000,
      });
      assert.equal(result.messages.accepted, 30);
      const [first, ...rest] = result.firstSeen ?? [];
      assert.deepEqual(rest, []);
      assert.equal(first.class, "refused");
      assert.equal(first.connection, 31);
      assert.equal(first.message, null);
      assert.ok(first.connectionsOpened >= 31 && first.connectionsOpened <= 34);
      assert.ok(first.sent <= 30, `${first.sent} messages started`);
      assert.ok(first.openSessions >= 1 && first.openSessions <= 4);
      assert.ok(first.atSeconds !== undefined && first.atSeconds <= result.elapsedSeconds);
    });
  });

  test("two worker threads, --sink-max-connection-rate 30/60s: one numbering across them", async () => {
    const out = await mailvolley([
      "run",
      "--workers",
      "2",
      "-s",
      "4",
      "-m",
      "100",
      "--mode",
      "per-message",
      "--sink-max-connection-rate",
      "30/60s",
      "--json",
      "-",
      "-q",
    ]);
    const result = JSON.parse(out.stdout) as Result;
    assert.equal(result.messages.accepted, 30);
    const [first] = result.firstSeen ?? [];
    assert.equal(first.class, "refused");
    // The threads number their connections in one sequence, in the order they call connect;
    // the sink counts them in the order it accepts them. Connections in flight at once (at
    // most the 4 sessions) may reach it in another order, either way, so across threads the
    // ordinal of its 31st is exact to within 3 on each side.
    const at = first.connection;
    assert.ok(at !== undefined && at >= 28 && at <= 34, `first refused: connection ${at}`);
    assert.ok(first.sent <= 30 && first.sent >= 26, `${first.sent} messages started`);
  });

  test("message rate 10/60s over one session: rate limited at message 11 on connection 1", async () => {
    await withSink({ maxMessageRate: "10/60s" }, async (sink) => {
      const result = await runClient(`127.0.0.1:${portOf(sink)}`, { sessions: 1, messages: 15 });
      assert.equal(result.messages.accepted, 10);
      const first = result.firstSeen?.find((f) => f.class === "rateLimited");
      assert.ok(first, JSON.stringify(result.firstSeen));
      assert.equal(first.connection, 1);
      assert.equal(first.message, 11);
      assert.equal(first.openSessions, 1);
      assert.ok(first.sent >= 11);
    });
  });

  test("threads: the earliest candidate wins, with its own ordinals", () => {
    const at = (atMs: number, connection: number) => ({
      class: "refused" as const,
      atMs,
      connection,
      message: 0,
      connectionsOpened: connection,
      messagesStarted: connection - 1,
      openSessions: 2,
    });
    const merged = mergeFirstErrors([[at(2000, 40)], [at(1500, 31)], []]);
    assert.deepEqual(merged, [at(1500, 31)]);
  });

  test("ordinals are one sequence across RunStats sharing one buffer", () => {
    const shared = RunOrdinals.shared();
    const a = new RunStats(["default"], 1000, { ordinals: shared, clock: () => 1 });
    const b = new RunStats(["default"], 1000, { ordinals: shared, clock: () => 2 });
    assert.equal(a.connectionOpened(), 1);
    assert.equal(b.connectionOpened(), 2);
    assert.equal(a.messageStarted(1), 1);
    assert.equal(b.messageStarted(1), 2);
    b.reply(421, "4.7.0", "banner", "too many connections", 1, 2, 2);
    const [first] = b.snapshot().firstErrors ?? [];
    assert.deepEqual(first, {
      class: "refused",
      atMs: 2,
      connection: 2,
      message: 2,
      connectionsOpened: 2,
      messagesStarted: 2,
      openSessions: 2,
    });
  });
});

describe("class rows add up to all", () => {
  test("per-message, refused at the banner: each class row counts its refused messages", async () => {
    const classes = [
      { name: "bulk", share: 3, headers: [] },
      { name: "alerts", share: 1, headers: [] },
    ];
    await withSink({ maxConnectionRate: "20/60s" }, async (sink) => {
      const result = await runClient(`127.0.0.1:${portOf(sink)}`, {
        sessions: 2,
        messages: 40,
        mode: "per-message",
        reconnectAttempts: 1000,
        classes,
      });
      assert.equal(result.messages.accepted, 20);
      assert.equal(result.messages.failed, 20);
      const sum = (pick: (c: { attempted: number; failed: number }) => number) =>
        result.classes.reduce((n, c) => n + pick(c), 0);
      assert.equal(
        sum((c) => c.attempted),
        result.allClasses.attempted,
      );
      assert.equal(
        sum((c) => c.failed),
        result.allClasses.failed,
      );
      // Shares are exact over every cycle of four: 30 bulk and 10 alerts, whatever failed.
      assert.deepEqual(
        result.classes.map((c) => [c.name, c.attempted]),
        [
          ["bulk", 30],
          ["alerts", 10],
        ],
      );
    });
  });
});

describe("every failed or unconfirmed message in exactly one error row", () => {
  test("smtp-sink -q . in reuse: the messages pipelined behind the lost one get a row", async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    const peer = await startPostfixSmtpSink({ args: ["-q", "."] });
    try {
      const result = await runClient(`${peer.host}:${peer.port}`, {
        sessions: 2,
        messages: 40,
        reconnectAttempts: 1000,
        reconnectDelay: "1ms",
      });
      const m = result.messages;
      assert.equal(m.accepted, 0);
      // Each dot's message went whole and got no reply (unconfirmed); those behind it failed.
      const lost = m.failed + (m.unconfirmed ?? 0);
      assert.equal(lost, 40);
      const rows = result.errors.reduce((sum, e) => sum + e.count, 0);
      assert.equal(rows, lost, JSON.stringify(result.errors, null, 1));
      assert.equal(result.errorClasses.transport, lost);
      const behind = result.errors.filter((e) => e.text.startsWith(LOST_WITH_SESSION));
      assert.ok(behind.length > 0, "pipelined messages lost behind the first have their row");
    } finally {
      await peer.stop();
    }
  });
});
