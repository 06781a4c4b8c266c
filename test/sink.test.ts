/**
 * The minimal sink: banner, EHLO, a transaction, batching of pipelined replies, end-of-data and
 * dot-stuffing across every chunk boundary, several listeners, close().
 */

import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { EndOfDataScanner, LenientEndScanner } from "../src/sink/data-scanner.js";
import { startSink } from "../src/sink/index.js";
import type { SinkServer } from "../src/sink/server.js";
import { codes, portOf, RawClient, ScriptedSocket, withSink } from "./sink-helpers.js";

const ENVELOPE = "MAIL FROM:<a@example.test>\r\nRCPT TO:<b@example.test>\r\nDATA\r\n";
const BODY = "Subject: hi\r\n\r\n..a stuffed line\r\nline two\r\n.\r\n";

test("banner, EHLO capabilities, one transaction, QUIT", async () => {
  await withSink({ starttls: false }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    const [banner] = await client.read();
    assert.match(banner, /^220 mailvolley-sink ESMTP/);
    const [ehlo] = await client.send("EHLO client.test\r\n");
    const keywords = ehlo.split("\n").map((line) => line.slice(4));
    for (const k of ["PIPELINING", "8BITMIME", "ENHANCEDSTATUSCODES", "SIZE", "CHUNKING"]) {
      assert.ok(keywords.includes(k), `${k} in ${keywords}`);
    }
    assert.deepEqual(codes(await client.send(ENVELOPE, 3)), [250, 250, 354]);
    assert.deepEqual(await client.send(BODY), ["250 2.0.0 Ok: queued"]);
    assert.deepEqual(await client.send("QUIT\r\n"), ["221 2.0.0 Bye"]);
    await client.closedByServer();
    const stats = sink.stats();
    assert.equal(stats.sessions, 1);
    assert.equal(stats.messagesAccepted, 1);
    assert.equal(stats.recipients, 1);
    assert.equal(stats.bytes, BODY.length - 3);
  });
});

test("pipelined group: replies come back in one write per read chunk", async () => {
  await withSink({ starttls: false }, async (sink) => {
    const server = sink as SinkServer;
    const socket = new ScriptedSocket();
    server.acceptSession(socket as unknown as Socket);
    assert.equal(socket.writes.length, 1, "banner");
    socket.feed(`EHLO x\r\n`);
    socket.feed(`${ENVELOPE}`);
    assert.equal(socket.writes.length, 3);
    assert.match(socket.writes[2].toString(), /^250 2\.1\.0 Ok\r\n250 2\.1\.5 Ok\r\n354 /);
    // Body, final dot and the next envelope in one read: two replies in one write.
    socket.feed(`${BODY}${ENVELOPE}`);
    assert.equal(socket.writes.length, 4);
    assert.equal(
      socket.writes[3].toString(),
      "250 2.0.0 Ok: queued\r\n250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n",
    );
    socket.feed(`${BODY}QUIT\r\n`);
    assert.equal(socket.writes.length, 5);
    assert.equal(socket.writes[4].toString(), "250 2.0.0 Ok: queued\r\n221 2.0.0 Bye\r\n");
    assert.equal(sink.stats().messagesAccepted, 2);
  });
});

test("end of data and dot-stuffing are found at every split point of the stream", async () => {
  await withSink({ starttls: false }, async (sink) => {
    const server = sink as SinkServer;
    const stream = `EHLO x\r\n${ENVELOPE}${BODY}${ENVELOPE}.\r\nRSET\r\n${ENVELOPE}..\r\n.\r\nQUIT\r\n`;
    for (let split = 1; split < stream.length; split++) {
      const socket = new ScriptedSocket();
      server.acceptSession(socket as unknown as Socket);
      socket.feed(stream.slice(0, split));
      socket.feed(stream.slice(split));
      const replies = socket.output.split("\r\n").filter((line) => /^\d{3} /.test(line));
      assert.deepEqual(
        replies.map((line) => line.slice(0, 3)),
        ["220", "250", "250", "250", "354", "250", "250", "250", "354", "250", "250"].concat([
          "250",
          "250",
          "354",
          "250",
          "221",
        ]),
        `split at ${split}`,
      );
    }
  });
});

test("the scanner finds the marker split at any byte, and no marker where there is none", () => {
  const content = Buffer.from("a\r\n..\r\n.x\r\n\r\n.\r\nTAIL");
  const end = content.indexOf("\r\n.\r\n") + 5;
  for (let a = 0; a <= content.length; a++) {
    for (let b = a; b <= content.length; b++) {
      const scanner = new EndOfDataScanner();
      const parts = [content.subarray(0, a), content.subarray(a, b), content.subarray(b)];
      let offset = 0;
      let found = -1;
      for (const part of parts) {
        const at = scanner.find(part, 0);
        if (at !== -1) {
          found = offset + at;
          break;
        }
        offset += part.length;
      }
      assert.equal(found, end, `splits ${a},${b}`);
    }
  }
  const scanner = new EndOfDataScanner();
  assert.equal(scanner.find(Buffer.from(".\r\n"), 0), 3, "an empty message ends at once");
  assert.equal(new EndOfDataScanner().find(Buffer.from("x\n.\nmore\r\n"), 0), -1, "bare LF");
});

test("--bare-lf normalize: LF ends lines too, found at every split point", () => {
  const cases: [string, number][] = [
    ["a\n..\n.x\r\n\n.\nTAIL", "a\n..\n.x\r\n\n.\n".length],
    ["a\r\nb\r\n.\r\nTAIL", "a\r\nb\r\n.\r\n".length],
    ["a\nb\r\n.\nTAIL", "a\nb\r\n.\n".length],
    ["x.\n\r.\n..\r\n", -1],
  ];
  for (const [text, end] of cases) {
    const content = Buffer.from(text, "latin1");
    for (let a = 0; a <= content.length; a++) {
      for (let b = a; b <= content.length; b++) {
        const scanner = new LenientEndScanner();
        let offset = 0;
        let found = -1;
        for (const part of [content.subarray(0, a), content.subarray(a, b), content.subarray(b)]) {
          const at = scanner.find(part, 0);
          if (at !== -1) {
            found = offset + at;
            break;
          }
          offset += part.length;
        }
        assert.equal(found, end, `${JSON.stringify(text)} split ${a},${b}`);
      }
    }
  }
  assert.equal(new LenientEndScanner().find(Buffer.from(".\n"), 0), 2, "an empty message");
});

test("--bare-lf normalize: a message ended by LF . LF is accepted, as Postfix reads it", async () => {
  await withSink({ bareLf: "normalize", starttls: false }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    await client.send("EHLO x\r\n");
    assert.deepEqual(codes(await client.send(ENVELOPE, 3)), [250, 250, 354]);
    const [verdict] = await client.send("Subject: lf\n\nbody\n.\n");
    assert.equal(verdict, "250 2.0.0 Ok: queued");
    assert.equal(sink.stats().messagesAccepted, 1);
    await client.close();
  });
});

test("errors in sequence and syntax get 5xx and the session goes on", async () => {
  await withSink({ starttls: false }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    const replies = await client.send(
      "RCPT TO:<x@y>\r\nDATA\r\nMAIL TO:<x>\r\nFOO\r\nVRFY x\r\nNOOP\r\nMAIL FROM:<>\r\nMAIL FROM:<>\r\nDATA\r\nRSET\r\n",
      10,
    );
    assert.deepEqual(codes(replies), [503, 503, 501, 502, 502, 250, 250, 503, 554, 250]);
    await client.close();
  });
});

test("an over-long command line is answered 500 5.5.2", async () => {
  await withSink({ starttls: false }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    const [reply] = await client.send(`NOOP ${"x".repeat(600)}\r\n`);
    assert.match(reply, /^500 5\.5\.2/);
    const [huge] = await client.send(`NOOP ${"x".repeat(20000)}\r\n`);
    assert.match(huge, /^500 5\.5\.2/);
    assert.deepEqual(codes(await client.send("NOOP\r\n")), [250]);
    await client.close();
  });
});

test("several listeners, IPv6 and a unix socket; close() ends open sessions with 421", async () => {
  const path = join(tmpdir(), `mailvolley-sink-${process.pid}.sock`);
  const sink = await startSink(
    fillSinkOptions({ listen: ["127.0.0.1:0", "[::1]:0", `unix:${path}`] }),
  );
  assert.equal(sink.addresses.length, 3);
  assert.equal(sink.addresses[2].path, path);
  const a = await RawClient.connect(portOf(sink, 0));
  const b = await RawClient.connect(portOf(sink, 1), "::1");
  const c = await RawClient.connectPath(path);
  for (const client of [a, b, c]) assert.match((await client.read())[0], /^220 /);
  await sink.close();
  for (const client of [a, b, c]) {
    assert.match((await client.read())[0], /^421 4\.3\.2/);
    await client.closedByServer();
  }
  assert.equal(sink.stats().sessions, 3);
  assert.equal(sink.stats().sessionsActive, 0);
});

test("without PIPELINING and enhanced codes the EHLO reply and replies say so", async () => {
  const sink = await startSink(
    fillSinkOptions({
      listen: ["127.0.0.1:0"],
      pipelining: false,
      enhancedStatusCodes: false,
      chunking: false,
      starttls: false,
    }),
  );
  const client = await RawClient.connect(portOf(sink));
  await client.read();
  const [ehlo] = await client.send("EHLO x\r\n");
  assert.doesNotMatch(ehlo, /PIPELINING|ENHANCEDSTATUSCODES|CHUNKING|STARTTLS/);
  assert.deepEqual(await client.send("MAIL FROM:<>\r\n"), ["250 Ok"]);
  assert.match((await client.send("BDAT 1 LAST\r\n"))[0], /^502 /);
  await client.close();
  await sink.close();
});
