/**
 * Replies matched to the commands they can answer (issue 17 item 2): a server that skips or
 * delays the reply to the final dot must not have the next MAIL's reply taken as it. Such a
 * session ends with `protocol`; the message is never counted accepted (sent in full, it is
 * unconfirmed).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ReplyParser } from "../src/smtp/reply-parser.js";
import { requirePeer } from "./helpers/peer.js";
import { errorCount, runClient } from "./helpers/run-client.js";
import { type Script, withServer } from "./helpers/scripted-server.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";

const fast = { timeout: { dot: "2s", mail: "2s", rcpt: "2s", data: "2s", quit: "2s" } };

/** Plain replies without enhanced status codes: only the order can tell them apart. */
const plain = (line: string) => {
  if (line.startsWith("MAIL") || line.startsWith("RCPT")) return "250 Ok";
  return undefined;
};

describe("replies matched by what they can answer", () => {
  /** -s 1 -m 4 against a server that gets the dot's reply wrong: none may count accepted. */
  const CASES: [string, Script, string][] = [
    ["a server that never answers the dot (enhanced codes)", { onMessage: () => null }, "dot"],
    [
      "a server that never answers the dot (no enhanced codes): held, then failed",
      { onMessage: () => null, onCommand: plain, capabilities: ["PIPELINING"] },
      "rcpt",
    ],
    [
      "a dot reply sent late, after the next MAIL's (out of order)",
      {
        onMessage: (_content, s) => {
          setTimeout(() => s.inject("250 2.0.0 Ok: queued\r\n"), 50);
          return null;
        },
      },
      "dot",
    ],
  ];
  for (const [name, script, phase] of CASES) {
    test(`${name}: -s 1 -m 4 accepts none`, async () => {
      await withServer(script, async (server) => {
        const result = await runClient(`127.0.0.1:${server.port}`, {
          sessions: 1,
          messages: 4,
          ...fast,
        });
        const m = result.messages;
        assert.equal(m.accepted, 0);
        // Sent in full, no reply of its own: unconfirmed; the envelopes behind it failed.
        assert.equal(m.failed + (m.unconfirmed ?? 0), 4, JSON.stringify(m));
        assert.ok(errorCount(result, "protocol", phase) > 0, JSON.stringify(result.errors));
      });
    });
  }

  for (const [name, script] of [
    ["with enhanced codes", {}],
    ["without enhanced codes", { onCommand: plain }],
  ] as [string, Script][]) {
    test(`a slow dot reply in its place (${name}): held, confirmed, every message accepted`, async () => {
      const slow: Script = {
        ...script,
        onMessage: () => ({ reply: "250 Ok: queued", delayMs: 20 }),
      };
      await withServer(slow, async (server) => {
        const result = await runClient(`127.0.0.1:${server.port}`, { sessions: 1, messages: 5 });
        assert.equal(result.messages.accepted, 5);
        assert.equal(result.latency.transactionMs.count, 5);
        assert.equal(server.connections.length, 1);
      });
    });
  }

  test("421 after a dot reply confirms it: that message stays accepted", async () => {
    const script: Script = {
      onCommand: (line, s) =>
        line.startsWith("MAIL") && s.messages === 1
          ? { reply: "421 4.3.2 bye", close: true }
          : undefined,
    };
    await withServer(script, async (server) => {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 2,
      });
      assert.equal(result.messages.accepted, 1);
      assert.equal(result.messages.failed, 1);
    });
  });

  test("250 to a dot, then a reset: that message stays accepted, as the server counted it", async () => {
    const script: Script = {
      onMessage: (_content, s) =>
        s.messages === 1 ? { reply: "250 2.0.0 Ok: queued", reset: true } : undefined,
    };
    await withServer(script, async (server) => {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 3,
        reconnectAttempts: 10,
        reconnectDelay: "1ms",
      });
      // The second message's envelope went with the first one's content: it fails with the reset.
      assert.equal(result.messages.accepted, 2, JSON.stringify(result.messages));
      assert.equal(result.messages.failed, 1);
    });
  });

  test("smtp-sink -W .:1 (the dot answered late, out of order): never counted accepted", async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    const sink = await startPostfixSmtpSink({ args: ["-W", ".:1"] });
    try {
      const result = await runClient(`${sink.host}:${sink.port}`, {
        sessions: 1,
        messages: 4,
        ...fast,
      });
      assert.equal(result.messages.accepted, 0);
      assert.ok(errorCount(result, "protocol", "dot") > 0, JSON.stringify(result.errors));
    } finally {
      await sink.stop();
    }
  });

  test("smtp-sink -f RCPT answers RSET with 250 2.1.0: taken, the session kept", async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    const sink = await startPostfixSmtpSink({ args: ["-f", "RCPT"] });
    try {
      const result = await runClient(`${sink.host}:${sink.port}`, { sessions: 1, messages: 6 });
      assert.equal(result.messages.rejected, 6, JSON.stringify(result.messages));
      assert.equal(errorCount(result, "protocol", "rset"), 0, JSON.stringify(result.errors));
      assert.equal(result.connections.opened, 1);
    } finally {
      await sink.stop();
    }
  });

  test("a scripted RSET answered 250 2.1.0 with nothing held: no protocol error", async () => {
    const script: Script = {
      onCommand: (line, s) => {
        if (line === "RSET") return "250 2.1.0 Ok";
        // No valid recipient: DATA is refused, and the sender stays until an RSET.
        if (line === "DATA" && s.state.refused) return "554 5.5.1 no valid recipients";
        if (!line.startsWith("RCPT")) return undefined;
        s.state.rcpts = ((s.state.rcpts as number) ?? 0) + 1;
        s.state.refused = (s.state.rcpts as number) % 2 === 1;
        return s.state.refused ? "550 5.1.1 no such user" : undefined;
      },
    };
    await withServer(script, async (server) => {
      const result = await runClient(`127.0.0.1:${server.port}`, { sessions: 1, messages: 6 });
      assert.deepEqual([result.messages.accepted, result.messages.rejected], [3, 3]);
      assert.equal(server.connections.length, 1);
      assert.ok(server.connections[0].commands.includes("RSET"));
    });
  });

  test("the parser reads the enhanced code's subject from the bytes", () => {
    const seen: number[] = [];
    const parser: ReplyParser = new ReplyParser({
      onReply: () => seen.push(parser.enhancedSubject),
      onProtocolError: (reason) => assert.fail(reason),
    });
    parser.push(
      Buffer.from(
        "250 2.1.0 Ok\r\n250 2.0.0 Ok: queued\r\n250 Ok\r\n250 2.1.5\r\n550 5.7.1 no\r\n250 3.1.0 x\r\n250 2.10.3 x\r\n250-2.1.0 a\r\n250 2.0.0 b\r\n250 2.1\r\n",
        "latin1",
      ),
    );
    assert.deepEqual(seen, [1, 0, -1, 1, 7, -1, 10, 1, -1]);
  });
});

describe("a final reply sent before the message (with the 354) answers nothing", () => {
  /** DATA gets `354` and `250` in one write; the real answer to the dot is a 554. */
  const early: Script = {
    onCommand: (line) => (line === "DATA" ? "354 go ahead\r\n250 2.0.0 queued EARLY" : undefined),
    onMessage: () => "554 5.6.0 refused",
  };
  const MODES: [string, Record<string, unknown>][] = [
    ["reuse, pipelined", {}],
    ["reuse, --pipelining off", { pipelining: "off" }],
    ["per-message", { mode: "per-message" }],
    ["per-message, --pipelining off", { mode: "per-message", pipelining: "off" }],
  ];
  for (const [name, options] of MODES) {
    test(`${name}: -s 2 -m 6 accepts none`, async () => {
      await withServer(early, async (server) => {
        const result = await runClient(`127.0.0.1:${server.port}`, {
          sessions: 2,
          messages: 6,
          ...fast,
          ...options,
        });
        assert.equal(result.messages.accepted, 0, JSON.stringify(result.messages));
        assert.ok(errorCount(result, "protocol", "dot") > 0, JSON.stringify(result.errors));
      });
    });
  }
});

describe("BDAT replies matched by what they can answer", () => {
  test("BDAT LAST never answered: the RSET's reply behind it is held, and fails at the shifted MAIL reply", async () => {
    const script: Script = {
      capabilities: ["PIPELINING", "CHUNKING", "ENHANCEDSTATUSCODES"],
      onCommand: (line, s) => {
        if (!/^BDAT \d+ LAST/.test(line)) return undefined;
        const n = ((s.state.last as number) ?? 0) + 1;
        s.state.last = n;
        return n === 2 ? null : "250 2.0.0 Ok: queued";
      },
    };
    await withServer(script, async (server) => {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 4,
        chunking: true,
        window: 4,
        ...fast,
      });
      // Only the first message's BDAT LAST got its own reply before the order broke.
      const m = result.messages;
      assert.equal(m.accepted, 1);
      // The window's transactions were written whole: none answered, each unconfirmed.
      assert.equal(m.failed + (m.unconfirmed ?? 0), 3, JSON.stringify(m));
      assert.ok(errorCount(result, "protocol", "rset") > 0, JSON.stringify(result.errors));
    });
  });
});
