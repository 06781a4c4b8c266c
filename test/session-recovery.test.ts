/**
 * How a session goes on after refusals, against scripted servers that behave like real MTAs
 * (issue 15): RSET only when a transaction is open (Exim counts RSET as a non-mail command),
 * BDAT after a refused transaction (Exim keeps the sender), and per-session limits
 * (OpenSMTPD's 452 4.5.3).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runClient } from "./helpers/run-client.js";
import { type Script, type ScriptedSession, withServer } from "./helpers/scripted-server.js";

const target = (port: number) => `127.0.0.1:${port}`;

/** Exim's smtp_accept_max_nonmail (default 10): too many RSETs in a row end the session. */
function nonmailLimit(s: ScriptedSession, line: string): string | undefined {
  const verb = line.split(" ", 1)[0].toUpperCase();
  if (verb === "RSET" || verb === "NOOP") {
    const n = ((s.state.nonmail as number) ?? 0) + 1;
    s.state.nonmail = n;
    if (n > 10) return "554 Too many nonmail commands";
  }
  return undefined;
}

describe("RSET only when a transaction is open (issue 15 item 3)", () => {
  for (const pipelining of ["auto", "off"]) {
    test(`refused MAIL, pipelining ${pipelining}: no RSET, the session survives 12 refusals`, async () => {
      const script: Script = {
        onCommand: (line, s) => {
          const limit = nonmailLimit(s, line);
          if (limit) return { reply: limit, close: true };
          if (line.startsWith("MAIL")) return "552 5.3.4 message size exceeds fixed limit";
          if (line.startsWith("RCPT") || line === "DATA") return "503 5.5.1 sender not yet given";
          return undefined;
        },
      };
      await withServer(script, async (server) => {
        const result = await runClient(target(server.port), {
          sessions: 1,
          messages: 12,
          pipelining,
        });
        assert.equal(result.messages.rejected, 12);
        assert.equal(result.messages.failed, 0);
        assert.equal(result.connections.opened, 1);
        const commands = server.connections[0].commands;
        assert.ok(!commands.includes("RSET"), commands.join(" | "));
      });
    });
  }
});

/**
 * Exim 4.96 with CHUNKING, as issue 15 saw it: when every recipient of a BDAT transaction is
 * refused, BDAT gets 503 but the sender stays, so a MAIL that follows without RSET gets
 * `503 sender already given`, while the RCPT and BDAT LAST behind it still deliver a message.
 * Every `refuseEvery`th RCPT is refused.
 */
function eximLike(refuseEvery: number): Script & { delivered: () => number } {
  let delivered = 0;
  let rcpts = 0;
  return {
    capabilities: ["PIPELINING", "CHUNKING", "8BITMIME", "ENHANCEDSTATUSCODES"],
    delivered: () => delivered,
    onCommand: (line, s) => {
      const verb = line.split(" ", 1)[0].toUpperCase();
      const st = s.state as { sender?: boolean; valid?: number };
      switch (verb) {
        case "MAIL":
          if (st.sender) return "503 sender already given";
          st.sender = true;
          st.valid = 0;
          return "250 OK";
        case "RCPT":
          if (!st.sender) return "503 sender not yet given";
          rcpts++;
          if (rcpts % refuseEvery === 0) return "550 5.1.1 unknown user";
          st.valid = (st.valid ?? 0) + 1;
          return "250 Accepted";
        case "BDAT":
          if (!/ LAST\s*$/i.test(line)) return "250 chunk received";
          if (!st.sender || !st.valid) return "503 valid RCPT command must precede BDAT";
          delivered++;
          st.sender = false;
          st.valid = 0;
          return "250 OK id=1";
        case "RSET":
          st.sender = false;
          st.valid = 0;
          return "250 Reset OK";
        default:
          return undefined;
      }
    },
  };
}

describe("BDAT after a refused transaction (issue 15 item 1)", () => {
  for (const window of [1, 4, 8]) {
    test(`Exim-like server, --window ${window}: accepted equals what the server delivered`, async () => {
      const script = eximLike(4);
      await withServer(script, async (server) => {
        const result = await runClient(target(server.port), {
          sessions: 1,
          messages: 8,
          chunking: true,
          window,
        });
        assert.equal(result.messages.accepted, script.delivered());
        assert.equal(result.messages.accepted, 6);
        assert.equal(result.messages.rejected, 2);
        assert.equal(result.connections.opened, 1);
        const commands = server.connections[0].commands;
        assert.ok(
          commands.some((l) => l.startsWith("BDAT")),
          "BDAT was used",
        );
      });
    });
  }

  test("an RSET rides in the same write as each transaction sent while another is in flight", async () => {
    const script = eximLike(1000);
    await withServer(script, async (server) => {
      const result = await runClient(target(server.port), {
        sessions: 1,
        messages: 4,
        chunking: true,
        window: 4,
      });
      assert.equal(result.messages.accepted, 4);
      const commands = server.connections[0].commands.map((l) => l.split(" ", 1)[0]);
      // The first transaction opens the session; the three behind it each start with RSET.
      assert.deepEqual(
        commands.filter((c) => c === "RSET" || c === "MAIL"),
        ["MAIL", "RSET", "MAIL", "RSET", "MAIL", "RSET", "MAIL"],
      );
      // No extra round trip: the RSET and its MAIL arrived in one chunk.
      for (const chunk of server.connections[0].commandChunks) {
        const i = chunk.indexOf("RSET");
        if (i !== -1) assert.match(chunk[i + 1] ?? "", /^MAIL/, chunk.join(" | "));
      }
    });
  });
});

/** OpenSMTPD's per-session cap: after `cap` messages every MAIL gets 452 4.5.3, session open. */
const openSmtpdLike = (cap: number): Script => ({
  onCommand: (line, s) => {
    if (line.startsWith("MAIL") && s.messages >= cap) return "452 4.5.3 Too many messages sent";
    if (/^(RCPT|DATA)/.test(line) && s.messages >= cap) return "503 5.5.1 Invalid command";
    return undefined;
  },
});

describe("reconnect after a per-session limit at MAIL (issue 15 item 4)", () => {
  for (const pipelining of ["auto", "off"]) {
    test(`452 4.5.3 Too many messages sent, pipelining ${pipelining}: a new session takes over`, async () => {
      await withServer(openSmtpdLike(5), async (server) => {
        const result = await runClient(target(server.port), {
          sessions: 2,
          messages: 30,
          pipelining,
        });
        const reconnects = result.connections.reconnects ?? 0;
        // Each session loses the one message whose MAIL met the limit, then QUITs.
        assert.equal(result.messages.rejected, reconnects);
        assert.ok(reconnects >= 4, `reconnects ${reconnects}`);
        assert.equal(result.messages.accepted + result.messages.rejected, 30);
        const delivered = server.connections.reduce((n, c) => n + c.messages.length, 0);
        assert.equal(result.messages.accepted, delivered);
        for (const c of server.connections) {
          assert.ok(
            c.commands.filter((l) => l.startsWith("MAIL")).length <= 6,
            c.commands.join("|"),
          );
          assert.equal(c.commands.at(-1), "QUIT");
        }
      });
    });
  }

  test("a 4xx naming the limit in words only (no enhanced code) counts too", async () => {
    const script: Script = {
      onCommand: (line, s) =>
        line.startsWith("MAIL") && s.messages >= 2
          ? "450 too many messages in this session"
          : undefined,
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server.port), { sessions: 1, messages: 6 });
      // 2 accepted and 1 refused per session: the second session's refusal is the last message.
      assert.equal(result.messages.accepted, 4);
      assert.equal(result.messages.rejected, 2);
      assert.equal(result.connections.reconnects, 2);
      assert.equal(result.connections.opened, 2);
    });
  });

  const firstSessionDefers: Script = {
    onCommand: (line, s) =>
      s.index === 0 && line.startsWith("MAIL") ? "450 4.7.1 try again later" : undefined,
  };

  test("3 deferred MAILs in a row (the default) end the session; a new one goes on", async () => {
    await withServer(firstSessionDefers, async (server) => {
      const result = await runClient(target(server.port), { sessions: 1, messages: 10 });
      assert.equal(result.messages.rejected, 3);
      assert.equal(result.messages.accepted, 7);
      assert.equal(result.connections.reconnects, 1);
      assert.equal(result.connections.opened, 2);
    });
  });

  test("--reconnect-after-deferrals 0: deferrals alone keep the session", async () => {
    await withServer(firstSessionDefers, async (server) => {
      const result = await runClient(target(server.port), {
        sessions: 1,
        messages: 10,
        reconnectAfterDeferrals: 0,
      });
      assert.equal(result.messages.rejected, 10);
      assert.equal(result.connections.reconnects, 0);
      assert.equal(result.connections.opened, 1);
    });
  });

  test("per-message mode has nothing to reconnect for: no reconnect counted", async () => {
    await withServer(openSmtpdLike(0), async (server) => {
      const result = await runClient(target(server.port), {
        sessions: 1,
        messages: 3,
        mode: "per-message",
      });
      assert.equal(result.messages.rejected, 3);
      assert.equal(result.connections.reconnects, 0);
    });
  });
});
