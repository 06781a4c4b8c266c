/**
 * What the sink records about messages: classes from X-Mailvolley-Class or the Subject,
 * end-to-end latency from X-Mailvolley-Sent, --dump files (dot-unstuffed), text-line and bare-LF
 * checks, and the exit conditions that resolve `finished`.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readHeaders } from "../src/sink/headers.js";
import type { Sink } from "../src/sink/index.js";
import type { SinkServer } from "../src/sink/server.js";
import { codes, portOf, RawClient, ScriptedSocket, withSink } from "./sink-helpers.js";

const TXN = "MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n";

async function deliver(sink: Sink, messages: string[]): Promise<number[]> {
  const client = await RawClient.connect(portOf(sink));
  await client.read();
  await client.send("EHLO x\r\n");
  const verdicts: number[] = [];
  for (const message of messages) {
    await client.send(TXN, 3);
    verdicts.push(...codes(await client.send(`${message}.\r\n`)));
  }
  await client.close();
  return verdicts;
}

test("header reading: class, send time, subject class, folded values, header block only", () => {
  const head = Buffer.from(
    "Subject: [bulk] hello\r\nX-Mailvolley-Class: sec\r\nX-Mailvolley-Sent: 1764683707123.456\r\n\r\nX-Mailvolley-Class: body\r\n",
  );
  const h = readHeaders(head, undefined);
  assert.equal(h.className, "sec");
  assert.equal(h.sentMs, 1764683707123.456);
  const bySubject = readHeaders(Buffer.from("Subject: [bulk]\r\n  more\r\n\r\n"), /\[(\w+)\]/);
  assert.equal(bySubject.className, "bulk");
  const inBody = readHeaders(Buffer.from("A: b\r\n\r\nX-Mailvolley-Class: no\r\n"), undefined);
  assert.deepEqual(inBody, { className: "default", sentMs: -1 });
  assert.equal(
    readHeaders(Buffer.from("x-mailvolley-class: low\r\n\r\n"), undefined).className,
    "low",
  );
});

test("header reading within a range of a read chunk: nothing before or after it counts", () => {
  const chunk = Buffer.from(
    "X-Mailvolley-Class: before\r\n\r\nX-Mailvolley-Class: mid\r\nX-Mailvolley-Sent: 5.5\r\n\r\nX-Mailvolley-Class: after\r\n",
  );
  const start = chunk.indexOf("X-Mailvolley-Class: mid");
  const end = chunk.indexOf("\r\n\r\n", start) + 4;
  const out = { className: "stale", sentMs: 1 };
  assert.equal(readHeaders(chunk, undefined, start, end, out), out, "written into the caller's");
  assert.deepEqual(out, { className: "mid", sentMs: 5.5 });
  // Cut inside the Sent field: only what is in range is read.
  const cut = chunk.indexOf("Sent:") + 2;
  assert.deepEqual(readHeaders(chunk, undefined, start, cut), { className: "mid", sentMs: -1 });
});

test("BDAT windows in one read and split at every byte: each message's class and send time", async () => {
  await withSink({}, async (sink) => {
    const sent = (performance.timeOrigin + performance.now() - 5).toFixed(3);
    const message = (cls: string) =>
      `Subject: x\r\nX-Mailvolley-Class: ${cls}\r\nX-Mailvolley-Sent: ${sent}\r\n\r\nbody\r\n`;
    const bdat = (text: string) => `BDAT ${text.length} LAST\r\n${text}`;
    const envelope = "RSET\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\n";
    // The third message's header is cut between two BDAT chunks, inside its Class field.
    const third = message("a");
    const cut = third.indexOf("Class:") + 3;
    const stream =
      `EHLO x\r\n${envelope}${bdat(message("a"))}${envelope}${bdat(message("b"))}` +
      `${envelope}BDAT ${cut}\r\n${third.slice(0, cut)}${bdat(third.slice(cut))}QUIT\r\n`;
    const replies = ["220", "250", ...Array(3 * 4 + 1).fill("250"), "221"];
    for (let split = 0; split < stream.length; split++) {
      const socket = new ScriptedSocket();
      (sink as unknown as SinkServer).acceptSession(socket as unknown as Socket);
      if (split > 0) socket.feed(stream.slice(0, split));
      socket.feed(stream.slice(split));
      assert.deepEqual(socket.output.match(/^\d{3}(?= )/gm), replies, `split ${split}`);
    }
    const { classes, messagesAccepted } = sink.stats();
    const runs = stream.length;
    assert.equal(messagesAccepted, 3 * runs);
    assert.equal(classes.a.accepted, 2 * runs);
    assert.equal(classes.b.accepted, runs);
    assert.equal(classes.a.latencyMs.count, 2 * runs);
    assert.equal(classes.b.latencyMs.count, runs);
    assert.ok(classes.a.latencyMs.min >= 5, `latency ${classes.a.latencyMs.min} >= 5 ms`);
    assert.equal(classes.default, undefined, "no message lost its class");
  });
});

test("per-class counts and end-to-end latency from X-Mailvolley-Sent", async () => {
  await withSink({ faults: ["dot:550:every=3"] }, async (sink) => {
    const now = (performance.timeOrigin + performance.now() - 5).toFixed(3);
    const sec = `X-Mailvolley-Class: sec\r\nX-Mailvolley-Sent: ${now}\r\n\r\nbody\r\n`;
    const plain = "Subject: x\r\n\r\nbody\r\n";
    assert.deepEqual(await deliver(sink, [sec, sec, sec, plain]), [250, 250, 550, 250]);
    const { classes } = sink.stats();
    assert.equal(classes.sec.accepted, 2);
    assert.equal(classes.sec.rejected, 1);
    assert.equal(classes.sec.latencyMs.count, 2);
    assert.ok(classes.sec.latencyMs.min >= 5, `latency ${classes.sec.latencyMs.min} >= 5 ms`);
    assert.equal(classes.default.accepted, 1);
    assert.equal(classes.default.latencyMs.count, 0);
  });
});

test("--class-by-subject takes the first capture group", async () => {
  await withSink({ classBySubject: "^\\[(\\w+)\\]" }, async (sink) => {
    await deliver(sink, ["Subject: [gold] a\r\n\r\nx\r\n", "Subject: none\r\n\r\nx\r\n"]);
    assert.equal(sink.stats().classes.gold.accepted, 1);
    assert.equal(sink.stats().classes.default.accepted, 1);
  });
});

test("--dump writes each accepted message, dot-unstuffed, and only accepted ones", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mailvolley-dump-"));
  try {
    await withSink({ dump: dir, faults: ["dot:554:every=2"] }, async (sink) => {
      const message = "Subject: dumped\r\n\r\n..starts with a dot\r\nend\r\n";
      assert.deepEqual(await deliver(sink, [message, message]), [250, 554]);
    });
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0], /\.eml$/);
    const text = readFileSync(join(dir, files[0]), "latin1");
    assert.equal(text, "Subject: dumped\r\n\r\n.starts with a dot\r\nend\r\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--dump unstuffs a dot after a bare LF too, when bare LF is accepted", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mailvolley-dump-"));
  try {
    await withSink({ dump: dir }, async (sink) => {
      assert.deepEqual(await deliver(sink, ["Subject: bare\r\n\r\na\n..b\r\nend\r\n"]), [250]);
    });
    const [file] = readdirSync(dir);
    assert.equal(readFileSync(join(dir, file), "latin1"), "Subject: bare\r\n\r\na\n.b\r\nend\r\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--max-text-line and --bare-lf reject: 500 5.5.6 and 550 5.5.2 after the data", async () => {
  await withSink({ maxTextLine: 20, bareLf: "reject" }, async (sink) => {
    const long = `${"x".repeat(30)}\r\n`;
    const verdicts = await deliver(sink, ["short\r\n", long, "bare\nlf\r\n", "a\r\n"]);
    assert.deepEqual(verdicts, [250, 500, 550, 250]);
    assert.equal(sink.stats().messagesRejected, 2);
  });
});

test("bare LF accepted by default and never ends the data", async () => {
  await withSink({}, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    await client.send(`EHLO x\r\n${TXN}`, 4);
    // "\n.\n" is a smuggling attempt: it must be content, not an end of data.
    const [verdict] = await client.send("a\n.\nMAIL FROM:<evil@x>\r\n.\r\n");
    assert.equal(verdict, "250 2.0.0 Ok: queued");
    assert.equal(sink.stats().messagesAccepted, 1);
    await client.close();
  });
});

test("exit conditions resolve `finished`: messages, sessions, idle", async () => {
  await withSink({ exitAfterMessages: 2 }, async (sink) => {
    await deliver(sink, ["a\r\n", "b\r\n"]);
    assert.equal(await sink.finished, "messages");
  });
  await withSink({ exitAfterSessions: 1 }, async (sink) => {
    await deliver(sink, []);
    assert.equal(await sink.finished, "sessions");
  });
  await withSink({ idleExitMs: 50 }, async (sink) => {
    assert.equal(await sink.finished, "idle");
  });
});
