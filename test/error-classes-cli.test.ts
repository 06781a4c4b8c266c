/**
 * Every error class the summary names matches the rows below it: a server that does not offer
 * what the run requires (XVERP here) is `unsupported` in the terminal, the JSON and the HTML,
 * never "rejected (5xx)", since no 5xx came.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { mailvolley } from "./helpers/cli.js";

test("XVERP not offered: the unsupported class in every summary, and no rejected line", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mv-classes-"));
  try {
    const json = join(dir, "r.json");
    const html = join(dir, "r.html");
    const args = ["run", "--xverp", "--no-sink-xverp", "-m", "4", "-s", "1"];
    const out = await mailvolley([...args, "--json", json, "--html", html]);
    assert.equal(out.code, 1, out.stderr);
    const result = JSON.parse(readFileSync(json, "utf8"));
    // One per session: each was refused after EHLO, before any MAIL.
    assert.ok(result.errorClasses.unsupported > 0);
    assert.equal(result.errorClasses.unsupported, result.connections.established);
    assert.equal(result.errorClasses.rejected, 0);
    const rows = result.errors.filter((e: { reply: string }) => e.reply === "unsupported");
    assert.deepEqual(
      rows.map((e: { class: string }) => e.class),
      ["unsupported"],
    );
    // Each class with occurrences sums exactly the rows of that class.
    for (const [cls, count] of Object.entries(result.errorClasses)) {
      const sum = result.errors
        .filter((e: { class: string }) => e.class === cls)
        .reduce((n: number, e: { count: number }) => n + e.count, 0);
      assert.equal(sum, count, cls);
    }
    const classLine = out.stdout.split("\n").find((l) => l.startsWith("Error classes")) ?? "";
    assert.match(
      classLine,
      new RegExp(`unsupported by the server ${result.errorClasses.unsupported}`),
    );
    assert.doesNotMatch(out.stdout, /rejected \(5xx\)/);
    const page = readFileSync(html, "utf8");
    const cell = (cls: string) =>
      new RegExp(`<tr><td>[^<]*</td><td data-field="errorClasses\\.${cls}"`);
    assert.match(page, cell("unsupported"));
    assert.match(page, /<tr><td>unsupported by the server<\/td>/);
    assert.doesNotMatch(page, cell("rejected"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
