/**
 * `{{…}}` in `-S` and in a plan's subject and headers: expanded per message on the wire, as the
 * built-in sink's --dump shows, with every message of one size.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { runClient } from "./helpers/run-client.js";

const BIN = fileURLToPath(new URL("../../bin/mailvolley.js", import.meta.url));

test("-S with placeholders: each message carries its own sequence number, time and class", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mv-subject-"));
  const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], dump: dir }));
  let closed = false;
  try {
    const { port } = sink.addresses[0];
    const before = Date.now();
    const result = await runClient(`127.0.0.1:${port}`, {
      messages: 5,
      sessions: 1,
      subject: "load {{seq}} sent {{epochMs}} ({{class}})",
    });
    assert.equal(result.messages.accepted, 5);
    // The dump is written after the reply: closing the sink waits for every write.
    await sink.close();
    closed = true;
    const dumped = readdirSync(dir).map((f) => readFileSync(join(dir, f), "latin1"));
    assert.equal(dumped.length, 5);
    const subjects = dumped.map((m) => m.match(/^Subject: (.*)\r$/m)?.[1] ?? "").sort();
    for (const [i, subject] of subjects.entries()) {
      const m = subject.match(/^load (\d{12}) sent (\d{13}) \(default\)$/);
      assert.ok(m, subject);
      assert.equal(Number(m[1]), i);
      assert.ok(Number(m[2]) >= before - 1 && Number(m[2]) <= Date.now() + 1, subject);
    }
    assert.equal(new Set(dumped.map((m) => m.length)).size, 1, "one size for every message");
  } finally {
    if (!closed) await sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a bad placeholder in -S or in a plan's headers is one line naming it, exit 2", () => {
  const bad = spawnSync(process.execPath, [BIN, "run", "-m", "1", "-S", "x {{sequence}}"], {
    encoding: "utf8",
  });
  assert.equal(bad.status, 2);
  assert.equal(
    bad.stderr.trim(),
    "mailvolley: --subject: unknown placeholder {{sequence}}; use one of {{seq}}, {{timestamp}}, {{epochMs}}, {{token}}, {{class}}",
  );
  const dir = mkdtempSync(join(tmpdir(), "mv-plan-"));
  try {
    const plan = join(dir, "plan.yaml");
    writeFileSync(
      plan,
      'classes:\n  - name: bulk\n    share: 1\n    headers:\n      X-Batch: "{{batch}}"\n',
    );
    const planned = spawnSync(process.execPath, [BIN, "run", "-m", "1", "--plan", plan], {
      encoding: "utf8",
    });
    assert.equal(planned.status, 2, planned.stderr);
    assert.match(
      planned.stderr.trim(),
      /^mailvolley: class bulk: subject or headers: unknown placeholder \{\{batch\}\}/,
    );
    assert.equal(planned.stderr.trim().split("\n").length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
