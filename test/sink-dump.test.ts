/**
 * `sink --dump` when the sink runs as a user others can trick: files are created new (never
 * through an existing file or symlink), with names that cannot be guessed ahead, mode 0600, and a
 * directory other users can write to is refused unless it is sticky and ours.
 */

import assert from "node:assert/strict";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { MessageDumper, writeNew } from "../src/sink/dump.js";
import { startSink } from "../src/sink/index.js";
import { UsageError } from "../src/usage/usage-error.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const MESSAGE = [Buffer.from("Subject: x\r\n\r\nbody\r\n")];

test("writeNew never writes through an existing symlink or file", async () => {
  const dir = tempDir("mailvolley-dump-");
  const victim = join(dir, "victim");
  writeFileSync(victim, "precious\n");
  symlinkSync(victim, join(dir, "planted.eml"));
  await assert.rejects(writeNew(join(dir, "planted.eml"), Buffer.from("overwritten")), {
    code: "EEXIST",
  });
  await assert.rejects(writeNew(victim, Buffer.from("overwritten")), { code: "EEXIST" });
  assert.equal(readFileSync(victim, "utf8"), "precious\n");
});

test("dumped files are 0600 and their names differ between two sinks", async () => {
  const dir = tempDir("mailvolley-dump-");
  const first = new MessageDumper(dir);
  const second = new MessageDumper(dir);
  first.write(MESSAGE, false);
  second.write(MESSAGE, false);
  await Promise.all([first.settle(), second.settle()]);
  const files = readdirSync(dir);
  assert.equal(files.length, 2, "the same sequence number in two sinks gives two files");
  for (const file of files) assert.equal(statSync(join(dir, file)).mode & 0o777, 0o600);
  assert.equal(first.errors + second.errors, 0);
});

test("a dump directory others can write to is refused unless sticky and ours", async () => {
  const open = join(tempDir("mailvolley-dump-"), "open");
  mkdirSync(open);
  chmodSync(open, 0o777);
  await assert.rejects(
    startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], dump: open })),
    (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /^--dump .*: writable by other users \(mode 777\); .*chmod go-w/);
      return true;
    },
  );

  chmodSync(open, 0o1777); // sticky and ours, as /tmp is for root
  const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], dump: open }));
  await sink.close();

  const fresh = join(tempDir("mailvolley-dump-"), "new", "dir");
  new MessageDumper(fresh);
  assert.equal(statSync(fresh).mode & 0o777, 0o700, "a directory the sink makes is 0700");
});

test("sink --dump on a directory others can write to: one line, exit 2", async () => {
  const open = join(tempDir("mailvolley-dump-"), "open");
  mkdirSync(open);
  chmodSync(open, 0o777);
  const out = await mailvolley(["sink", "--listen", "127.0.0.1:0", "--dump", open]);
  assert.equal(out.code, 2);
  assert.equal(out.stderr.trim().split("\n").length, 1);
  assert.match(out.stderr, /^mailvolley: --dump .*writable by other users/);
});
