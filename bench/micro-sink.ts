/**
 * Micro-benchmarks of the built-in sink's read path without sockets: one session fed read
 * chunks as the client writes them, a window of whole BDAT transactions or a pipelined DATA
 * message, through a stand-in socket that only counts the replies' octets. Per message: what
 * the sink's JavaScript costs, and the heap it allocates (the kernel's share is not in it).
 */
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { buildRunConfig } from "../src/config/run-config.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { MessageFactory } from "../src/messages/factory.js";
import { After, Before, MessageWire } from "../src/messages/message-wire.js";
import { SinkServer } from "../src/sink/server.js";
import { parseCapabilities } from "../src/smtp/capabilities.js";
import { type MicroResult, measure } from "./lib/measure.js";

/** The client's default --window: transactions per read chunk. */
const WINDOW = 16;

/** What a session needs of its socket; replies are counted, not kept. */
class CountingSocket extends EventEmitter {
  remoteAddress = "127.0.0.1";
  destroyed = false;
  writableEnded = false;
  written = 0;
  write(data: Buffer): boolean {
    this.written += data.length;
    return true;
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
}

export async function sinkMicro(): Promise<MicroResult[]> {
  const server = new SinkServer(
    fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: false }),
    null,
  );
  const config = buildRunConfig({ size: 1024, chunking: true });
  const messages = new MessageFactory(await MessageWire.create(config), WINDOW + 2);
  const caps = parseCapabilities(["mx", "PIPELINING", "SIZE 10240000", "CHUNKING"]);
  // Stamped an hour ahead: each message's end-to-end latency comes out 0 and is tallied as a
  // live sink's (under 65 ms) are; a stamp from setup would age past the tally within the run.
  const now = performance.timeOrigin + performance.now() + 3_600_000;
  // As the client writes a window: every transaction after the first opens with RSET.
  const window = Buffer.concat(
    Array.from({ length: WINDOW }, (_, i) => {
      messages.begin(i, i, now);
      return Buffer.from(
        messages.bdatTransaction(i, caps, i === 0 ? Before.Nothing : Before.Rset, now),
      );
    }),
  );
  // DATA's steady state: the body, its dot and the next envelope in one write.
  messages.begin(0, 0, now);
  const envelope = Buffer.from(messages.envelopeGroup(0, caps, Before.Nothing));
  const dataMessage = Buffer.from(messages.content(0, After.Envelope, caps, now));

  const bdat = session(server);
  const data = session(server);
  data.emit("data", envelope);
  return [
    await measure(
      `sink: BDAT, a window of ${WINDOW} transactions per read (per message)`,
      window.length / WINDOW,
      2_000,
      () => {
        bdat.emit("data", window);
      },
    ).then((r) => perMessage(r, WINDOW)),
    await measure(
      "sink: DATA, message + dot + next envelope per read",
      dataMessage.length,
      20_000,
      () => {
        data.emit("data", dataMessage);
      },
    ),
  ];
}

function session(server: SinkServer): CountingSocket {
  const socket = new CountingSocket();
  server.acceptSession(socket as unknown as Socket);
  socket.emit("data", Buffer.from("EHLO bench\r\n"));
  return socket;
}

/** A result measured per read chunk of `n` messages, restated per message. */
function perMessage(r: MicroResult, n: number): MicroResult {
  return {
    ...r,
    opsPerSecond: r.opsPerSecond * n,
    heapBytesPerOp: r.heapBytesPerOp === null ? null : r.heapBytesPerOp / n,
  };
}
