/**
 * Message content on the wire (RFC 5321 §4.5): CRLF line ends, dot-stuffing (§4.5.2), generated
 * bodies of exact sizes, and the header template patched per message.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildRunConfig } from "../src/config/run-config.js";
import { MessageFactory } from "../src/messages/factory.js";
import { After, MessageWire } from "../src/messages/message-wire.js";
import { parseCapabilities } from "../src/smtp/capabilities.js";
import {
  dotStuff,
  END_OF_DATA,
  generateBody,
  HeaderTemplate,
  writeDecimal,
} from "../src/smtp/message.js";
import { prng } from "./helpers/prng.js";

const text = (buf: Buffer) => buf.toString("latin1");
const stuff = (s: string) => text(dotStuff(Buffer.from(s, "latin1")));

describe("dotStuff", () => {
  const CASES: [string, string, string][] = [
    ["empty content is one empty line", "", "\r\n"],
    ["final CRLF added", "abc", "abc\r\n"],
    ["final CRLF kept, not doubled", "abc\r\n", "abc\r\n"],
    ["bare LF", "a\nb\n", "a\r\nb\r\n"],
    ["bare CR", "a\rb\r", "a\r\nb\r\n"],
    ["LF then CR are two line ends", "a\n\rb", "a\r\n\r\nb\r\n"],
    ["CR CR LF", "a\r\r\nb", "a\r\n\r\nb\r\n"],
    ["empty lines kept", "a\r\n\r\n\r\nb", "a\r\n\r\n\r\nb\r\n"],
    ["leading dot on the first line", ".x", "..x\r\n"],
    ["a lone dot line", "a\r\n.\r\nb", "a\r\n..\r\nb\r\n"],
    ["a final lone dot", "a\n.", "a\r\n..\r\n"],
    ["dots after bare LF and bare CR", ".\n.\r..", "..\r\n..\r\n...\r\n"],
    ["dots inside a line untouched", "a.b.\r\n", "a.b.\r\n"],
    ["8-bit bytes untouched", "caf\xe9\n", "caf\xe9\r\n"],
  ];
  for (const [name, input, want] of CASES) {
    test(name, () => assert.equal(stuff(input), want));
  }

  test("random content: CRLF only, no end-of-data inside, unstuffs to the normalised input", () => {
    const next = prng(20261202);
    const alphabet = ["a", "b", ".", ".", "\r", "\n", "\r\n", " "];
    for (let round = 0; round < 2000; round++) {
      let input = "";
      const length = Math.floor(next() * 40);
      for (let i = 0; i < length; i++) input += alphabet[Math.floor(next() * alphabet.length)];
      const out = stuff(input);
      assert.ok(out.endsWith("\r\n"), JSON.stringify(input));
      assert.ok(!/\r(?!\n)|(?<!\r)\n/.test(out), `bare CR or LF for ${JSON.stringify(input)}`);
      // The content followed by ".CRLF" must end exactly at that dot (RFC 5321 §4.1.1.4).
      const wire = `\r\n${out}${text(END_OF_DATA)}`;
      assert.equal(wire.indexOf("\r\n.\r\n"), wire.length - 5, JSON.stringify(input));
      const unstuffed = out
        .split("\r\n")
        .map((line) => (line.startsWith(".") ? line.slice(1) : line))
        .join("\r\n");
      const normalised = input.replace(/\r\n|\r|\n/g, "\r\n");
      const expectedText = normalised.endsWith("\r\n") ? normalised : `${normalised}\r\n`;
      assert.equal(unstuffed, expectedText, JSON.stringify(input));
    }
  });
});

describe("generateBody", () => {
  function checkShape(size: number): void {
    const body = text(generateBody(size));
    assert.equal(body.length, size, `size ${size}`);
    if (size === 0) return;
    assert.ok(body.endsWith("\r\n"), `size ${size} ends with CRLF`);
    assert.ok(!/\r(?!\n)|(?<!\r)\n/.test(body), `size ${size}: CRLF line ends only`);
    const lines = body.split("\r\n").slice(0, -1);
    for (let i = 0; i < lines.length - 1; i++) {
      assert.equal(lines[i].length, 76, `size ${size} line ${i}: 76 characters + CRLF`);
    }
    const last = lines[lines.length - 1];
    assert.ok(last.length <= 77, `size ${size}: last line ${last.length}`);
  }

  test("exact sizes 0..300, 1024, 64 KiB and 1 MiB", () => {
    for (let size = 0; size <= 300; size++) if (size !== 1) checkShape(size);
    for (const size of [1024, 65_536, 1_048_576]) checkShape(size);
  });

  test("a body of 1 octet cannot end in CRLF and is refused", () => {
    assert.throws(() => generateBody(1), RangeError);
  });

  test("no line starts with a dot, so the shared body needs no stuffing (sizes to 20000)", () => {
    for (let size = 2; size <= 20_000; size += 7) {
      const body = text(generateBody(size));
      assert.ok(!body.startsWith(".") && !body.includes("\r\n."), `size ${size}`);
    }
  });

  test("sizes around line boundaries", () => {
    for (const lines of [1, 2, 13, 100]) {
      for (let delta = -3; delta <= 3; delta++) checkShape(lines * 78 + delta);
    }
  });

  test("printable ASCII only, deterministic", () => {
    const body = generateBody(4096);
    for (const byte of body) assert.ok(byte === 13 || byte === 10 || (byte >= 32 && byte < 127));
    assert.ok(generateBody(4096).equals(body));
  });

  test("dot-stuffed, a generated body is framed safely", () => {
    for (let size = 2; size <= 2000; size++) {
      const wire = `\r\n${text(dotStuff(generateBody(size)))}.\r\n`;
      assert.equal(wire.indexOf("\r\n.\r\n"), wire.length - 5, `size ${size}`);
    }
  });
});

describe("writeDecimal", () => {
  test("zero-padded to the width", () => {
    const buf = Buffer.from("xxxxxxxx", "latin1");
    writeDecimal(buf, 1, 6, 4207);
    assert.equal(text(buf), "x004207x");
    writeDecimal(buf, 0, 3, 0);
    assert.equal(text(buf), "0004207x");
    writeDecimal(buf, 0, 8, 12345678.9);
    assert.equal(text(buf), "12345678");
  });

  test("values past int32 (epoch milliseconds), and the low digits when the width is short", () => {
    for (const value of [1_764_683_707_123, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 9, 9_999_999_999_999]) {
      const buf = Buffer.alloc(13);
      writeDecimal(buf, 0, 13, value);
      assert.equal(text(buf), String(value).padStart(13, "0"));
    }
    const short = Buffer.alloc(4);
    writeDecimal(short, 0, 4, 1_764_683_707_123);
    assert.equal(text(short), "7123");
  });
});

describe("HeaderTemplate", () => {
  const fields = {
    from: "sender@client.test",
    to: "rcpt@server.test",
    subject: "load test",
    runId: "r7Kq2",
    extra: ["X-Mailvolley-Class: sec"],
  };

  function header(rendered: Buffer, name: string): string {
    const match = text(rendered).match(new RegExp(`^${name}: (.*)\\r$`, "m"));
    assert.ok(match, `${name} present`);
    return match[1];
  }

  test("renders every field, ends with the empty line", () => {
    const template = new HeaderTemplate(fields);
    const out = template.render(42, Date.UTC(2026, 11, 2, 13, 55, 7, 123) + 0.456);
    const s = text(out);
    assert.ok(s.endsWith("X-Mailvolley-Class: sec\r\n\r\n"));
    assert.equal(header(out, "From"), "<sender@client.test>");
    assert.equal(header(out, "To"), "<rcpt@server.test>");
    assert.equal(header(out, "Subject"), "load test");
    assert.equal(header(out, "X-Mailvolley-Run"), "r7Kq2");
    assert.equal(header(out, "Message-ID"), "<000000000042.r7Kq2@mailvolley.invalid>");
    assert.equal(header(out, "Date"), "Wed, 02 Dec 2026 13:55:07 +0000");
    const sent = header(out, "X-Mailvolley-Sent");
    assert.match(sent, /^\d{13}\.\d{3}$/);
    assert.ok(Math.abs(Number(sent) - (Date.UTC(2026, 11, 2, 13, 55, 7, 123) + 0.456)) < 0.01);
    assert.ok(!/\r(?!\n)|(?<!\r)\n/.test(s));
  });

  test("fixed length, only the patched fields differ", () => {
    const template = new HeaderTemplate(fields);
    const a = template.render(1, 1_700_000_000_000);
    const b = template.render(999_999_999_999, 1_800_000_000_999.999);
    assert.equal(a.length, template.length);
    assert.equal(b.length, template.length);
    const differ = (x: Buffer, y: Buffer) =>
      text(x)
        .split("\r\n")
        .filter((line, i) => line !== text(y).split("\r\n")[i])
        .map((line) => line.split(":")[0]);
    assert.deepEqual(differ(a, b), ["Date", "Message-ID", "X-Mailvolley-Sent"]);
  });

  test("placeholders in the subject and the extra lines: fixed width, one token per message", () => {
    const template = new HeaderTemplate({
      ...fields,
      subject: "n={{seq}} at {{ epochMs }} on {{timestamp}} k={{token}} c={{class}}",
      className: "bulk",
      extra: ["X-Trace: {{token}}/{{seq}}"],
    });
    const at = Date.UTC(2026, 11, 2, 13, 55, 7, 123) + 0.456;
    const a = template.render(42, at);
    const b = template.render(43, at + 1000);
    assert.equal(a.length, template.length);
    assert.equal(b.length, template.length);
    const subject = header(a, "Subject");
    const m = subject.match(/^n=(\d+) at (\d+) on (.+) k=([0-9a-f]+) c=bulk$/);
    assert.ok(m, subject);
    assert.equal(m[1], "000000000042");
    assert.equal(m[2], String(Date.UTC(2026, 11, 2, 13, 55, 7, 123)));
    assert.equal(m[3], "Wed, 02 Dec 2026 13:55:07 +0000");
    assert.equal(m[4].length, 32);
    assert.equal(header(a, "X-Trace"), `${m[4]}/000000000042`);
    const next = header(b, "Subject").match(/k=([0-9a-f]+)/);
    assert.notEqual(next?.[1], m[4], "a fresh token per message");
    assert.ok(!text(a).includes("\0"));
  });

  test("an unknown placeholder is refused, naming it and the known ones", () => {
    assert.throws(
      () => new HeaderTemplate({ ...fields, subject: "x {{seqq}}" }),
      /unknown placeholder \{\{seqq\}\}; use one of \{\{seq\}\}, \{\{timestamp\}\}/,
    );
    // Not a placeholder: stays literal.
    const literal = new HeaderTemplate({ ...fields, subject: "{{ }} {x}" });
    assert.equal(header(literal.render(1, 1_700_000_000_000), "Subject"), "{{ }} {x}");
  });

  test("unique Message-IDs", () => {
    const template = new HeaderTemplate(fields);
    const ids = new Set<string>();
    for (let seq = 0; seq < 5000; seq++) {
      ids.add(header(template.render(seq, 1_764_683_707_000 + seq), "Message-ID"));
    }
    assert.equal(ids.size, 5000);
  });

  test("a valid RFC 5322 date for any second, also going back in time", () => {
    const template = new HeaderTemplate(fields);
    const times = [
      Date.UTC(2026, 0, 1, 0, 0, 0),
      Date.UTC(2026, 1, 9, 9, 9, 9, 999.5),
      Date.UTC(2030, 11, 31, 23, 59, 59, 500),
      Date.UTC(2026, 0, 1, 0, 0, 1),
      Date.UTC(2026, 0, 1, 0, 0, 0, 1),
    ];
    for (const ms of times) {
      const date = header(template.render(7, ms), "Date");
      assert.match(date, /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d \+0000$/);
      assert.equal(Date.parse(date), Math.floor(ms / 1000) * 1000, date);
    }
  });

  test("UTF-8 subject: length counts bytes", () => {
    const template = new HeaderTemplate({ ...fields, subject: "Grüße" });
    const out = template.render(1, 1_764_683_707_000);
    assert.equal(out.length, template.length);
    assert.equal(out.toString("utf8").match(/^Subject: (.*)\r$/m)?.[1], "Grüße");
  });
});

describe("MessageFactory.content with a session's reused buffer", () => {
  const caps = parseCapabilities(["mx", "PIPELINING", "SIZE 10240000"]);
  const epochMs = 1_764_683_707_123.456;

  /** Message `seq` as a session writes it after the 354: begun in slot 0, then rendered. */
  function message(messages: MessageFactory, seq: number, atMs: number, after: After): Buffer {
    messages.begin(0, seq, atMs);
    return messages.content(0, after, caps, atMs);
  }

  test("a patched buffer equals a freshly built message, byte for byte", async () => {
    const wire = await MessageWire.create(buildRunConfig({ size: 700, quiet: true }));
    const messages = new MessageFactory(wire, 1);
    const first = message(messages, 1, epochMs, After.Envelope);
    const copyOfFirst = Buffer.from(first);
    // A second later, another sequence number: the Date, Message-ID and sent time all change.
    const second = message(messages, 2, epochMs + 1000.5, After.Envelope);
    assert.equal(second, first, "the buffer is reused");
    const fresh = message(new MessageFactory(wire, 1), 2, epochMs + 1000.5, After.Envelope);
    assert.notEqual(fresh, second);
    assert.equal(text(second), text(fresh));
    assert.notEqual(text(second), text(copyOfFirst));
  });

  test("a buffer a write still holds, or one with another tail, is not reused", async () => {
    const wire = await MessageWire.create(buildRunConfig({ size: 700, quiet: true }));
    const messages = new MessageFactory(wire, 1);
    const first = message(messages, 1, epochMs, After.Envelope);
    messages.written(true);
    const second = message(messages, 2, epochMs, After.Envelope);
    assert.notEqual(second, first);
    messages.written(false);
    const last = message(messages, 3, epochMs, After.Quit);
    assert.notEqual(last, second, "QUIT follows this one, not an envelope");
    assert.ok(text(last).endsWith("\r\n.\r\nQUIT\r\n"));
  });
});
