/**
 * Gateway emulation (Postfix anvil replies) and SIZE: each limit refuses exactly the first event
 * over it, with the reply a gateway would send, and counts the refusal.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { codes, portOf, RawClient, withSink } from "./sink-helpers.js";

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await tick();
}

test("--max-connections: 421 4.7.0 at the banner beyond N concurrent sessions", async () => {
  await withSink({ maxConnections: 2 }, async (sink) => {
    const a = await RawClient.connect(portOf(sink));
    const b = await RawClient.connect(portOf(sink));
    assert.deepEqual(codes([...(await a.read()), ...(await b.read())]), [220, 220]);
    const c = await RawClient.connect(portOf(sink));
    const [refusal] = await c.read();
    assert.match(refusal, /^421 4\.7\.0 .*too many connections from 127\.0\.0\.1/);
    await c.closedByServer();
    assert.equal(sink.stats().connectionsRefused, 1);
    await a.close();
    await until(() => sink.stats().sessionsActive === 1);
    const d = await RawClient.connect(portOf(sink));
    assert.deepEqual(codes(await d.read()), [220]);
    await Promise.all([b.close(), d.close()]);
  });
});

test("--max-connections-per-client counts one client address", async () => {
  await withSink({ maxConnectionsPerClient: 1 }, async (sink) => {
    const a = await RawClient.connect(portOf(sink));
    assert.deepEqual(codes(await a.read()), [220]);
    const b = await RawClient.connect(portOf(sink));
    assert.match((await b.read())[0], /^421 4\.7\.0 /);
    await b.closedByServer();
    await a.close();
  });
});

test("--max-connection-rate: the connection over N per window gets 421", async () => {
  await withSink({ maxConnectionRate: "2/60s" }, async (sink) => {
    const clients = [];
    for (let i = 0; i < 3; i++) {
      const client = await RawClient.connect(portOf(sink));
      clients.push(client);
      const [reply] = await client.read();
      assert.equal(reply.slice(0, 3), i < 2 ? "220" : "421", `connection ${i + 1}`);
    }
    assert.equal(sink.stats().connectionsRefused, 1);
    assert.equal(sink.stats().sessions, 2);
    await Promise.all(clients.map((client) => client.close()));
  });
});

test("--max-message-rate: 450 4.7.1 at MAIL, and the session stays open", async () => {
  await withSink({ maxMessageRate: "2/60s" }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    const replies = await client.send(
      "EHLO x\r\nMAIL FROM:<a@x>\r\nRSET\r\nMAIL FROM:<a@x>\r\nRSET\r\nMAIL FROM:<a@x>\r\nNOOP\r\n",
      7,
    );
    assert.deepEqual(codes(replies), [250, 250, 250, 250, 250, 450, 250]);
    assert.match(replies[5], /^450 4\.7\.1 Error: too much mail from 127\.0\.0\.1/);
    assert.equal(sink.stats().mailRejected, 1);
    await client.close();
  });
});

test("--max-messages-per-session: 421 4.7.0 to the MAIL after N, then close", async () => {
  await withSink({ maxMessagesPerSession: 1 }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    await client.send("EHLO x\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n", 4);
    const replies = await client.send(".\r\nMAIL FROM:<a@x>\r\n", 2);
    assert.deepEqual(codes(replies), [250, 421]);
    await client.closedByServer();
    assert.equal(sink.stats().messagesAccepted, 1);
  });
});

test("--max-recipients: 452 4.5.3 beyond N, the message still goes through", async () => {
  await withSink({ maxRecipients: 2 }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    const rcpts = "RCPT TO:<1@x>\r\nRCPT TO:<2@x>\r\nRCPT TO:<3@x>\r\n";
    const replies = await client.send(`EHLO x\r\nMAIL FROM:<a@x>\r\n${rcpts}DATA\r\n`, 6);
    assert.deepEqual(codes(replies), [250, 250, 250, 250, 452, 354]);
    assert.match(replies[4], /^452 4\.5\.3 /);
    assert.deepEqual(codes(await client.send("x\r\n.\r\n")), [250]);
    const stats = sink.stats();
    assert.equal(stats.recipients, 2);
    assert.equal(stats.recipientsRejected, 1);
    await client.close();
  });
});

test("SIZE: declared size over the limit gets 552 at MAIL, actual size at the dot", async () => {
  await withSink({ size: 100 }, async (sink) => {
    const client = await RawClient.connect(portOf(sink));
    await client.read();
    const [ehlo] = await client.send("EHLO x\r\n");
    assert.match(ehlo, /250-SIZE 100\n/);
    assert.match((await client.send("MAIL FROM:<a@x> SIZE=101\r\n"))[0], /^552 5\.3\.4/);
    const replies = await client.send("MAIL FROM:<a@x> SIZE=100\r\nRCPT TO:<b@x>\r\nDATA\r\n", 3);
    assert.deepEqual(codes(replies), [250, 250, 354]);
    const [verdict] = await client.send(`${"x".repeat(120)}\r\n.\r\n`);
    assert.match(verdict, /^552 5\.3\.4/);
    assert.equal(sink.stats().messagesRejected, 1);
    assert.equal(sink.stats().messagesAccepted, 0);
    await client.close();
  });
});
