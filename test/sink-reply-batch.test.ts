/**
 * The sink's reply batch (src/sink/reply-batch.ts): one write per read chunk, replies in order,
 * and the shared scratch Buffer never rewritten while a socket still holds it.
 */
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { test } from "node:test";
import { ReplyBatch } from "../src/sink/reply-batch.js";

/** Keeps what it is given without copying, like Node with a write the kernel did not take. */
class HoldingSocket {
  destroyed = false;
  readonly held: Buffer[] = [];
  constructor(public writableLength: number) {}
  write(data: Buffer): boolean {
    this.held.push(data);
    return true;
  }
}

const replies = (...texts: string[]) => texts.map((t) => Buffer.from(`${t}\r\n`, "latin1"));

function send(batch: ReplyBatch, socket: HoldingSocket, texts: string[]): void {
  for (const reply of replies(...texts)) batch.add(reply);
  batch.writeTo(socket as unknown as Socket);
}

test("reply batch: one write per chunk, in order; nothing for an empty batch", () => {
  const batch = new ReplyBatch();
  const socket = new HoldingSocket(0);
  send(batch, socket, ["250 2.1.0 Ok", "250 2.1.5 Ok", "354 go"]);
  assert.equal(socket.held.length, 1);
  assert.equal(socket.held[0].toString("latin1"), "250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 go\r\n");
  batch.writeTo(socket as unknown as Socket);
  assert.equal(socket.held.length, 1, "an empty batch writes nothing");
  send(batch, socket, ["221 Bye"]);
  assert.equal(socket.held[1].toString("latin1"), "221 Bye\r\n");
});

test("reply batch: a write the socket still holds keeps its bytes through later batches", () => {
  const batch = new ReplyBatch();
  const other = new ReplyBatch();
  const holding = new HoldingSocket(28); // the kernel did not take it all: Node holds the Buffer
  send(batch, holding, ["250 2.0.0 Ok: queued", "250 2.0.0 Ok"]);
  const first = holding.held[0].toString("latin1");
  send(other, new HoldingSocket(0), ["554 5.5.1 Error: no valid recipients", "221 2.0.0 Bye"]);
  send(batch, holding, ["452 4.5.3 Error: too many recipients", "250 2.1.0 Ok"]);
  assert.equal(holding.held[0].toString("latin1"), first);
  assert.equal(first, "250 2.0.0 Ok: queued\r\n250 2.0.0 Ok\r\n");
  assert.equal(
    holding.held[1].toString("latin1"),
    "452 4.5.3 Error: too many recipients\r\n250 2.1.0 Ok\r\n",
  );
});

test("reply batch: more than the scratch Buffer holds goes out whole", () => {
  const batch = new ReplyBatch();
  const socket = new HoldingSocket(0);
  const lines = Array.from({ length: 1000 }, (_, i) => `250-line ${i} ${"x".repeat(20)}`);
  send(batch, socket, lines);
  assert.equal(socket.held.length, 1);
  assert.equal(socket.held[0].toString("latin1"), lines.map((l) => `${l}\r\n`).join(""));
});
