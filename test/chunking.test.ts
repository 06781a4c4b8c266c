/**
 * BDAT (RFC 3030) with whole transactions pipelined: counts at the sink, content exact on the
 * wire, refusals counted in the bdat phase, and DATA where CHUNKING is not offered.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import type net from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fillSinkOptions, type SinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { dotStuff, unstuff } from "../src/smtp/message.js";
import { errorCount, runClient } from "./helpers/run-client.js";
import { startScriptedServer } from "./helpers/scripted-server.js";
import { driveSession } from "./helpers/session-driver.js";
import { tempDir } from "./helpers/tmp.js";

async function withSink<T>(
  options: Partial<SinkOptions>,
  body: (target: string, sink: Awaited<ReturnType<typeof startSink>>) => Promise<T>,
) {
  const sink = await startSink(
    fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: false, ...options }),
  );
  try {
    const { host, port } = sink.addresses[0];
    return await body(`${host}:${port}`, sink);
  } finally {
    await sink.close();
  }
}

describe("BDAT", () => {
  test("unstuff undoes dotStuff", () => {
    for (const text of ["a\r\n.b\r\n", ".x\r\n..y\r\nz\r\n", "plain\r\n", ".\r\n"]) {
      const raw = Buffer.from(text, "latin1");
      assert.deepEqual(unstuff(dotStuff(raw)), raw, JSON.stringify(text));
    }
  });

  for (const mode of ["reuse", "per-message"] as const) {
    test(`${mode}: every transaction pipelined with BDAT, counted by the sink`, async () => {
      await withSink({}, async (target, sink) => {
        const lines: string[] = [];
        const result = await runClient(
          target,
          { sessions: 3, messages: 300, chunking: true, mode, window: 4 },
          (line) => lines.push(line),
        );
        assert.equal(result.messages.accepted, 300);
        assert.equal(sink.stats().messagesAccepted, 300);
        assert.equal(result.latency.transactionMs.count, 300);
        assert.ok(
          lines.some((l) => /^> BDAT \d+ LAST$/.test(l)),
          "BDAT was used",
        );
        assert.ok(!lines.some((l) => l === "> DATA"), "DATA was not");
      });
    });
  }

  test("file content goes unstuffed and arrives exactly as written", async () => {
    const dir = tempDir("mailvolley-bdat-");
    const eml = join(dir, "m.eml");
    writeFileSync(eml, "Subject: dots\r\n\r\n.one dot\r\n..two dots\r\n.\r\nend\r\n");
    const dump = join(dir, "dump");
    await withSink({ dump }, async (target) => {
      const result = await runClient(target, {
        sessions: 1,
        messages: 2,
        chunking: true,
        file: eml,
      });
      assert.equal(result.messages.accepted, 2);
    });
    for (const name of readdirSync(dump)) {
      const text = readFileSync(join(dump, name), "latin1");
      assert.ok(text.endsWith("Subject: dots\r\n\r\n.one dot\r\n..two dots\r\n.\r\nend\r\n"), text);
    }
  });

  test("a refused BDAT rejects that message; the window goes on", async () => {
    await withSink({ faults: ["bdat:554:every=3"] }, async (target) => {
      const result = await runClient(target, { sessions: 1, messages: 30, chunking: true });
      assert.equal(result.messages.rejected, 10);
      assert.equal(result.messages.accepted, 20);
      assert.equal(errorCount(result, "554", "bdat"), 10);
      assert.equal(result.connections.opened, 1);
    });
  });

  test("a fault on the end of the message (dot) fires on BDAT LAST as on DATA's dot", async () => {
    // Exim and mailvolley --chunking send BDAT n LAST instead of DATA: `dot` means the end of
    // the message, however it came, so a gateway's 451 after the content reaches them too.
    await withSink({ faults: ["dot:451:every=2"] }, async (target, sink) => {
      const result = await runClient(target, { sessions: 1, messages: 20, chunking: true });
      assert.equal(result.messages.rejected, 10);
      assert.equal(result.messages.accepted, 10);
      assert.equal(errorCount(result, "451", "bdat"), 10);
      assert.equal(sink.stats().messagesRejected, 10);
    });
  });

  test("the transactions refilled for one chunk of replies leave in one write", async () => {
    // The server answers a whole window in one write (batch), so the client reads four final
    // replies at once; their four refills must reach the socket's handle as one (writev) write.
    const server = await startScriptedServer({
      capabilities: ["PIPELINING", "CHUNKING", "ENHANCEDSTATUSCODES"],
      batch: true,
    });
    try {
      const driven = await driveSession(
        `127.0.0.1:${server.port}`,
        { chunking: true, window: 4 },
        [0, 1, 2, 3, 4, 5, 6, 7],
      );
      const bdatsPerWrite: number[] = [];
      // The session's wire (client/wire.ts) holds the transport (connection.ts), and it the socket.
      type Inside = { wire: { transport: { socket: net.Socket } } };
      const socket = (driven.session as unknown as Inside).wire.transport.socket as net.Socket & {
        _writeGeneric(writev: boolean, data: unknown, encoding: string, cb: unknown): void;
      };
      const writeGeneric = socket._writeGeneric;
      socket._writeGeneric = function (writev, data, encoding, cb) {
        const chunks = writev ? (data as { chunk: Buffer }[]).map((d) => d.chunk) : [data];
        const text = chunks.map((c) => Buffer.from(c as Buffer).toString("latin1")).join("");
        bdatsPerWrite.push(text.match(/^BDAT /gm)?.length ?? 0);
        return writeGeneric.call(this, writev, data, encoding, cb);
      };
      assert.equal(await driven.ended, true);
      assert.equal(driven.stats.counters.accepted, 8);
      assert.equal(server.connections[0].messages.length, 8);
      assert.deepEqual(
        bdatsPerWrite.filter((n) => n > 0),
        [4, 4],
      );
    } finally {
      await server.close();
    }
  });

  test("without CHUNKING offered, --chunking falls back to DATA", async () => {
    const server = await startScriptedServer({});
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 3,
        chunking: true,
      });
      assert.equal(result.messages.accepted, 3);
      assert.ok(!server.connections[0].commands.some((l) => l.startsWith("BDAT")));
    } finally {
      await server.close();
    }
  });
});
