/**
 * Template sources: placeholders filled per message from pieces compiled once, unknown
 * placeholders refused with their line, and content that stays framed after DATA.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { loadTemplate, SourceError } from "../src/messages/index.js";

const root = mkdtempSync(join(tmpdir(), "mailvolley-template-"));
after(() => rmSync(root, { recursive: true, force: true }));
let fixtures = 0;
function fixture(content: string): string {
  const path = join(root, `t${++fixtures}.eml`);
  writeFileSync(path, content);
  return path;
}

const EPOCH_MS = 1_796_219_707_123.75; // Wed, 02 Dec 2026 13:55:07 UTC

const TEMPLATE = [
  "Subject: LOADTEST {{class}} #{{seq}}",
  "Date: {{timestamp}}",
  "Message-ID: <{{token}}@mailvolley.invalid>",
  "X-Sent: {{ epochMs }}",
  "",
  "token again: {{token}}",
  ".leading dot",
  "{{class}} at a line start",
  "braces that are no placeholder: {{ }} {{#each}} {{x",
  "}}",
].join("\n");

describe("loadTemplate", () => {
  test("every placeholder filled; dots stuffed; the subject follows the class", async () => {
    const source = await loadTemplate(fixture(TEMPLATE));
    assert.deepEqual(
      [source.kind, source.count, source.order, source.longLines],
      ["template", 1, "sequential", 0],
    );
    const content = source.content(41, { seq: 41, className: "sec", epochMs: EPOCH_MS });
    const text = content.bytes.toString("latin1");
    const token = /<([0-9a-f]{32})@/.exec(text)?.[1];
    assert.ok(token, text);
    assert.equal(
      text,
      [
        "Subject: LOADTEST sec #41",
        "Date: Wed, 02 Dec 2026 13:55:07 +0000",
        `Message-ID: <${token}@mailvolley.invalid>`,
        "X-Sent: 1796219707123",
        "",
        `token again: ${token}`,
        "..leading dot",
        "sec at a line start",
        "braces that are no placeholder: {{ }} {{#each}} {{x",
        "}}",
        "",
      ].join("\r\n"),
    );
    assert.equal(content.subject, "LOADTEST sec #41");
    const literal = TEMPLATE.replace(/\{\{ ?\w+ ?\}\}/g, "").replace(/\n/g, "\r\n");
    assert.equal(source.totalBytes, literal.length + 2 + 1, "literal octets, CRLF ended, stuffed");
  });

  test("tokens differ between messages; a dotted class at a line start is stuffed", async () => {
    const source = await loadTemplate(fixture(TEMPLATE));
    const tokens = new Set<string>();
    for (let seq = 0; seq < 1000; seq++) {
      const content = source.content(seq, { seq, className: ".dot", epochMs: EPOCH_MS + seq });
      const text = content.bytes.toString("latin1");
      tokens.add(/<([0-9a-f]{32})@/.exec(text)![1]);
      assert.ok(text.includes("\r\n..dot at a line start\r\n"));
      assert.ok(text.startsWith(`Subject: LOADTEST .dot #${seq}\r\n`));
      const wire = `\r\n${text}.\r\n`;
      assert.equal(wire.indexOf("\r\n.\r\n"), wire.length - 5, `message ${seq}`);
    }
    assert.equal(tokens.size, 1000);
  });

  test("a fixed Subject is read once; UTF-8 class names are encoded", async () => {
    const source = await loadTemplate(fixture("Subject: fixed\n\nclass={{class}}\n"));
    const content = source.content(0, { seq: 0, className: "vertraulich-\u00fc", epochMs: 0 });
    assert.equal(content.subject, "fixed");
    assert.equal(
      content.bytes.toString("utf8"),
      "Subject: fixed\r\n\r\nclass=vertraulich-\u00fc\r\n",
    );
  });

  test("an unknown placeholder is refused, naming it, its line and the known ones", async () => {
    const path = fixture("Subject: x\n\nline 3\n{{seq}} {{sequence}}\n");
    await assert.rejects(loadTemplate(path), (error: unknown) => {
      assert.ok(error instanceof SourceError);
      assert.equal(error.line, 4);
      assert.match(error.message, /t\d+\.eml:4: unknown placeholder \{\{sequence\}\}; use one of/);
      assert.match(error.message, /\{\{seq\}\}, \{\{class\}\}, \{\{timestamp\}\}, \{\{epochMs\}\}/);
      return true;
    });
  });

  test("a class name with a line break cannot fill {{class}}", async () => {
    const source = await loadTemplate(fixture("Subject: {{class}}\n\nx\n"));
    assert.throws(
      () => source.content(0, { seq: 0, className: "a\r\nBcc: x", epochMs: 0 }),
      /line break or NUL/,
    );
  });
});
