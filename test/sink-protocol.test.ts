/**
 * CHUNKING/BDAT, STARTTLS (with the injection case), implicit TLS, AUTH PLAIN/LOGIN and LMTP,
 * driven over raw sockets so every byte on the wire is the test's choice.
 */

import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { test } from "node:test";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import type { SinkServer } from "../src/sink/server.js";
import { codes, greeted, portOf, RawClient, ScriptedSocket, withSink } from "./sink-helpers.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");

test("BDAT: whole transactions pipelined back to back, exact octets, no dot handling", async () => {
  await withSink({}, async (sink) => {
    const client = await greeted(sink);
    const first = "MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nBDAT 7\r\nab\r\n.\r\nBDAT 4 LAST\r\ncd\r\n";
    const second = "MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nBDAT 3 LAST\r\nxyzNOOP\r\n";
    const replies = await client.send(first + second, 8);
    assert.deepEqual(codes(replies), [250, 250, 250, 250, 250, 250, 250, 250]);
    assert.match(replies[3], /queued/);
    assert.match(replies[6], /queued/);
    const stats = sink.stats();
    assert.equal(stats.messagesAccepted, 2);
    assert.equal(stats.bytes, 14);
    await client.close();
  });
});

test("BDAT after a refused transaction: the octets are consumed, each BDAT gets the error", async () => {
  await withSink({}, async (sink) => {
    const client = await greeted(sink);
    const replies = await client.send(
      "MAIL FROM:<a@x>\r\nBDAT 4\r\nRSETBDAT 6 LAST\r\nNOOP\r\nNOOP\r\nDATA\r\n",
      5,
    );
    assert.deepEqual(codes(replies), [250, 554, 554, 250, 503]);
    assert.equal(sink.stats().messagesAccepted, 0);
    await client.close();
  });
});

test("BDAT split at every byte gives the same replies", async () => {
  await withSink({}, async (sink) => {
    const stream =
      "EHLO x\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nBDAT 6\r\n\r\n.\r\n\nBDAT 0 LAST\r\nQUIT\r\n";
    for (let split = 1; split < stream.length; split++) {
      const socket = new ScriptedSocket();
      (sink as SinkServer).acceptSession(socket as unknown as Socket);
      socket.feed(stream.slice(0, split));
      socket.feed(stream.slice(split));
      const got = socket.output.match(/^\d{3}(?= )/gm);
      assert.deepEqual(got, ["220", "250", "250", "250", "250", "250", "221"], `split ${split}`);
    }
    assert.equal(sink.stats().bytes, 6 * (stream.length - 1));
  });
});

test("STARTTLS: plaintext pipelined behind it is discarded; EHLO again without STARTTLS", async () => {
  await withSink({}, async (sink) => {
    const plain = await greeted(sink);
    // CVE-2011-0411 style injection: a NOOP in the same write as STARTTLS.
    const [ready] = await plain.send("STARTTLS\r\nNOOP\r\n");
    assert.match(ready, /^220 2\.0\.0/);
    const secure = await plain.startTls();
    const [ehlo] = await secure.send("EHLO x\r\n");
    assert.match(ehlo, /^250-mailvolley-sink/);
    assert.doesNotMatch(ehlo, /STARTTLS/);
    const replies = await secure.send("MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n", 3);
    assert.deepEqual(codes(replies), [250, 250, 354]);
    assert.deepEqual(codes(await secure.send("x\r\n.\r\nSTARTTLS\r\n", 2)), [250, 554]);
    const plaintext = Buffer.concat(plain.chunks).toString("latin1");
    assert.doesNotMatch(plaintext, /\r\n250 2\.0\.0 Ok\r\n/, "the injected NOOP was not answered");
    assert.equal(sink.stats().messagesAccepted, 1);
    await secure.close();
  });
});

test("implicit TLS listener: banner and EHLO over TLS from the first byte", async () => {
  const sink = await startSink(fillSinkOptions({ listen: ["tls://127.0.0.1:0"] }));
  const client = await RawClient.connectTls(portOf(sink));
  assert.match((await client.read())[0], /^220 /);
  const [ehlo] = await client.send("EHLO x\r\n");
  assert.doesNotMatch(ehlo, /STARTTLS/);
  await client.close();
  await sink.close();
});

test("AUTH required: 530 before, 535 on bad credentials, PLAIN and LOGIN succeed", async () => {
  await withSink({ auth: "user:secret" }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    const [ehlo] = await client.send("EHLO x\r\n");
    assert.match(ehlo, /250-AUTH PLAIN LOGIN/);
    assert.match((await client.send("MAIL FROM:<a@x>\r\n"))[0], /^530 5\.7\.0/);
    const bad = await client.send(`AUTH PLAIN ${b64("\0user\0wrong")}\r\n`);
    assert.match(bad[0], /^535 5\.7\.8/);
    assert.deepEqual(codes(await client.send("AUTH PLAIN\r\n")), [334]);
    assert.deepEqual(codes(await client.send("*\r\n")), [501]);
    assert.deepEqual(codes(await client.send(`AUTH PLAIN ${b64("\0user\0secret")}\r\n`)), [235]);
    assert.deepEqual(codes(await client.send("AUTH PLAIN =\r\n")), [503]);
    assert.deepEqual(codes(await client.send("MAIL FROM:<a@x>\r\n")), [250]);
    await client.close();
    const login = await RawClient.connect(portOf(sink));
    await login.read();
    await login.send("EHLO x\r\n");
    assert.deepEqual(await login.send("AUTH LOGIN\r\n"), ["334 VXNlcm5hbWU6"]);
    assert.deepEqual(await login.send(`${b64("user")}\r\n`), ["334 UGFzc3dvcmQ6"]);
    assert.deepEqual(codes(await login.send(`${b64("secret")}\r\n`)), [235]);
    await login.close();
  });
});

test("without --auth, AUTH is neither offered nor accepted", async () => {
  await withSink({}, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    assert.doesNotMatch((await client.send("EHLO x\r\n"))[0], /AUTH/);
    assert.deepEqual(codes(await client.send("AUTH PLAIN AGZvbwBiYXI=\r\n")), [503]);
    await client.close();
  });
});

test("LMTP: LHLO, one reply per accepted recipient after the dot, in order", async () => {
  await withSink({ lmtp: true, faults: ["dot:452:every=2"] }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    assert.match((await client.read())[0], /^220 .* LMTP/);
    assert.deepEqual(codes(await client.send("EHLO x\r\n")), [502]);
    assert.deepEqual(codes(await client.send("MAIL FROM:<a@x>\r\n")), [503]);
    await client.send("LHLO x\r\n");
    const rcpts = "RCPT TO:<1@x>\r\nRCPT TO:<2@x>\r\nRCPT TO:<3@x>\r\n";
    assert.deepEqual(
      codes(await client.send(`MAIL FROM:<a@x>\r\n${rcpts}DATA\r\n`, 5)),
      [250, 250, 250, 250, 354],
    );
    assert.deepEqual(codes(await client.send("hi\r\n.\r\n", 3)), [250, 452, 250]);
    assert.equal(sink.stats().messagesAccepted, 1);
    await client.close();
  });
});
