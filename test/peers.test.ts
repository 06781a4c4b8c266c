/**
 * The test peers themselves: each starts, answers real SMTP, and reports the count the server
 * itself kept. A raw lock-step client (not mailvolley's) drives them.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import net from "node:net";
import { describe, type TestContext, test } from "node:test";
import { promisify } from "node:util";
import { haveAiosmtpd, startAiosmtpd } from "./helpers/aiosmtpd.js";
import { requirePeer } from "./helpers/peer.js";
import { converse, transactions } from "./helpers/raw-client.js";
import { startScriptedServer } from "./helpers/scripted-server.js";
import { startSmtpServer } from "./helpers/smtp-server.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";
import { haveSmtpSource, SMTP_SOURCE } from "./helpers/smtp-source.js";
import { haveSwaks, SWAKS } from "./helpers/swaks.js";

const run = promisify(execFile);

function ehloKeywords(reply: string): string[] {
  return reply
    .split("\r\n")
    .slice(1)
    .map((line) => line.slice(4).split(" ")[0].toUpperCase());
}

describe("postfix smtp-sink", () => {
  const needed = (t: TestContext) =>
    requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix");

  test("counts messages from lock-step sessions", async (t) => {
    if (!needed(t)) return;
    const sink = await startPostfixSmtpSink();
    try {
      const a = await converse(sink.port, transactions(3));
      const b = await converse(sink.port, transactions(4, { hello: "HELO client.test" }));
      assert.match(a.replies[0], /^220 /);
      assert.ok(ehloKeywords(a.replies[1]).includes("PIPELINING"));
      // smtp-sink ends its EHLO reply with "250 " (code and a space, no text).
      assert.ok(a.replies[1].endsWith("\r\n250 "));
      assert.equal(a.replies.filter((r) => r.startsWith("250 2.0.0")).length, 3);
      assert.equal(b.replies.at(-1), "221 Bye");
    } finally {
      const counts = await sink.stop();
      assert.deepEqual(counts, { messages: 7, sessions: 2 });
    }
  });

  test("agrees with smtp-source", async (t) => {
    if (!needed(t)) return;
    if (!requirePeer(t, "postfix smtp-source", haveSmtpSource(), "apt-get install postfix")) {
      return;
    }
    const sink = await startPostfixSmtpSink();
    await run(SMTP_SOURCE, ["-d", "-s", "5", "-m", "100", `${sink.host}:${sink.port}`]);
    const counts = await sink.stop();
    assert.equal(counts.messages, 100);
    assert.equal(counts.sessions, 5);
  });

  test("passes extra flags: -p drops PIPELINING", async (t) => {
    if (!needed(t)) return;
    const sink = await startPostfixSmtpSink({ args: ["-p"] });
    const a = await converse(sink.port, ["EHLO x", "QUIT"]);
    assert.ok(!ehloKeywords(a.replies[1]).includes("PIPELINING"));
    assert.deepEqual(await sink.stop(), { messages: 0, sessions: 1 });
  });

  test("two sinks run side by side and stop() is idempotent", async (t) => {
    if (!needed(t)) return;
    const [s1, s2] = await Promise.all([startPostfixSmtpSink(), startPostfixSmtpSink()]);
    assert.notEqual(s1.port, s2.port);
    await converse(s2.port, transactions(2));
    assert.deepEqual(await s1.stop(), { messages: 0, sessions: 0 });
    assert.equal((await s2.stop()).messages, 2);
    assert.equal((await s2.stop()).messages, 2);
  });
});

describe("aiosmtpd", () => {
  const needed = async (t: TestContext) =>
    requirePeer(t, "aiosmtpd", await haveAiosmtpd(), "apt-get install python3-aiosmtpd");

  test("counts messages and records envelopes; no PIPELINING", async (t) => {
    if (!(await needed(t))) return;
    const peer = await startAiosmtpd({ recordEnvelopes: true });
    try {
      const a = await converse(peer.port, transactions(3));
      assert.ok(!ehloKeywords(a.replies[1]).includes("PIPELINING"));
      assert.equal(a.replies.filter((r) => r.startsWith("250 2.0.0 Ok: queued")).length, 3);
      assert.equal((await peer.counts()).messages, 3);
      await converse(peer.port, transactions(2));
    } finally {
      const counts = await peer.stop();
      assert.equal(counts.messages, 5);
      assert.equal(counts.sessions, 2);
      assert.equal(counts.envelopes.length, 5);
      assert.deepEqual(counts.envelopes[0].to, ["rcpt0@server.test"]);
      assert.equal(counts.envelopes[0].from, "sender0@client.test");
    }
  });

  test("LMTP mode answers LHLO", async (t) => {
    if (!(await needed(t))) return;
    const peer = await startAiosmtpd({ lmtp: true });
    const a = await converse(peer.port, transactions(1, { hello: "LHLO client.test" }));
    assert.match(a.replies[1], /^250/);
    assert.equal((await peer.stop()).messages, 1);
  });
});

describe("npm smtp-server", () => {
  test("counts messages; advertises PIPELINING; verdict rejects", async () => {
    const peer = await startSmtpServer({ verdict: (i) => (i === 1 ? rejection() : null) });
    try {
      const a = await converse(peer.port, transactions(3));
      assert.ok(ehloKeywords(a.replies[1]).includes("PIPELINING"));
      assert.ok(!ehloKeywords(a.replies[1]).includes("STARTTLS"));
      const dots = a.replies.filter((r) => /^[245]\d\d /.test(r) && r.includes("queued"));
      assert.equal(dots.length, 2);
      assert.ok(a.replies.some((r) => r.startsWith("554 ")));
      assert.equal(peer.messages(), 2);
    } finally {
      assert.deepEqual(await peer.stop(), { messages: 2, sessions: 1 });
    }
  });

  test("stop() ends open sessions itself, not by smtp-server's grace-period 421", async () => {
    // smtp-server's close() waits closeTimeout (30 s) for open sessions, then sends each a
    // "421 Server shutting down": a stop that left the session open would be seen by that 421.
    const peer = await startSmtpServer();
    const socket = net.connect(peer.port, peer.host);
    socket.on("error", () => {});
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    await new Promise((resolve) => socket.once("data", resolve));
    await peer.stop();
    await closed;
    assert.match(received, /^220 /);
    assert.doesNotMatch(received, /421/);
    assert.equal(peer.server.connections.size, 0);
  });
});

function rejection(): Error {
  return Object.assign(new Error("rejected by test"), { responseCode: 554 });
}

describe("swaks", () => {
  test("delivers to smtp-server", async (t) => {
    if (!requirePeer(t, "swaks", haveSwaks(), "apt-get install swaks")) return;
    const peer = await startSmtpServer();
    await run(SWAKS, ["--server", `${peer.host}:${peer.port}`, "--to", "a@b.test", "--silent"]);
    assert.equal((await peer.stop()).messages, 1);
  });
});

describe("requirePeer", () => {
  test("skips, or throws under MAILVOLLEY_REQUIRE_PEERS=1", () => {
    const saved = process.env.MAILVOLLEY_REQUIRE_PEERS;
    const skipped: string[] = [];
    const fake = { skip: (why: string) => skipped.push(why) } as unknown as TestContext;
    try {
      assert.equal(requirePeer(fake, "thing", true, "apt-get install thing"), true);
      delete process.env.MAILVOLLEY_REQUIRE_PEERS;
      assert.equal(requirePeer(fake, "thing", false, "apt-get install thing"), false);
      assert.deepEqual(skipped, ["thing not installed: apt-get install thing"]);
      process.env.MAILVOLLEY_REQUIRE_PEERS = "1";
      assert.throws(() => requirePeer(fake, "thing", false, "apt-get install thing"), /thing/);
    } finally {
      if (saved === undefined) delete process.env.MAILVOLLEY_REQUIRE_PEERS;
      else process.env.MAILVOLLEY_REQUIRE_PEERS = saved;
    }
  });
});

/** Writes `data` in one call and resolves with everything received until the server closes. */
function exchange(port: number, data: string, opts: { afterBanner?: boolean } = {}) {
  return new Promise<string[]>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: string[] = [];
    socket.on("data", (chunk) => {
      chunks.push(chunk.toString("latin1"));
      if (chunks.length === 1 && opts.afterBanner !== false) socket.write(data);
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(chunks));
    setTimeout(() => socket.destroy(), 3000).unref();
  });
}

describe("scripted server", () => {
  test("records a pipelined group as one chunk and answers it in order", async () => {
    const server = await startScriptedServer();
    try {
      const group = "MAIL FROM:<a@x>\r\nRCPT TO:<b@y>\r\nRCPT TO:<c@y>\r\nDATA\r\n";
      const body = "Subject: s\r\n\r\n..dot\r\nline\r\n.\r\n";
      const chunks = await exchange(
        server.port,
        `EHLO x\r\n${group}${body}MAIL FROM:<d@x>\r\nQUIT\r\n`,
      );
      const text = chunks.join("");
      assert.equal(
        text,
        "220 scripted ESMTP\r\n" +
          "250-scripted\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 ENHANCEDSTATUSCODES\r\n" +
          "250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n" +
          "250 2.0.0 Ok: queued\r\n250 2.1.0 Ok\r\n221 2.0.0 Bye\r\n",
      );
      const record = server.connections[0];
      await record.done;
      assert.equal(record.chunks.length, 1);
      assert.deepEqual(record.commandChunks[0], [
        "EHLO x",
        "MAIL FROM:<a@x>",
        "RCPT TO:<b@y>",
        "RCPT TO:<c@y>",
        "DATA",
        "MAIL FROM:<d@x>",
        "QUIT",
      ]);
      assert.deepEqual(
        record.messages.map((m) => m.toString()),
        ["Subject: s\r\n\r\n..dot\r\nline\r\n"],
      );
    } finally {
      await server.close();
    }
  });

  test("an empty message, data across chunks, and a 4xx on the dot", async () => {
    const server = await startScriptedServer({
      onMessage: (content, session) =>
        session.messages === 2 ? "451 4.3.0 try later" : `250 got ${content.length}`,
    });
    try {
      const b = await converse(server.port, [
        "HELO x",
        "MAIL FROM:<>",
        "RCPT TO:<a@b>",
        "DATA",
        ".\r\n",
        "MAIL FROM:<>",
        "RCPT TO:<a@b>",
        "DATA",
        "abc\r\n.\r\n",
        "QUIT",
      ]);
      assert.deepEqual(b.replies.slice(5), [
        "250 got 0",
        "250 2.1.0 Ok",
        "250 2.1.5 Ok",
        "354 End data with <CR><LF>.<CR><LF>",
        "451 4.3.0 try later",
        "221 2.0.0 Bye",
      ]);
    } finally {
      await server.close();
    }
  });

  test("splits, holds, batches and closes as scripted", async () => {
    const server = await startScriptedServer({
      banner: (session) =>
        session.index === 0
          ? { reply: "421 4.7.0 too many connections", close: true }
          : { reply: "220-one\r\n220 two", split: [2, 9] },
      onCommand: (line) => {
        if (line.startsWith("MAIL")) return { reply: "250 2.1.0 Ok", hold: true };
        if (line.startsWith("RCPT")) return { reply: "250 2.1.5 Ok", delayMs: 20 };
        return undefined;
      },
      onDataChunk: () => ({ reply: "421 4.4.2 bye now", close: true }),
    });
    try {
      assert.deepEqual(await exchange(server.port, "", { afterBanner: false }), [
        "421 4.7.0 too many connections\r\n",
      ]);
      const chunks = await exchange(
        server.port,
        "MAIL FROM:<>\r\nRCPT TO:<a@b>\r\nDATA\r\nSubject: x\r\n",
      );
      assert.deepEqual(chunks.slice(0, 3), ["22", "0-one\r\n", "220 two\r\n"]);
      assert.equal(
        chunks.slice(3).join(""),
        "250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n" +
          "421 4.4.2 bye now\r\n",
      );
      const record = server.connections[1];
      // MAIL's reply was held and went out with RCPT's, in one write.
      assert.equal(record.writes[3].toString(), "250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n");
      await record.done;
      assert.equal(record.closed, true);
    } finally {
      await server.close();
    }
  });

  test("batch mode: one write per read chunk; silent server never answers", async () => {
    const batching = await startScriptedServer({ batch: true });
    const silent = await startScriptedServer({
      banner: null,
      onCommand: (line) => (line === "QUIT" ? { reply: null, close: true } : null),
    });
    try {
      await exchange(batching.port, "EHLO x\r\nMAIL FROM:<>\r\nRCPT TO:<a@b>\r\nQUIT\r\n");
      const writes = batching.connections[0].writes.map((w) => w.toString());
      assert.equal(writes.length, 3);
      assert.match(writes[1], /^250-scripted\r\n[\s\S]*250 2\.1\.0 Ok\r\n250 2\.1\.5 Ok\r\n$/);
      assert.equal(writes[2], "221 2.0.0 Bye\r\n");
      const socket = net.connect(silent.port, "127.0.0.1");
      const got: Buffer[] = [];
      socket.on("data", (c) => got.push(c));
      const ended = new Promise((resolve) => socket.once("end", resolve));
      await silent.waitForConnections(1);
      // QUIT closes without a reply; replies go out in order, so any answer to EHLO would
      // arrive before the FIN.
      socket.write("EHLO x\r\nQUIT\r\n");
      await ended;
      assert.deepEqual(silent.connections[0].commands, ["EHLO x", "QUIT"]);
      assert.deepEqual(got, []);
      socket.destroy();
    } finally {
      await batching.close();
      await silent.close();
    }
  });
});
