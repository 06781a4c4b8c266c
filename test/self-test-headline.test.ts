/**
 * A self-test states the generator's ceiling as its result: the headline names messages/s,
 * the mode and the sink's count, in green, with no add-workers advice, in the terminal and the
 * HTML; the sink's per-class counts appear in both.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-ceiling-");

test("a self-test's headline is the generator's ceiling, shown as the result", async () => {
  const html = join(dir, "self.html");
  // Enough messages to keep the generator, not the in-process sink, the busy party.
  const out = await mailvolley(["run", "-m", "20000", "-s", "10", "--html", html], 120_000);
  assert.equal(out.code, 0, out.stderr);
  const sinkRow = out.stdout.split("\n").find((l) => l.startsWith("Sink count")) ?? "";
  assert.match(sinkRow, /per class: default 20,000 accepted, 0 rejected/);
  const page = readFileSync(html, "utf8");
  assert.match(page, /the sink counted per class: default 20,000 accepted, 0 rejected/);
  const first = out.stdout.split("\n")[1];
  if (!first.startsWith("Generator ceiling")) {
    // On a loaded machine other processes may hold the cores: then the verdict is another
    // party's, and the ceiling headline must not claim the result.
    assert.doesNotMatch(page, /Generator ceiling/);
    return;
  }
  assert.match(
    first,
    /^Generator ceiling on this machine: [\d,.]+ messages\/s \(reuse\), set by the main thread; the sink counted 20,000 accepted, as the client did\.$/,
  );
  assert.doesNotMatch(out.stdout, /add --workers/);
  assert.match(page, /<div class="verdict ceiling" data-limited-by="generator">/);
  assert.match(page, /Generator ceiling on this machine/);
});
