/**
 * MessageFactory's answers, one per step of a transaction: which message a slot carries, its
 * MAIL and RCPT lines (lock-step), its envelope group (pipelined), its content after the 354
 * and a whole BDAT transaction; each agrees with the others byte for byte.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { MessageFactory } from "../src/messages/factory.js";
import { After, Before, MessageWire } from "../src/messages/message-wire.js";
import type { MessageClassSpec, MessageOptions } from "../src/messages/spec.js";
import { NO_CAPABILITIES, parseCapabilities } from "../src/smtp/capabilities.js";
import { tempDir } from "./helpers/tmp.js";

const caps = parseCapabilities(["mx", "PIPELINING", "SIZE 10240000", "CHUNKING"]);
const epochMs = 1_764_683_707_123.456;

function options(over: Partial<MessageOptions> = {}): MessageOptions {
  return {
    classes: [{ name: "default", share: 1, headers: [] }],
    sizes: [{ size: 300, weight: 1 }],
    recipients: 1,
    from: "sender@example.test",
    to: "rcpt@example.test",
    subject: "factory",
    runId: "0123456789ab",
    uniqueRecipients: false,
    fromFile: null,
    toFile: null,
    xverp: false,
    dsnRet: null,
    dsnNotify: null,
    ...over,
  };
}

async function factory(over: Partial<MessageOptions> = {}, slots = 4): Promise<MessageFactory> {
  return new MessageFactory(await MessageWire.create(options(over)), slots);
}

const text = (b: Buffer) => b.toString("latin1");

/** A class whose content is an .eml file with a line that dot-stuffing doubles. */
function emlClass(): MessageClassSpec {
  const path = join(tempDir("mailvolley-factory-"), "dots.eml");
  writeFileSync(path, "Subject: dots\r\n\r\n.leading dot\r\nlast line\r\n");
  return {
    name: "default",
    share: 1,
    headers: [],
    source: { kind: "eml", path, order: "sequential" },
  };
}

/** The sequence number in a rendered header's Message-ID. */
function seqOf(message: Buffer): number {
  const match = /^Message-ID: <0*(\d+)\./m.exec(text(message));
  assert.ok(match, "a Message-ID");
  return Number(match[1]);
}

describe("MessageFactory.begin", () => {
  test("answers each message's class from the shares, with its recipients", async () => {
    const classes: MessageClassSpec[] = [
      { name: "bulk", share: 2, headers: [], recipients: 3 },
      { name: "alerts", share: 1, headers: [] },
    ];
    const messages = await factory({ classes, recipients: 2 });
    const kinds = [0, 1, 2, 3, 4, 5].map((seq) => messages.begin(seq % 4, seq, epochMs));
    assert.deepEqual(
      kinds.map((k) => [k.index, k.recipients]),
      [
        [0, 3],
        [1, 2],
        [0, 3],
        [0, 3],
        [1, 2],
        [0, 3],
      ],
    );
    assert.equal(kinds[0], kinds[2], "a class is one preallocated record, not one per message");
  });

  test("slots are independent: each answers for the message begun in it", async () => {
    const messages = await factory({ uniqueRecipients: true, recipients: 2 });
    messages.begin(0, 5, epochMs);
    messages.begin(1, 9, epochMs);
    assert.equal(messages.rcptLine(0, 1), "RCPT TO:<12.rcpt@example.test>\r\n");
    assert.equal(messages.rcptLine(1, 0), "RCPT TO:<19.rcpt@example.test>\r\n");
    assert.equal(seqOf(messages.content(1, After.Nothing, caps, epochMs)), 9);
    assert.equal(seqOf(messages.content(0, After.Nothing, caps, epochMs)), 5);
  });
});

describe("MessageFactory: the envelope", () => {
  test("the lock-step lines make the pipelined group; RSET opens it when owed", async () => {
    const messages = await factory({ recipients: 2, dsnNotify: "FAILURE", xverp: true });
    messages.begin(2, 7, epochMs);
    const lines = [messages.mailLine(2, caps), messages.rcptLine(2, 0), messages.rcptLine(2, 1)];
    assert.match(lines[0], /^MAIL FROM:<sender@example\.test> SIZE=\d+ XVERP\r\n$/);
    assert.equal(lines[1], "RCPT TO:<1.rcpt@example.test> NOTIFY=FAILURE\r\n");
    const group = `${lines.join("")}DATA\r\n`;
    assert.equal(text(messages.envelopeGroup(2, caps, Before.Nothing)), group);
    assert.equal(text(messages.envelopeGroup(2, caps, Before.Rset)), `RSET\r\n${group}`);
  });

  test("SIZE= only when the server offered SIZE, and it counts the octets after the 354", async () => {
    const messages = await factory();
    messages.begin(0, 1, epochMs);
    assert.equal(messages.mailLine(0, NO_CAPABILITIES), "MAIL FROM:<sender@example.test>\r\n");
    const size = Number(/SIZE=(\d+)/.exec(messages.mailLine(0, caps))?.[1]);
    const sent = messages.content(0, After.Nothing, caps, epochMs);
    assert.equal(size, sent.length - ".\r\n".length);
  });
});

describe("MessageFactory: content and what follows it", () => {
  test("fast path: the next envelope rides in the content's tail", async () => {
    const messages = await factory();
    messages.begin(0, 1, epochMs);
    const content = messages.content(0, After.Envelope, caps, epochMs);
    messages.begin(1, 2, epochMs);
    assert.equal(messages.nextEnvelopeGroup(1, caps), null);
    const group = text(messages.envelopeGroup(1, caps, Before.Nothing));
    assert.ok(text(content).endsWith(`\r\n.\r\n${group}`));
  });

  test("when envelopes vary, the next one is answered apart", async () => {
    const messages = await factory({ uniqueRecipients: true });
    messages.begin(0, 1, epochMs);
    const content = messages.content(0, After.Envelope, caps, epochMs);
    assert.ok(text(content).endsWith("\r\n.\r\n"));
    messages.begin(1, 2, epochMs);
    const next = messages.nextEnvelopeGroup(1, caps);
    assert.ok(next);
    assert.equal(text(next), text(messages.envelopeGroup(1, caps, Before.Nothing)));
    assert.match(text(next), /RCPT TO:<3\.rcpt@example\.test>/);
  });

  test("QUIT follows the last message in the same Buffer, with content of every kind", async () => {
    for (const over of [{}, { sizes: [100, 200].map((size) => ({ size, weight: 1 })) }]) {
      const messages = await factory(over);
      messages.begin(0, 1, epochMs);
      assert.ok(text(messages.content(0, After.Quit, caps, epochMs)).endsWith("\r\n.\r\nQUIT\r\n"));
    }
  });
});

describe("MessageFactory.bdatTransaction", () => {
  test("BDAT n LAST is followed by exactly n octets, and MAIL's SIZE= says n", async () => {
    const sizes = [100, 200].map((size) => ({ size, weight: 1 }));
    for (const over of [{}, { sizes }, { classes: [emlClass()] }]) {
      const messages = await factory(over);
      messages.begin(1, 3, epochMs);
      const out = text(messages.bdatTransaction(1, caps, Before.Rset, epochMs));
      assert.ok(out.startsWith("RSET\r\nMAIL FROM:<sender@example.test>"));
      const match = /SIZE=(\d+)\r\nRCPT TO:<rcpt@example\.test>\r\nBDAT (\d+) LAST\r\n/.exec(out);
      assert.ok(match, out.slice(0, 200));
      const n = Number(match[2]);
      assert.equal(Number(match[1]), n);
      assert.equal(out.length - (match.index + match[0].length), n);
      assert.ok(!out.endsWith("\r\n.\r\n"), "no final dot with BDAT");
      if (over.classes) assert.match(out, /\r\n\.leading dot\r\n/, "sent as it is, unstuffed");
      else assert.equal(seqOf(Buffer.from(out, "latin1")), 3);
    }
  });

  test("a slot's next transaction is patched into its last Buffer, byte for byte a fresh one", async () => {
    const messages = await factory();
    const build = async (seq: number, at: number, before: Before) => {
      const fresh = await factory();
      fresh.begin(0, seq, at);
      return text(fresh.bdatTransaction(0, caps, before, at));
    };
    messages.begin(0, 3, epochMs);
    const first = messages.bdatTransaction(0, caps, Before.Nothing, epochMs);
    const later = epochMs + 61_234.5; // another second, minute and millisecond fraction
    messages.begin(0, 123_456, later);
    const second = messages.bdatTransaction(0, caps, Before.Nothing, later);
    assert.equal(second, first, "the slot's Buffer is reused");
    assert.equal(text(second), await build(123_456, later, Before.Nothing));
    messages.begin(1, 4, later);
    assert.notEqual(messages.bdatTransaction(1, caps, Before.Nothing, later), first);
    // Another prefix (RSET first) does not fit the kept Buffer: a new one, exact too.
    messages.begin(0, 9, epochMs);
    const withRset = messages.bdatTransaction(0, caps, Before.Rset, epochMs);
    assert.notEqual(withRset, first);
    assert.equal(text(withRset), await build(9, epochMs, Before.Rset));
  });
});
