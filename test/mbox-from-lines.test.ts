/**
 * An unescaped "From " line in an mbox body (issue 16 item 13): mboxcl's Content-Length is
 * honoured, so the line stays in its message; without it the split is refused with its line,
 * instead of sending a headerless fragment as an extra message.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadMbox, SourceError } from "../src/messages/index.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-mboxcl-");
let count = 0;
function fixture(content: string): string {
  const path = join(dir, `m${++count}.mbox`);
  writeFileSync(path, content);
  return path;
}

const SEPARATOR = "From sender@example.com Wed Dec  2 13:55:07 2026\n";
const BODY = "Hello,\n\nFrom the start of a line, unescaped.\nBye\n";

describe("mbox: a From line inside a body", () => {
  test("mboxcl: Content-Length covers the line, so the message stays whole", async () => {
    const length = Buffer.byteLength(BODY);
    const path = fixture(
      `${SEPARATOR}Subject: one\nContent-Length: ${length}\n\n${BODY}\n` +
        `${SEPARATOR}Subject: two\nContent-Length: 5\n\nbody\n`,
    );
    const source = await loadMbox(path);
    assert.equal(source.count, 2);
    const first = source.content(0, { seq: 0, className: "c", epochMs: 0 }).bytes.toString();
    assert.match(first, /\r\nFrom the start of a line, unescaped\.\r\nBye\r\n$/);
  });

  test("without Content-Length the split is refused, naming the line", async () => {
    const path = fixture(`${SEPARATOR}Subject: one\n\n${BODY}\n${SEPARATOR}Subject: two\n\nbody\n`);
    await assert.rejects(loadMbox(path), (error: unknown) => {
      assert.ok(error instanceof SourceError);
      assert.match(error.message, /:6: this "From " line splits a message.*Content-Length/);
      return true;
    });
  });

  test("a Content-Length that does not land on a separator is not trusted", async () => {
    const path = fixture(`${SEPARATOR}Subject: one\nContent-Length: 3\n\n${BODY}`);
    await assert.rejects(loadMbox(path), /splits a message/);
  });

  test("the command line: one line, exit 2", async () => {
    const path = fixture(`${SEPARATOR}Subject: one\n\n${BODY}`);
    const out = await mailvolley(["run", "--mbox", path, "-m", "1"]);
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /^mailvolley: .*m\d+\.mbox:6: this "From " line splits a message/);
    assert.equal(out.stderr.trimEnd().split("\n").length, 1);
  });
});
