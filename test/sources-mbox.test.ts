/**
 * mbox sources (RFC 4155) from real files: separators, mboxrd and mboxo unescaping, the blank
 * line before each separator, a last message without its line end, and a 1,000-message archive.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { loadMbox, type MessageSource, SourceError } from "../src/messages/index.js";

const root = mkdtempSync(join(tmpdir(), "mailvolley-mbox-"));
after(() => rmSync(root, { recursive: true, force: true }));
let fixtures = 0;
function fixture(content: string | Buffer): string {
  const path = join(root, `m${++fixtures}.mbox`);
  writeFileSync(path, content);
  return path;
}
const vars = (seq: number) => ({ seq, className: "standard", epochMs: 1_764_683_707_123 });
const text = (source: MessageSource, seq: number) =>
  source.content(seq, vars(seq)).bytes.toString("latin1");

const SEPARATOR = "From sender@example.com Wed Dec  2 13:55:07 2026\n";

/** One message as an mbox writer stores it: escaped body, blank line before the next "From ". */
const ESCAPED = [
  SEPARATOR,
  "Subject: escapes\n",
  "\n",
  "From the start of a line\n".replace(/^/, ">"),
  ">>From a quoted line\n",
  ">>>From deeper\n",
  "> From not an escape (space first)\n",
  ".a line starting with a dot\n",
  ">Fromage is not From\n",
  "\n",
  SEPARATOR,
  "Subject: second\n\nbody\n",
].join("");

describe("loadMbox", () => {
  test("mboxrd: one > removed from each >+From line, dots stuffed, separators dropped", async () => {
    const source = await loadMbox(fixture(ESCAPED), "sequential", undefined, "mboxrd");
    assert.equal(source.kind, "mbox");
    assert.equal(source.format, "mboxrd");
    assert.equal(source.count, 2);
    assert.equal(
      text(source, 0),
      "Subject: escapes\r\n\r\nFrom the start of a line\r\n>From a quoted line\r\n" +
        ">>From deeper\r\n> From not an escape (space first)\r\n..a line starting with a dot\r\n" +
        ">Fromage is not From\r\n",
    );
    assert.equal(text(source, 1), "Subject: second\r\n\r\nbody\r\n");
    assert.equal(source.totalBytes, text(source, 0).length + text(source, 1).length);
  });

  test("mboxo: only >From loses its >; deeper quoting stays", async () => {
    const source = await loadMbox(fixture(ESCAPED), "sequential", undefined, "mboxo");
    assert.equal(source.format, "mboxo");
    assert.equal(
      text(source, 0),
      "Subject: escapes\r\n\r\nFrom the start of a line\r\n>>From a quoted line\r\n" +
        ">>>From deeper\r\n> From not an escape (space first)\r\n..a line starting with a dot\r\n" +
        ">Fromage is not From\r\n",
    );
  });

  test("auto: mboxrd when a line has >>From, else mboxo (the two then read alike)", async () => {
    assert.equal((await loadMbox(fixture(ESCAPED))).format, "mboxrd");
    const plain = await loadMbox(fixture(`${SEPARATOR}Subject: p\n\n>From here\n`));
    assert.equal(plain.format, "mboxo");
    assert.equal(text(plain, 0), "Subject: p\r\n\r\nFrom here\r\n");
  });

  test("a last message without a line end; CRLF files; blank lines inside kept", async () => {
    const crlf = await loadMbox(
      fixture(`${SEPARATOR}Subject: a\r\n\r\none\r\n\r\n\r\n${SEPARATOR}Subject: b\r\n\r\ntwo`),
    );
    assert.deepEqual(
      [text(crlf, 0), text(crlf, 1)],
      ["Subject: a\r\n\r\none\r\n\r\n", "Subject: b\r\n\r\ntwo\r\n"],
    );
    // A last line shorter than "From " must not be read past the end of the file.
    for (const last of ["Fr", ">Fr", ">", "F"]) {
      const short = await loadMbox(fixture(`${SEPARATOR}Subject: s\n\n${last}`));
      assert.equal(text(short, 0), `Subject: s\r\n\r\n${last}\r\n`);
    }
  });

  test("N messages give count N, their subjects in order, every one framed safely", async () => {
    const n = 50;
    let mbox = "";
    for (let i = 0; i < n; i++) {
      mbox += `${SEPARATOR}Subject: LOADTEST ${i}\nX: y\n\nFrom the body\n.\n..\n\n`;
    }
    const source = await loadMbox(fixture(mbox.replace(/^From the body/gm, ">From the body")));
    assert.equal(source.count, n);
    for (let seq = 0; seq < 2 * n; seq++) {
      const content = source.content(seq, vars(seq));
      assert.equal(content.subject, `LOADTEST ${seq % n}`);
      const wire = `\r\n${content.bytes.toString("latin1")}.\r\n`;
      assert.equal(wire.indexOf("\r\n.\r\n"), wire.length - 5, `message ${seq}`);
      assert.ok(wire.includes("\r\nFrom the body\r\n..\r\n...\r\n"), `message ${seq}`);
    }
  });

  test("random order: every message once per pass, repeatable with the seed", async () => {
    let mbox = "";
    for (let i = 0; i < 10; i++) mbox += `${SEPARATOR}Subject: ${i}\n\nx\n\n`;
    const path = fixture(mbox);
    const a = await loadMbox(path, "random", 7);
    const b = await loadMbox(path, "random", 7);
    const picks = (s: MessageSource) =>
      Array.from({ length: 40 }, (_, seq) => s.content(seq, vars(seq)).subject);
    assert.deepEqual(picks(a), picks(b));
    for (let p = 0; p < 4; p++) {
      const pass = picks(a).slice(p * 10, p * 10 + 10);
      assert.equal(new Set(pass).size, 10, `pass ${p}`);
    }
    assert.notDeepEqual(picks(a).slice(0, 10), picks(a).slice(10, 20));
  });

  test("1,000 messages of 10 KiB all load, each one whole", async () => {
    const line = `${"x".repeat(76)}\n`;
    const body = line.repeat(Math.ceil(10_240 / line.length));
    let mbox = "";
    for (let i = 0; i < 1000; i++) mbox += `${SEPARATOR}Subject: bulk ${i}\n\n${body}\n`;
    const path = fixture(mbox);
    const source = await loadMbox(path);
    assert.equal(source.count, 1000);
    assert.equal(source.content(999, vars(999)).subject, "bulk 999");
    const expected = (i: number) => `Subject: bulk ${i}\r\n\r\n${body.replaceAll("\n", "\r\n")}`;
    for (const seq of [0, 1, 500, 998, 999]) assert.equal(text(source, seq), expected(seq));
    let total = 0;
    for (let i = 0; i < 1000; i++) total += expected(i).length;
    assert.equal(source.totalBytes, total);
  });

  test("empty files, files that are not mbox, empty messages and NUL are refused", async () => {
    const refused = async (content: string, pattern: RegExp) =>
      assert.rejects(loadMbox(fixture(content)), (error: unknown) => {
        assert.ok(error instanceof SourceError);
        assert.match(error.message, pattern);
        return true;
      });
    await refused("", /m\d+\.mbox: is empty/);
    await refused("\n\n", /is empty/);
    await refused("Subject: x\n\nbody\n", /m\d+\.mbox:1: does not start with a "From " line/);
    await refused(`${SEPARATOR}${SEPARATOR}Subject: x\n\ny\n`, /m\d+\.mbox:1: a message is empty/);
    await refused(`${SEPARATOR}Subject: x\n\ny\n\n${SEPARATOR}Subject: z\n\n\0\n`, /mbox:9: .*NUL/);
  });
});
