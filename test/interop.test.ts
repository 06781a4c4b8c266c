/**
 * The client against real third-party servers, in both modes, with the count checked at the
 * server: Postfix smtp-sink (pipelining, batched replies, the empty `250 ` EHLO line), the npm
 * smtp-server package, and aiosmtpd (no PIPELINING: lock-step must deliver everything).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { haveAiosmtpd, startAiosmtpd } from "./helpers/aiosmtpd.js";
import { requirePeer } from "./helpers/peer.js";
import { runClient } from "./helpers/run-client.js";
import { startSmtpServer } from "./helpers/smtp-server.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";

const MODES = ["reuse", "per-message"] as const;

describe("Postfix smtp-sink", () => {
  for (const mode of MODES) {
    test(`${mode}: every message counted by smtp-sink`, async (t) => {
      if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
      const peer = await startPostfixSmtpSink();
      const messages = mode === "reuse" ? 2000 : 300;
      const result = await runClient(`${peer.host}:${peer.port}`, {
        sessions: 10,
        messages,
        mode,
      });
      const counts = await peer.stop();
      assert.equal(result.messages.accepted, messages);
      assert.equal(counts.messages, messages);
      assert.equal(result.connections.opened, mode === "reuse" ? 10 : messages);
      assert.deepEqual(result.errors, []);
    });
  }

  test("without PIPELINING (smtp-sink -p) the lock-step client delivers everything", async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    const peer = await startPostfixSmtpSink({ args: ["-p"] });
    const result = await runClient(`${peer.host}:${peer.port}`, { sessions: 4, messages: 200 });
    const counts = await peer.stop();
    assert.equal(result.messages.accepted, 200);
    assert.equal(counts.messages, 200);
  });
});

describe("npm smtp-server", () => {
  for (const mode of MODES) {
    test(`${mode}: every message counted by smtp-server`, async () => {
      const peer = await startSmtpServer();
      const result = await runClient(`${peer.host}:${peer.port}`, {
        sessions: 5,
        messages: 200,
        recipients: 3,
        mode,
      });
      const counts = await peer.stop();
      assert.equal(result.messages.accepted, 200);
      assert.equal(counts.messages, 200);
      assert.equal(result.recipients.accepted, 600);
    });
  }

  test("maxClients refusals (421 at the banner) are counted and reuse still delivers all", async () => {
    const peer = await startSmtpServer({ maxClients: 2 });
    const result = await runClient(`${peer.host}:${peer.port}`, {
      sessions: 4,
      messages: 100,
      reconnectDelay: "20ms",
      reconnectAttempts: 50,
    });
    const counts = await peer.stop();
    assert.equal(result.messages.accepted, 100);
    assert.equal(counts.messages, 100);
  });

  test("a rejecting verdict on the data is a rejected message, not a failed one", async () => {
    const peer = await startSmtpServer({
      verdict: (index) =>
        index % 2 === 0 ? Object.assign(new Error("no thanks"), { responseCode: 554 }) : null,
    });
    const result = await runClient(`${peer.host}:${peer.port}`, { sessions: 1, messages: 10 });
    await peer.stop();
    assert.equal(result.messages.rejected, 5);
    assert.equal(result.messages.accepted, 5);
    assert.equal(result.errors.find((e) => e.phase === "dot")?.reply, "554");
  });
});

describe("aiosmtpd (no PIPELINING)", () => {
  for (const mode of MODES) {
    test(`${mode}: lock-step delivers every message`, async (t) => {
      if (!requirePeer(t, "aiosmtpd", await haveAiosmtpd(), "apt-get install python3-aiosmtpd")) {
        return;
      }
      const peer = await startAiosmtpd();
      const result = await runClient(`${peer.host}:${peer.port}`, {
        sessions: 4,
        messages: 120,
        recipients: 2,
        mode,
      });
      const counts = await peer.stop();
      assert.equal(result.messages.accepted, 120);
      assert.equal(counts.messages, 120);
    });
  }
});
