/** LMTP (RFC 2033): LHLO, and one reply per accepted recipient after the data. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildRunConfig } from "../src/config/run-config.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { haveAiosmtpd, startAiosmtpd } from "./helpers/aiosmtpd.js";
import { requirePeer } from "./helpers/peer.js";
import { errorCount, runClient } from "./helpers/run-client.js";
import { type Script, startScriptedServer } from "./helpers/scripted-server.js";

describe("LMTP", () => {
  test("the built-in sink in LMTP mode: three recipients, three replies a message", async () => {
    const sink = await startSink(
      fillSinkOptions({ listen: ["127.0.0.1:0"], lmtp: true, starttls: false }),
    );
    try {
      const { host, port } = sink.addresses[0];
      const result = await runClient(`${host}:${port}`, {
        sessions: 2,
        messages: 100,
        recipients: 3,
        lmtp: true,
      });
      assert.equal(result.messages.accepted, 100);
      assert.equal(sink.stats().messagesAccepted, 100);
      assert.deepEqual(result.errors, []);
    } finally {
      await sink.close();
    }
  });

  test("a refused recipient after the data is counted; the message goes to the others", async () => {
    // Replies after the data, one per accepted recipient, in RCPT order (RFC 2033 §4.2).
    const script: Script = {
      onMessage: (_content, s) =>
        s.messages % 2 === 1
          ? "250 2.0.0 ok\r\n552 5.2.2 mailbox full\r\n250 2.0.0 ok"
          : "550 5.1.1 no\r\n550 5.1.1 no\r\n550 5.1.1 no",
    };
    const server = await startScriptedServer(script);
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 4,
        recipients: 3,
        lmtp: true,
      });
      assert.equal(result.messages.accepted, 2);
      assert.equal(result.messages.rejected, 2);
      assert.equal(errorCount(result, "552", "dot"), 2);
      assert.equal(errorCount(result, "550", "dot"), 6);
      assert.ok(server.connections[0].commands[0].startsWith("LHLO "));
    } finally {
      await server.close();
    }
  });

  test("aiosmtpd's LMTP server counts every message", async (t) => {
    if (!requirePeer(t, "aiosmtpd", await haveAiosmtpd(), "apt-get install python3-aiosmtpd")) {
      return;
    }
    // aiosmtpd's LMTP class only speaks LHLO; the reply after the data is the handler's, so the
    // handler gives one line per recipient, as RFC 2033 §4.2 asks of an LMTP server.
    const peer = await startAiosmtpd({
      lmtp: true,
      dataReply: "250 2.0.0 delivered to 1.sink\r\n250 2.0.0 delivered to 2.sink",
    });
    const result = await runClient(`${peer.host}:${peer.port}`, {
      sessions: 2,
      messages: 40,
      recipients: 2,
      lmtp: true,
    });
    const counts = await peer.stop();
    assert.equal(result.messages.accepted, 40);
    assert.equal(counts.messages, 40);
  });

  test("--lmtp with --chunking is refused: LMTP sessions speak DATA", () => {
    assert.throws(() => buildRunConfig({ lmtp: true, chunking: true }), /--chunking/);
  });
});
