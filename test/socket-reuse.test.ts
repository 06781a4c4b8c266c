/**
 * A session's next connection rides on its closed Socket (net.Socket#connect after 'close')
 * when the last one ended in order: QUIT answered, nothing left to write, plain TCP or a Unix
 * socket. A connection that failed, or one that spoke TLS, leaves its Socket behind. Each test
 * records which Socket object every connect() ran on: the first one seen is 0, the next 1.
 */

import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { runClient } from "./helpers/run-client.js";
import { withServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

/** Runs `body` with every net.Socket#connect recorded by the Socket it ran on. */
async function socketsOf(body: () => Promise<void>): Promise<number[]> {
  const original = net.Socket.prototype.connect;
  const numbers = new Map<net.Socket, number>();
  const order: number[] = [];
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    if (!numbers.has(this)) numbers.set(this, numbers.size);
    order.push(numbers.get(this)!);
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  try {
    await body();
  } finally {
    net.Socket.prototype.connect = original;
  }
  return order;
}

test("per-message: each answered QUIT hands the Socket on; a connection cut in the data does not", async () => {
  await withServer(
    // The third connection is closed by the server in the data: its QUIT is never answered.
    { onDataChunk: (_chunk, s) => (s.index === 2 ? { close: true } : undefined) },
    async (server) => {
      let accepted = 0;
      let failed = 0;
      let unconfirmed = 0;
      const sockets = await socketsOf(async () => {
        const result = await runClient(`${server.host}:${server.port}`, {
          mode: "per-message",
          sessions: 1,
          messages: 5,
        });
        ({ accepted, failed } = result.messages);
        unconfirmed = result.messages.unconfirmed ?? 0;
      });
      assert.deepEqual(sockets, [0, 0, 0, 1, 1]);
      assert.equal(accepted, 4);
      // Its data went whole before the server closed: the server may have taken it (RFC 1047).
      assert.equal(failed, 0);
      assert.equal(unconfirmed, 1);
      // Every connection spoke from its start: a reused Socket carries nothing over.
      const verbs = server.connections.map((c) => c.commands.map((l) => l.split(" ", 1)[0]));
      assert.equal(verbs.length, 5);
      for (const [i, v] of verbs.entries()) {
        assert.deepEqual(v.slice(0, 4), ["EHLO", "MAIL", "RCPT", "DATA"], `connection ${i}`);
      }
      assert.equal(verbs.filter((v) => v.includes("QUIT")).length, 4);
    },
  );
});

/** Runs against the built-in sink; each case names the Socket of every connect, in order. */
const SINK_CASES: {
  name: string;
  unix?: boolean;
  starttls?: boolean;
  options: RawRunOptions & { messages: number };
  sockets: number[];
}[] = [
  {
    name: "reuse mode with --messages-per-session: the session's next connection on the same Socket",
    options: { sessions: 1, messages: 6, messagesPerSession: "2" },
    sockets: [0, 0, 0],
  },
  {
    name: "a Unix-domain socket is reconnected too",
    unix: true,
    options: { mode: "per-message", sessions: 1, messages: 3 },
    sockets: [0, 0, 0],
  },
  {
    name: "STARTTLS: every connection on a Socket of its own (node:tls takes the plain one over)",
    starttls: true,
    options: { mode: "per-message", sessions: 1, messages: 3, starttls: true },
    sockets: [0, 1, 2],
  },
];

for (const c of SINK_CASES) {
  test(c.name, async () => {
    const socketPath = path.join(tempDir("mailvolley-reuse-"), "sink.sock");
    const listen = c.unix ? `unix:${socketPath}` : "127.0.0.1:0";
    const sink = await startSink(fillSinkOptions({ listen: [listen], starttls: c.starttls }));
    try {
      const { host, port } = sink.addresses[0];
      const target = c.unix ? listen : `${host}:${port}`;
      let accepted = 0;
      const sockets = await socketsOf(async () => {
        accepted = (await runClient(target, c.options)).messages.accepted;
      });
      assert.deepEqual(sockets, c.sockets);
      assert.equal(accepted, c.options.messages);
      assert.equal(sink.stats().messagesAccepted, c.options.messages);
    } finally {
      await sink.close();
    }
  });
}
