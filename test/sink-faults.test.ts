/**
 * Fault injection: per-command replies, 421-and-close, close without a reply, delays that keep
 * replies in order, abort during DATA, every-Nth and seeded probabilities.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFaultRule } from "../src/config/fault-rules.js";
import { codes, greeted, portOf, RawClient, withSink } from "./sink-helpers.js";

const TXN = "MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n";

test("fault specs parse; bad ones say what is wrong", () => {
  assert.deepEqual(parseFaultRule("rcpt:550:every=3"), {
    command: "rcpt",
    action: "reply",
    code: 550,
    every: 3,
  });
  assert.deepEqual(parseFaultRule("dot:451:p=0.25:text=4.3.0 busy: try later"), {
    command: "dot",
    action: "reply",
    code: 451,
    probability: 0.25,
    text: "4.3.0 busy: try later",
  });
  assert.deepEqual(parseFaultRule("mail:ok:delay=10-20ms"), {
    command: "mail",
    action: "ok",
    delayMs: 10,
    delayMaxMs: 20,
  });
  // Delays take units; a bare number stays milliseconds, as fault delays were first written.
  assert.equal(parseFaultRule("dot:451:delay=3s").delayMs, 3000);
  assert.equal(parseFaultRule("dot:451:delay=250ms").delayMs, 250);
  assert.equal(parseFaultRule("dot:451:delay=40").delayMs, 40);
  assert.deepEqual(parseFaultRule("rcpt:ok:delay=100ms-1.5s"), {
    command: "rcpt",
    action: "ok",
    delayMs: 100,
    delayMaxMs: 1500,
  });
  assert.throws(() => parseFaultRule("dot:451:delay=soon"), /delay=soon: write a delay like 250ms/);
  assert.throws(() => parseFaultRule("helo2:450"), /unknown command/);
  assert.throws(() => parseFaultRule("rcpt:maybe"), /unknown action/);
  assert.throws(() => parseFaultRule("rcpt:abort"), /data only/);
  assert.throws(() => parseFaultRule("rcpt:450:p=2"), /probability/);
  // every=0 would never fire (or, read as every=1, always): neither is what it says.
  for (const every of ["0", "1.5"]) {
    assert.throws(() => parseFaultRule(`rcpt:450:every=${every}`), /N must be a whole number/);
  }
  assert.equal(parseFaultRule("rcpt:450:every=1").every, 1);
});

test("every Nth RCPT gets the injected 550; the others 250", async () => {
  await withSink({ faults: ["rcpt:550:every=2"] }, async (sink) => {
    const client = await greeted(sink);
    const rcpts = "RCPT TO:<1@x>\r\nRCPT TO:<2@x>\r\nRCPT TO:<3@x>\r\nRCPT TO:<4@x>\r\n";
    const replies = await client.send(`MAIL FROM:<a@x>\r\n${rcpts}`, 5);
    assert.deepEqual(codes(replies), [250, 250, 550, 250, 550]);
    assert.match(replies[2], /^550 5\.3\.0 /);
    assert.equal(sink.stats().recipientsRejected, 2);
    await client.close();
  });
});

test("a 4xx on the final dot rejects that message; the session goes on", async () => {
  await withSink({ faults: ["dot:451:every=2:text=4.3.0 Try again later"] }, async (sink) => {
    const client = await greeted(sink);
    for (const expected of [250, 451, 250]) {
      await client.send(TXN, 3);
      const [verdict] = await client.send("hello\r\n.\r\n");
      assert.equal(verdict.slice(0, 3), String(expected));
    }
    assert.equal(sink.stats().messagesAccepted, 2);
    assert.equal(sink.stats().messagesRejected, 1);
    await client.close();
  });
});

test("421 at MAIL closes the session after the reply", async () => {
  await withSink({ faults: ["mail:421"] }, async (sink) => {
    const client = await greeted(sink);
    const [reply] = await client.send(TXN);
    assert.match(reply, /^421 4\.3\.0 /);
    await client.closedByServer();
  });
});

test("connect faults: a 554 banner, or a close without any reply", async () => {
  await withSink({ faults: ["connect:554"] }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    assert.match((await client.read())[0], /^554 /);
    await client.closedByServer();
  });
  await withSink({ faults: ["connect:close"] }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.closedByServer();
    await assert.rejects(client.read(), /closed after 0/);
  });
});

test("a delayed reply keeps every reply of a pipelined group in order", async () => {
  await withSink({ faults: ["rcpt:ok:delay=30ms"] }, async (sink) => {
    const client = await greeted(sink);
    const replies = await client.send(`${TXN}`, 3);
    assert.deepEqual(codes(replies), [250, 250, 354]);
    assert.deepEqual(codes(await client.send("x\r\n.\r\nNOOP\r\n", 2)), [250, 250]);
    await client.close();
  });
});

test("abort during DATA closes the connection and counts nothing", async () => {
  await withSink({ faults: ["data:abort:after=5"] }, async (sink) => {
    const client = await greeted(sink);
    assert.deepEqual(codes(await client.send(TXN, 3)), [250, 250, 354]);
    client.write("0123456789\r\n");
    await client.closedByServer();
    assert.equal(sink.stats().messagesAccepted, 0);
  });
});

test("a fixed seed makes probabilistic faults repeat exactly", async () => {
  const pattern = async () => {
    let out: number[] = [];
    await withSink({ faults: ["rcpt:450:p=0.5"], seed: 42 }, async (sink) => {
      const client = await greeted(sink);
      const rcpts = Array.from({ length: 20 }, (_, i) => `RCPT TO:<${i}@x>\r\n`).join("");
      out = codes(await client.send(`MAIL FROM:<a@x>\r\n${rcpts}`, 21));
      await client.close();
    });
    return out;
  };
  const first = await pattern();
  assert.ok(first.includes(450) && first.slice(1).includes(250), `mixed: ${first}`);
  assert.deepEqual(await pattern(), first);
});

test("QUIT and EHLO faults: close without reply, 5xx to EHLO", async () => {
  await withSink({ faults: ["ehlo:550", "quit:close"] }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    assert.match((await client.send("EHLO x\r\n"))[0], /^550 /);
    client.write("QUIT\r\n");
    await client.closedByServer();
  });
});

test("a dot fault answers BDAT LAST, a delay written in seconds holds it", async () => {
  await withSink({ faults: ["dot:451:delay=1s"] }, async (sink) => {
    const client = await greeted(sink);
    const replies = await client.send(
      "MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nBDAT 7 LAST\r\nhello\r\n",
      3,
    );
    assert.deepEqual(codes(replies), [250, 250, 451]);
    assert.equal(sink.stats().messagesRejected, 1);
    assert.equal(sink.stats().messagesAccepted, 0);
    await client.close();
  });
});
