/**
 * The client against a real Postfix smtpd with anvil: what a gateway does that smtp-sink does
 * not. Deliveries are counted from Postfix's own log once its queue has drained, and each
 * limit is checked for the reply, phase and class mailvolley reports it under, and for what
 * session reuse buys against it (the mission's job 2).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { requirePeer } from "./helpers/peer.js";
import { haveSmtpd, startPostfixSmtpd } from "./helpers/postfix-smtpd.js";
import { errorCount, runClient } from "./helpers/run-client.js";

const INSTALL = "apt-get install postfix, and run the tests as root (master must start as root)";

describe("Postfix smtpd", () => {
  test("reuse and per-message: every message is delivered by Postfix", async (t) => {
    if (!requirePeer(t, "postfix smtpd", haveSmtpd(), INSTALL)) return;
    const peer = await startPostfixSmtpd();
    try {
      const target = `${peer.host}:${peer.port}`;
      const reuse = await runClient(target, { sessions: 4, messages: 400 });
      const perMessage = await runClient(target, {
        sessions: 4,
        messages: 40,
        mode: "per-message",
      });
      const counts = await peer.stop();
      assert.deepEqual(reuse.errors, []);
      assert.deepEqual(perMessage.errors, []);
      assert.equal(reuse.messages.accepted, 400);
      assert.equal(reuse.connections.opened, 4);
      assert.equal(perMessage.messages.accepted, 40);
      assert.equal(perMessage.connections.opened, 40);
      assert.equal(counts.messages, 440);
    } finally {
      await peer.stop();
    }
  });

  test("connection count limit: 421 4.7.0 at the banner, and reuse still delivers all", async (t) => {
    if (!requirePeer(t, "postfix smtpd", haveSmtpd(), INSTALL)) return;
    const peer = await startPostfixSmtpd({ connectionCount: 3 });
    try {
      const result = await runClient(`${peer.host}:${peer.port}`, {
        sessions: 6,
        messages: 120,
        reconnectDelay: "20ms",
        reconnectAttempts: 100,
      });
      const counts = await peer.stop();
      assert.equal(result.messages.accepted, 120);
      assert.equal(counts.messages, 120);
      // Six sessions connect at once and three are over the limit.
      assert.ok(result.connections.refused >= 3, `refused ${result.connections.refused}`);
      for (const row of result.errors) {
        assert.deepEqual(
          [row.reply, row.enhanced, row.phase, row.class],
          ["421", "4.7.0", "banner", "refused"],
        );
      }
      assert.equal(errorCount(result, "421", "banner"), result.connections.refused);
    } finally {
      await peer.stop();
    }
  });

  test("connection rate limit: reuse uses one connection, per-message runs out", async (t) => {
    if (!requirePeer(t, "postfix smtpd", haveSmtpd(), INSTALL)) return;
    // Five connections a minute from 127.0.0.1; the runs below take a second or two.
    const peer = await startPostfixSmtpd({ connectionRate: 5 });
    try {
      const target = `${peer.host}:${peer.port}`;
      const reuse = await runClient(target, { sessions: 1, messages: 20 });
      assert.equal(reuse.messages.accepted, 20);
      assert.equal(reuse.connections.opened, 1);
      // Four connections are left in the minute: four messages, then 421s.
      const perMessage = await runClient(target, {
        sessions: 1,
        messages: 10,
        mode: "per-message",
      });
      const counts = await peer.stop();
      assert.equal(perMessage.messages.accepted, 4);
      assert.equal(perMessage.messages.failed, 6);
      assert.equal(errorCount(perMessage, "421", "banner"), perMessage.connections.refused);
      assert.equal(perMessage.connections.refused, 6);
      assert.equal(perMessage.errorClasses.refused, perMessage.connections.refused);
      assert.deepEqual(reuse.firstSeen, []);
      // Exactly where anvil started refusing: the per-message run's fifth connection (the
      // minute's sixth), before its message started, after four messages.
      const [first] = perMessage.firstSeen ?? [];
      assert.equal(first.class, "refused");
      assert.equal(first.connection, 5);
      assert.equal(first.message, null);
      assert.equal(first.sent, 4);
      assert.equal(first.openSessions, 1);
      assert.equal(counts.messages, 24);
    } finally {
      await peer.stop();
    }
  });

  test("message rate limit: 450 4.7.1 at MAIL, counted as rate limited, the session goes on", async (t) => {
    if (!requirePeer(t, "postfix smtpd", haveSmtpd(), INSTALL)) return;
    const peer = await startPostfixSmtpd({ messageRate: 10 });
    try {
      // Three refused transactions cost smtpd nine errors (450 to MAIL, 503 to RCPT and to
      // DATA, which were pipelined behind it): under smtpd_soft_error_limit (10), so no delay.
      const result = await runClient(`${peer.host}:${peer.port}`, { sessions: 1, messages: 13 });
      const counts = await peer.stop();
      assert.equal(result.messages.accepted, 10);
      assert.equal(result.messages.rejected, 3);
      assert.equal(result.connections.opened, 1);
      assert.equal(result.errors.length, 1);
      const [row] = result.errors;
      assert.deepEqual(
        [row.reply, row.enhanced, row.phase, row.class],
        ["450", "4.7.1", "mail", "rateLimited"],
      );
      assert.equal(row.count, 3);
      assert.equal(result.errorClasses.rateLimited, 3);
      // anvil's eleventh MAIL in the minute, on the one connection.
      const [first] = result.firstSeen ?? [];
      assert.deepEqual([first.class, first.connection, first.message], ["rateLimited", 1, 11]);
      assert.equal(counts.messages, 10);
    } finally {
      await peer.stop();
    }
  });

  test("past smtpd_hard_error_limit Postfix hangs up (421 4.7.0), and a new session goes on", async (t) => {
    if (!requirePeer(t, "postfix smtpd", haveSmtpd(), INSTALL)) return;
    // Each rate-limited pipelined transaction is three errors; six end the session.
    const peer = await startPostfixSmtpd({
      messageRate: 2,
      extra: ["smtpd_error_sleep_time = 0", "smtpd_hard_error_limit = 6"],
    });
    try {
      const result = await runClient(`${peer.host}:${peer.port}`, {
        sessions: 1,
        messages: 10,
        reconnectDelay: "20ms",
      });
      const counts = await peer.stop();
      assert.equal(result.messages.accepted, 2);
      assert.equal(counts.messages, 2);
      assert.ok(result.connections.opened > 1, `opened ${result.connections.opened}`);
      const hangUps = result.errors.filter((e) => e.reply === "421");
      assert.ok(hangUps.length > 0);
      for (const row of hangUps) {
        assert.equal(row.enhanced, "4.7.0");
        assert.match(row.text, /too many errors/);
      }
      // Every message the limit refused is a 450 row; those in flight at a hang-up failed.
      assert.equal(errorCount(result, "450", "mail"), result.messages.rejected);
      assert.equal(result.messages.rejected + result.messages.failed, 8);
    } finally {
      await peer.stop();
    }
  });
});
