/**
 * File descriptors (issue 16 item 3): a run whose sessions cannot fit under `ulimit -n` is
 * refused before any traffic; an EMFILE in the middle of a run is named as this machine's limit
 * (reply `local-limit`) and the exit code is 1.
 */
import assert from "node:assert/strict";
import { type StdioOptions, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { socketErrorText, transportFailure } from "../src/client/transport.js";
import { checkOpenFiles, openFilesLimit } from "../src/config/open-files.js";
import type { Result } from "../src/result/result.js";
import { BIN } from "./helpers/cli.js";
import { startScriptedServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

/** Runs mailvolley under `ulimit -n LIMIT`, with `inherited` extra open pipes (fds 3, 4, …). */
function underLimit(
  limit: number,
  args: string[],
  inherited = 0,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `ulimit -n ${limit} && exec "$0" "$@"`;
  const stdio: StdioOptions = ["ignore", "pipe", "pipe", ...Array(inherited).fill("pipe")];
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script, process.execPath, BIN, ...args], { stdio });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (s: string) => {
      stdout += s;
    });
    child.stderr?.setEncoding("utf8").on("data", (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("open files", () => {
  test("the soft limit is read from /proc/self/limits; unlimited or unreadable checks nothing", () => {
    const dir = tempDir("mailvolley-limits-");
    const file = join(dir, "limits");
    writeFileSync(
      file,
      "Limit                     Soft Limit           Hard Limit           Units     \n" +
        "Max open files            1024                 524288               files     \n",
    );
    assert.equal(openFilesLimit(file), 1024);
    writeFileSync(
      file,
      "Max open files            unlimited            unlimited            files\n",
    );
    assert.equal(openFilesLimit(file), null);
    assert.equal(openFilesLimit(join(dir, "missing")), null);
    assert.throws(
      () => checkOpenFiles(5000, false, 1024),
      /--sessions: 5000 sessions .*ulimit -n is 1024/,
    );
    assert.throws(() => checkOpenFiles(500, true, 1024), /built-in sink/);
    assert.doesNotThrow(() => checkOpenFiles(500, false, 1024));
    assert.doesNotThrow(() => checkOpenFiles(1e6, true, null));
  });

  test("EMFILE and EADDRNOTAVAIL are this machine's limits: reply local-limit, text names the fix", () => {
    assert.equal(transportFailure("EMFILE"), "local-limit");
    assert.equal(transportFailure("EADDRNOTAVAIL"), "local-limit");
    assert.equal(transportFailure("ECONNRESET"), "reset");
    const err = Object.assign(
      new Error("connect EMFILE 127.0.0.1:25 - Local (undefined:undefined)"),
      {
        code: "EMFILE",
      },
    );
    assert.match(socketErrorText(err), /^local limit.*EMFILE.*ulimit -n/);
  });

  test("sessions beyond ulimit -n: one line naming ulimit -n, exit 2, no traffic", async () => {
    const out = await underLimit(150, ["run", "-s", "100", "-m", "10", "--workers", "1"]);
    assert.equal(out.code, 2, out.stderr);
    assert.equal(out.stderr.trimEnd().split("\n").length, 1, out.stderr);
    assert.match(
      out.stderr,
      /^mailvolley: --sessions: 100 sessions need about 232 open files.*ulimit -n is 150/,
    );
    assert.equal(out.stdout, "");
  });

  test("an EMFILE in the middle of a run is a local failure, and the exit code is 1", async () => {
    // The check passes (300 sessions + margin ≤ 400), but 150 descriptors the child inherited
    // are already open, so some of the 300 connects fail with EMFILE.
    const server = await startScriptedServer({});
    try {
      const args = ["run", `127.0.0.1:${server.port}`, "-s", "300", "-m", "600"];
      const out = await underLimit(400, [...args, "--workers", "1", "--json", "-", "-q"], 150);
      assert.equal(out.code, 1, out.stderr);
      const result = JSON.parse(out.stdout) as Result;
      const local = result.errors.filter((e) => e.reply === "local-limit");
      assert.ok(local.length > 0, JSON.stringify(result.errors));
      assert.match(local[0].text, /EMFILE.*ulimit -n/);
      const m = result.messages;
      assert.equal(m.attempted, m.accepted + m.rejected + m.failed + (m.unconfirmed ?? 0));
    } finally {
      await server.close();
    }
  });
});
