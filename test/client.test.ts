/**
 * The client against scripted raw servers: byte-exact edge cases on real loopback sockets.
 */
import assert from "node:assert/strict";

import net from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { errorCount, runClient } from "./helpers/run-client.js";
import { type Script, type ScriptedServer, withServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

const target = (server: ScriptedServer) => `127.0.0.1:${server.port}`;
const fast = { timeout: { connect: "2s", banner: "2s", ehlo: "2s", mail: "2s", dot: "2s" } };

describe("pipelining (RFC 2920)", () => {
  test("MAIL, RCPT and DATA travel in one write; body, dot and next envelope in one write", async () => {
    await withServer({ capabilities: ["PIPELINING", "SIZE 10240000"] }, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 3, recipients: 2 });
      assert.equal(result.messages.accepted, 3);
      const conn = server.connections[0];
      assert.equal(conn.messages.length, 3);
      const groups = conn.commandChunks.filter((c) => c.some((l) => l.startsWith("MAIL")));
      assert.equal(groups.length, 3);
      for (const group of groups) {
        const verbs = group.map((l) => l.split(/[ :]/)[0]);
        assert.deepEqual(verbs.slice(-4), ["MAIL", "RCPT", "RCPT", "DATA"]);
      }
      // Messages 2 and 3: their envelope arrived in the chunk that carried the previous body.
      assert.ok(conn.chunks.filter((c) => c.includes("\r\n.\r\nMAIL FROM:")).length >= 1);
      assert.ok(conn.commands.at(-1) === "QUIT");
      assert.match(conn.commands.find((l) => l.startsWith("MAIL")) ?? "", / SIZE=\d+$/);
    });
  });

  test("without PIPELINING advertised the client is strictly lock-step", async () => {
    await withServer({ capabilities: ["8BITMIME"] }, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 3, recipients: 2 });
      assert.equal(result.messages.accepted, 3);
      for (const chunkCommands of server.connections[0].commandChunks) {
        assert.ok(chunkCommands.length <= 1, `more than one command in a chunk: ${chunkCommands}`);
      }
    });
  });

  test("--pipelining off forces lock-step against a pipelining server", async () => {
    await withServer({}, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 2,
        pipelining: "off",
      });
      assert.equal(result.messages.accepted, 2);
      for (const chunkCommands of server.connections[0].commandChunks) {
        assert.ok(chunkCommands.length <= 1);
      }
    });
  });

  test("nothing is sent before the banner", async () => {
    // The first connection never gets its banner: the client gives up at its banner timeout
    // and closes, and that FIN follows every byte it wrote, so once the server has seen the
    // close, whatever the client sent while it waited has arrived. The second gets its banner.
    const script: Script = { banner: (s) => (s.index === 0 ? null : "220 slow") };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 1,
        reconnectDelay: "10ms",
        timeout: { banner: "200ms" },
      });
      await server.connections[0].done;
      assert.equal(server.connections[0].chunks.length, 0);
      assert.equal(errorCount(result, "timeout", "banner"), 1);
      assert.equal(result.messages.accepted, 1);
    });
  });
});

describe("replies split and batched", () => {
  test("every reply split into single bytes still parses", async () => {
    const split = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const script: Script = {
      banner: { reply: "220 split ESMTP", split },
      onCommand: (line) => {
        if (line.startsWith("EHLO")) {
          return { reply: "250-split\r\n250-PIPELINING\r\n250 ", split: [3, 4, 10, 11, 16] };
        }
        return undefined;
      },
      onMessage: () => ({ reply: "250 2.0.0 Ok", split }),
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 2 });
      assert.equal(result.messages.accepted, 2);
    });
  });

  test("replies batched per chunk (many replies in one read) are matched in order", async () => {
    await withServer({ batch: true }, async (server) => {
      const result = await runClient(target(server), { sessions: 2, messages: 20, recipients: 3 });
      assert.equal(result.messages.accepted, 20);
      assert.equal(result.recipients.accepted, 60);
    });
  });
});

describe("refusals and failures are counted, never lost", () => {
  test("421 at the banner: reuse mode reconnects and delivers everything", async () => {
    const script: Script = {
      banner: (s) =>
        s.index === 0 ? { reply: "421 4.7.0 too many connections", close: true } : "220 ok ESMTP",
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 5,
        reconnectDelay: "10ms",
      });
      assert.equal(result.messages.accepted, 5);
      assert.equal(result.connections.refused, 1);
      assert.equal(result.connections.opened, 2);
      assert.equal(errorCount(result, "421", "banner"), 1);
      assert.equal(result.errors.find((e) => e.reply === "421")?.enhanced, "4.7.0");
    });
  });

  test("421 at every banner: per-message mode fails each message with its 421", async () => {
    const script: Script = { banner: { reply: "421 4.7.0 go away", close: true } };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 2,
        messages: 6,
        mode: "per-message",
      });
      assert.equal(result.messages.failed, 6);
      assert.equal(result.connections.opened, 6);
      assert.equal(errorCount(result, "421", "banner"), 6);
    });
  });

  test("421 at every banner: reuse mode gives up after the reconnect attempts", async () => {
    const script: Script = { banner: { reply: "421 4.7.0 go away", close: true } };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 2,
        messages: 6,
        reconnectAttempts: 3,
        reconnectDelay: "5ms",
      });
      assert.equal(result.messages.failed, 6);
      assert.equal(result.connections.opened, 6);
      assert.equal(errorCount(result, "unsent", "connect"), 6);
    });
  });

  test("554 instead of the banner ends the session", async () => {
    await withServer({ banner: "554 5.3.2 no service" }, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 1,
        mode: "per-message",
      });
      assert.equal(result.messages.failed, 1);
      assert.equal(errorCount(result, "554", "banner"), 1);
    });
  });

  test("421 mid-transaction: in-flight messages fail, a new session finishes the rest", async () => {
    const script: Script = {
      onCommand: (line, s) => {
        if (s.index === 0 && line.startsWith("MAIL") && s.messages === 2) {
          return { reply: "421 4.3.2 shutting down", close: true };
        }
        return undefined;
      },
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 6,
        reconnectDelay: "5ms",
      });
      assert.equal(result.messages.attempted, 6);
      assert.equal(result.messages.failed, 1);
      assert.equal(result.messages.accepted, 5);
      assert.equal(errorCount(result, "421", "mail"), 1);
      assert.equal(result.connections.opened, 2);
    });
  });

  test("5xx on one RCPT: the message goes to the others", async () => {
    const script: Script = {
      onCommand: (line) => (line.startsWith("RCPT TO:<2.") ? "550 5.1.1 no such user" : undefined),
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 3, recipients: 2 });
      assert.equal(result.messages.accepted, 3);
      assert.equal(result.recipients.rejected, 3);
      assert.equal(errorCount(result, "550", "rcpt"), 3);
    });
  });

  test("every RCPT rejected: the message is rejected and RSET precedes the next MAIL", async () => {
    const script: Script = {
      onCommand: (line) => {
        if (line.startsWith("RCPT")) return "550 5.1.1 no such user";
        if (line === "DATA") return "554 5.5.1 no valid recipients";
        return undefined;
      },
    };
    for (const pipelining of ["auto", "off"]) {
      await withServer(script, async (server) => {
        const result = await runClient(target(server), { sessions: 1, messages: 3, pipelining });
        assert.equal(result.messages.rejected, 3);
        const commands = server.connections[0].commands.map((l) => l.split(/[ :]/)[0]);
        const mails = commands.flatMap((c, i) => (c === "MAIL" ? [i] : []));
        for (const i of mails.slice(1)) assert.equal(commands[i - 1], "RSET", commands.join(" "));
        assert.ok(!commands.includes("DATA") || pipelining === "auto");
      });
    }
  });

  test("rejected MAIL: rejected message, RSET, and the session goes on", async () => {
    const script: Script = {
      onCommand: (line, s) => {
        if (!line.startsWith("MAIL")) {
          if (s.state.mailRejected && (line.startsWith("RCPT") || line === "DATA")) {
            s.state.mailRejected = false;
            return line === "DATA" ? "503 5.5.1 need MAIL" : "503 5.5.1 need MAIL";
          }
          return undefined;
        }
        const n = ((s.state.n as number) ?? 0) + 1;
        s.state.n = n;
        if (n === 2) {
          s.state.mailRejected = true;
          return "450 4.7.1 too much mail from 127.0.0.1";
        }
        return undefined;
      },
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 4 });
      assert.equal(result.messages.rejected, 1);
      assert.equal(result.messages.accepted, 3);
      assert.equal(errorCount(result, "450", "mail"), 1);
      assert.equal(result.connections.opened, 1);
    });
  });

  test("4xx on the final dot rejects that message; the session goes on", async () => {
    const script: Script = {
      onMessage: (_content, s) => (s.messages === 2 ? "451 4.3.0 try again later" : undefined),
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 4 });
      assert.equal(result.messages.rejected, 1);
      assert.equal(result.messages.accepted, 3);
      assert.equal(errorCount(result, "451", "dot"), 1);
      assert.equal(result.connections.opened, 1);
    });
  });

  test("close during DATA: that message fails (or, sent whole, is unconfirmed), another session delivers the rest", async () => {
    const script: Script = {
      onDataChunk: (_chunk, s) => (s.index === 0 && s.messages === 1 ? { close: true } : undefined),
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 4,
        reconnectDelay: "5ms",
      });
      const m = result.messages;
      assert.equal(m.accepted + m.failed + (m.unconfirmed ?? 0), 4);
      assert.ok(m.failed + (m.unconfirmed ?? 0) >= 1);
      assert.ok(errorCount(result, "closed") >= 1);
    });
  });

  test("a server that never answers: the banner timeout is a counted outcome", async () => {
    await withServer({ banner: null }, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 2,
        mode: "per-message",
        timeout: { banner: "200ms" },
      });
      assert.equal(result.messages.failed, 2);
      assert.equal(errorCount(result, "timeout", "banner"), 2);
    });
  });

  test("a server that stops answering after the data: the dot timeout leaves the message unconfirmed", async () => {
    const script: Script = {
      onMessage: () => null,
      onCommand: (line) => (line === "QUIT" ? null : undefined),
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 1,
        timeout: { dot: "200ms" },
      });
      // Sent in full, no final reply: the server may have it (RFC 1047), so it is not failed.
      assert.deepEqual([result.messages.failed, result.messages.unconfirmed], [0, 1]);
      assert.equal(errorCount(result, "timeout", "dot"), 1);
    });
  });

  test("garbage instead of a reply is a protocol error of that session, not a crash", async () => {
    const script: Script = {
      onCommand: (line) => (line.startsWith("MAIL") ? "hello there, not SMTP" : undefined),
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 1,
        mode: "per-message",
        ...fast,
      });
      assert.equal(result.messages.failed, 1);
      assert.equal(errorCount(result, "protocol"), 1);
    });
  });

  test("a refused TCP connection is counted, and the run ends", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const result = await runClient(`127.0.0.1:${port}`, {
      sessions: 2,
      messages: 3,
      reconnectAttempts: 2,
      reconnectDelay: "5ms",
    });
    assert.equal(result.messages.failed, 3);
    assert.equal(errorCount(result, "refused", "connect"), 4);
  });
});

describe("sessions", () => {
  test("HELO when EHLO is refused", async () => {
    const script: Script = {
      onCommand: (line) => (line.startsWith("EHLO") ? "502 5.5.2 EHLO not implemented" : undefined),
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 2 });
      assert.equal(result.messages.accepted, 2);
      assert.ok(server.connections[0].commands.some((l) => l.startsWith("HELO ")));
    });
  });

  test("--messages-per-session caps each connection", async () => {
    await withServer({}, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 10,
        messagesPerSession: 3,
      });
      assert.equal(result.messages.accepted, 10);
      assert.equal(result.connections.opened, 4);
      assert.deepEqual(
        server.connections.map((c) => c.messages.length),
        [3, 3, 3, 1],
      );
    });
  });

  test("per-message mode opens one connection a message and pipelines QUIT", async () => {
    await withServer({}, async (server) => {
      const result = await runClient(target(server), {
        sessions: 3,
        messages: 9,
        mode: "per-message",
      });
      assert.equal(result.messages.accepted, 9);
      assert.equal(result.connections.opened, 9);
      assert.ok(server.connections.every((c) => c.messages.length === 1));
      assert.ok(
        server.connections.every((c) => c.chunks.some((k) => k.includes("\r\n.\r\nQUIT\r\n"))),
      );
    });
  });

  test("-w pauses after each message, so the next envelope is not pipelined behind the body", async () => {
    for (const option of [{ wait: "20ms" }, { randomWait: "20ms" }]) {
      await withServer({}, async (server) => {
        const result = await runClient(target(server), { sessions: 1, messages: 3, ...option });
        assert.equal(result.messages.accepted, 3);
        const chunks = server.connections[0].chunks.map((c) => c.toString("latin1"));
        assert.ok(
          chunks.every((c) => !c.includes("\r\n.\r\nMAIL")),
          "envelope after a body",
        );
        assert.equal(chunks.filter((c) => c.startsWith("MAIL")).length, 3);
      });
    }
  });

  test("message content arrives whole: header block, then exactly --size body octets", async () => {
    for (const size of [0, 2, 159, 1024, 5000]) {
      await withServer({}, async (server) => {
        await runClient(target(server), { sessions: 1, messages: 2, size });
        for (const content of server.connections[0].messages) {
          const bodyStart = content.indexOf("\r\n\r\n") + 4;
          assert.equal(content.length - bodyStart, size, `size ${size}`);
          assert.ok(!content.includes("\r\n."), `size ${size}: a line starts with a dot`);
        }
      });
    }
  });

  test("a size distribution sends each body size in its share", async () => {
    await withServer({}, async (server) => {
      await runClient(target(server), { sessions: 1, messages: 40, size: "100:1,1k:3" });
      const sizes: Record<number, number> = {};
      for (const content of server.connections[0].messages) {
        const body = content.length - (content.indexOf("\r\n\r\n") + 4);
        sizes[body] = (sizes[body] ?? 0) + 1;
      }
      assert.deepEqual(sizes, { 100: 10, 1024: 30 });
    });
  });

  test("-M names the client in EHLO", async () => {
    await withServer({}, async (server) => {
      await runClient(target(server), { sessions: 1, messages: 1, helo: "client.test" });
      assert.equal(server.connections[0].commands[0], "EHLO client.test");
    });
  });

  test("an IPv6 loopback target", async (t) => {
    const server = net.createServer((socket) => {
      socket.end("421 4.3.2 not today\r\n");
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(0, "::1", () => resolve(true));
    });
    if (!listening) {
      t.skip("no IPv6 loopback on this machine");
      return;
    }
    try {
      const { port } = server.address() as net.AddressInfo;
      const result = await runClient(`[::1]:${port}`, {
        sessions: 1,
        messages: 1,
        mode: "per-message",
      });
      assert.equal(errorCount(result, "421", "banner"), 1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("unique recipients and message headers", async () => {
    await withServer({}, async (server) => {
      await runClient(target(server), {
        sessions: 1,
        messages: 2,
        recipients: 2,
        uniqueRecipients: true,
        subject: "hello",
      });
      const rcpts = server.connections[0].commands.filter((l) => l.startsWith("RCPT"));
      assert.equal(new Set(rcpts).size, 4);
      const text = server.connections[0].messages[0].toString("latin1");
      for (const h of [
        "From:",
        "To:",
        "Date:",
        "Message-ID:",
        "Subject: hello",
        "X-Mailvolley-Run:",
        "X-Mailvolley-Sent:",
      ]) {
        assert.ok(text.includes(`\r\n${h}`) || text.startsWith(h), `missing ${h}`);
      }
    });
  });

  test("a unix-socket target", async () => {
    const dir = tempDir("mailvolley-");
    const path = join(dir, "smtp.sock");
    const server = net.createServer((socket) => {
      socket.write("220 unix ESMTP\r\n");
      let inData = false;
      let buffered = "";
      socket.on("data", (chunk) => {
        buffered += chunk.toString("latin1");
        const out: string[] = [];
        for (;;) {
          if (inData) {
            const end = buffered.indexOf("\r\n.\r\n");
            if (end === -1) break;
            buffered = buffered.slice(end + 5);
            inData = false;
            out.push("250 ok");
            continue;
          }
          const lf = buffered.indexOf("\r\n");
          if (lf === -1) break;
          const line = buffered.slice(0, lf);
          buffered = `${line.startsWith("DATA") ? "\r\n" : ""}${buffered.slice(lf + 2)}`;
          if (line.startsWith("DATA")) inData = true;
          out.push(
            line.startsWith("DATA") ? "354 go" : line.startsWith("QUIT") ? "221 bye" : "250 ok",
          );
        }
        if (out.length) socket.write(`${out.join("\r\n")}\r\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const result = await runClient(`unix:${path}`, { sessions: 1, messages: 2 });
      assert.equal(result.messages.accepted, 2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
