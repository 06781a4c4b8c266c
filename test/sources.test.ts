/**
 * Message and address sources from real files in a temp dir: .eml files and directories,
 * address lists, and the framing every source must keep (RFC 5321 §4.1.1.4, §4.5.2).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  loadAddressList,
  loadEml,
  loadEmlDir,
  type MessageSource,
  SourceError,
} from "../src/messages/index.js";

const root = mkdtempSync(join(tmpdir(), "mailvolley-sources-"));
after(() => rmSync(root, { recursive: true, force: true }));
let fixtures = 0;
/** Writes `content` to a fresh file (or `name` in `dir`) and returns its path. */
function fixture(content: string | Buffer, name = `f${++fixtures}.eml`, dir = root): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const vars = (seq: number) => ({ seq, className: "standard", epochMs: 1_764_683_707_123.5 });
const text = (source: MessageSource, seq = 0) =>
  source.content(seq, vars(seq)).bytes.toString("latin1");

/** What a client writes after the 354: the content must end exactly at the final dot. */
function assertFramed(bytes: Buffer, label: string): void {
  const wire = `\r\n${bytes.toString("latin1")}.\r\n`;
  assert.equal(wire.indexOf("\r\n.\r\n"), wire.length - 5, `${label}: end of data inside`);
  assert.ok(!/\r(?!\n)|(?<!\r)\n/.test(wire), `${label}: bare CR or LF`);
  assert.equal(bytes.indexOf(0), -1, `${label}: NUL`);
}

async function assertRejects(load: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(load, (error: unknown) => {
    assert.ok(error instanceof SourceError, String(error));
    assert.match(error.message, pattern);
    assert.ok(!error.message.includes("\n"), "one line");
    return true;
  });
}

describe("loadEml", () => {
  test("bare LF becomes CRLF, leading dots are doubled, the Subject is read", async () => {
    const path = fixture("Subject: bare LF\nFrom: a@b.test\n\n.hidden\nmiddle.dot\n.\nlast");
    const source = await loadEml(path);
    const want =
      "Subject: bare LF\r\nFrom: a@b.test\r\n\r\n..hidden\r\nmiddle.dot\r\n..\r\nlast\r\n";
    assert.equal(text(source), want);
    assert.equal(source.content(0, vars(0)).subject, "bare LF");
    assert.deepEqual(
      [source.kind, source.count, source.totalBytes, source.order, source.longLines],
      ["eml", 1, want.length, "sequential", 0],
    );
    assert.equal(source.content(7, vars(7)).bytes, source.content(0, vars(0)).bytes, "shared");
    assertFramed(source.content(0, vars(0)).bytes, "eml");
  });

  test("bare CR, CRLF and a final line without its end; a UTF-8 BOM is dropped", async () => {
    const source = await loadEml(fixture("\ufeffSubject: x\r\nA: 1\rB: 2\r\n\r\nbody"));
    assert.equal(text(source), "Subject: x\r\nA: 1\r\nB: 2\r\n\r\nbody\r\n");
  });

  test("a folded Subject is unfolded; a Subject in the body is not the Subject", async () => {
    const folded = await loadEml(fixture("SUBJECT: one\n two\nX: y\n\nSubject: not me\n"));
    assert.equal(folded.content(0, vars(0)).subject, "one two");
    const none = await loadEml(fixture("From: a@b.test\n\nSubject: body text\n"));
    assert.equal(none.content(0, vars(0)).subject, undefined);
  });

  test("lines over 998 octets are kept and counted; a stuffed dot does not count", async () => {
    const body = ["a".repeat(998), "b".repeat(999), `.${"c".repeat(997)}`, `.${"d".repeat(998)}`];
    const source = await loadEml(fixture(`Subject: long\n\n${body.join("\n")}\n`));
    assert.equal(source.longLines, 2);
    assert.ok(text(source).includes(`\r\n..${"c".repeat(997)}\r\n`));
  });

  test("a NUL octet is refused, naming the line", async () => {
    await assertRejects(loadEml(fixture("Subject: x\n\nok\nbad\0\n")), /f\d+\.eml:4: .*NUL/);
  });

  test("empty, missing and directory paths are refused with the fix", async () => {
    await assertRejects(loadEml(fixture("")), /is empty/);
    await assertRejects(loadEml(join(root, "missing.eml")), /missing\.eml: no such file/);
    await assertRejects(loadEml(root), /is a directory/);
  });
});

describe("loadEmlDir", () => {
  const dir = join(root, "three");
  mkdirSync(dir);
  fixture("Subject: b\n\n.b\n", "b.eml", dir);
  fixture("Subject: a\n\na\n", "a.eml", dir);
  fixture("Subject: c\n\nc", "C.EML", dir);
  fixture("not a message", "notes.txt", dir);
  const subjects = (source: MessageSource, n: number) =>
    Array.from({ length: n }, (_, seq) => source.content(seq, vars(seq)).subject);

  test("every *.eml by name in code-point order, then again from the start", async () => {
    const source = await loadEmlDir(dir);
    assert.equal(source.kind, "eml-dir");
    assert.equal(source.count, 3);
    assert.equal(source.seed, undefined);
    assert.deepEqual(subjects(source, 7), ["c", "a", "b", "c", "a", "b", "c"]);
    const sent = [
      "Subject: c\r\n\r\nc\r\n",
      "Subject: a\r\n\r\na\r\n",
      "Subject: b\r\n\r\n..b\r\n",
    ];
    assert.equal(source.totalBytes, sent.join("").length);
    assert.deepEqual(
      [0, 1, 2].map((seq) => text(source, seq)),
      sent,
    );
    for (let seq = 0; seq < 3; seq++) assertFramed(source.content(seq, vars(seq)).bytes, "dir");
  });

  test("random: seeded and repeatable, every message once per pass, passes differ", async () => {
    const a = await loadEmlDir(dir, "random", 42);
    const b = await loadEmlDir(dir, "random", 42);
    assert.equal(a.order, "random");
    assert.equal(a.seed, 42);
    const picks = subjects(a, 300);
    assert.deepEqual(subjects(b, 300), picks);
    const passes = new Set<string>();
    for (let p = 0; p < 100; p++) {
      const pass = picks.slice(p * 3, p * 3 + 3);
      assert.deepEqual([...pass].sort(), ["a", "b", "c"], `pass ${p}`);
      passes.add(pass.join(""));
    }
    assert.equal(passes.size, 6, "all orders of 3 occur over 100 passes");
    // Out-of-order calls (sessions, workers) give the same message for the same seq.
    const c = await loadEmlDir(dir, "random", 42);
    for (const seq of [299, 0, 150, 3, 298, 1]) {
      assert.equal(c.content(seq, vars(seq)).subject, picks[seq], `seq ${seq}`);
    }
  });

  test("without a seed, one is drawn and reported", async () => {
    const source = await loadEmlDir(dir, "random");
    assert.equal(typeof source.seed, "number");
    const again = await loadEmlDir(dir, "random", source.seed);
    assert.deepEqual(subjects(again, 30), subjects(source, 30));
  });

  test("a directory without .eml files, or a missing one, is refused", async () => {
    const empty = join(root, "empty");
    mkdirSync(empty);
    fixture("x", "readme.txt", empty);
    await assertRejects(loadEmlDir(empty), /empty: holds no \*\.eml files/);
    await assertRejects(loadEmlDir(join(root, "nope")), /no such directory/);
  });
});

describe("loadAddressList", () => {
  test("one address per line; comments, blank lines and surrounding blanks ignored", async () => {
    const path = fixture(
      "# recipients\r\nuser1@example.com\r\n\r\n   user2@example.com  \r\n  # indented\r\n" +
        "a#b@example.com\r\npostmaster\r\nj\u00f6rg@b\u00fccher.example\r\n",
      "rcpt.txt",
    );
    assert.deepEqual(await loadAddressList(path), [
      "user1@example.com",
      "user2@example.com",
      "a#b@example.com",
      "postmaster",
      "j\u00f6rg@b\u00fccher.example",
    ]);
  });

  test("a bad line is refused naming file:line and what to write", async () => {
    const spaced = fixture("ok@example.com\n# fine\nbad one@example.com\n", "spaced.txt");
    await assertRejects(
      loadAddressList(spaced),
      /spaced\.txt:3: "bad one@example\.com" has a space/,
    );
    const angled = fixture("<x@example.com>\n", "angled.txt");
    await assertRejects(loadAddressList(angled), /angled\.txt:1: .*angle brackets/);
    const long = fixture(`${"l".repeat(250)}@example.com\n`, "long.txt");
    await assertRejects(loadAddressList(long), /long\.txt:1: .*longer than SMTP allows/);
    const control = fixture("a\u0001b@example.com\n", "control.txt");
    await assertRejects(loadAddressList(control), /control\.txt:1: .*control character/);
  });

  test("a list without any address is refused", async () => {
    await assertRejects(
      loadAddressList(fixture("# only\n\n", "none.txt")),
      /none\.txt: holds no address/,
    );
  });
});
