/**
 * The sink's listen backlog (issue 16 item 1): Node's default of 511 left 2,098 of 5,000
 * sessions waiting for a banner; `--backlog` (default 4096, as smtp-sink) reaches listen(), and
 * the kernel's listen overflows are reported, machine-wide.
 */

import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { SINK_OPTIONS } from "../src/config/sink-option-table.js";
import { DEFAULT_BACKLOG, somaxconn, startSink } from "../src/sink/index.js";
import { listenOverflows } from "../src/sink/kernel.js";
import { BIN } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

/** The backlog the kernel holds for a listening TCP port: `ss`'s Send-Q of the LISTEN row. */
function listenBacklog(port: number): number {
  const out = execFileSync("ss", ["-ltnH", `sport = :${port}`], { encoding: "utf8" });
  const fields = out.trim().split(/\s+/);
  assert.equal(fields[0], "LISTEN", out);
  return Number(fields[2]);
}

/** Starts `mailvolley sink ARGS` on a free port; resolves with the port once it listens. */
function startSinkCli(
  args: string[],
): Promise<{ child: ChildProcess; port: number; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, "sink", "--listen", "127.0.0.1:0", ...args]);
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`sink did not start: ${stderr}`));
    }, 20_000);
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), stderr: () => stderr });
      }
    });
    child.on("close", () => reject(new Error(`sink exited: ${stderr}`)));
  });
}

async function stop(child: ChildProcess): Promise<string> {
  let stdout = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  const closed = new Promise((resolve) => child.once("close", resolve));
  child.kill("SIGTERM");
  await closed;
  return stdout;
}

describe("sink listen backlog", () => {
  test("the help's default is the sink's", () => {
    assert.equal(SINK_OPTIONS.backlog.default, DEFAULT_BACKLOG);
  });

  test("--backlog N reaches listen(): the kernel holds N", async () => {
    const file = join(tempDir("mailvolley-backlog-"), "sink.json");
    const { child, port } = await startSinkCli(["--backlog", "7", "--json", file]);
    try {
      assert.equal(listenBacklog(port), 7);
    } finally {
      await stop(child);
      const json = JSON.parse(readFileSync(file, "utf8"));
      assert.equal(json.listenOverflows.scope, "machine");
      assert.ok(json.listenOverflows.count === null || json.listenOverflows.count >= 0);
    }
  });

  test("without --backlog the sink asks for 4096 (the kernel caps it at somaxconn)", async () => {
    const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: false }));
    try {
      const cap = somaxconn() ?? DEFAULT_BACKLOG;
      assert.equal(listenBacklog(sink.addresses[0].port), Math.min(DEFAULT_BACKLOG, cap));
    } finally {
      await sink.close();
    }
  });

  test("a backlog over somaxconn is said to be capped", async (t) => {
    const cap = somaxconn();
    if (cap === null) return t.skip("no /proc/sys/net/core/somaxconn");
    const { child, stderr } = await startSinkCli(["--backlog", String(cap + 1)]);
    const capped = new RegExp(`--backlog ${cap + 1} is capped at ${cap} by net.core.somaxconn`);
    // The note follows the "listening" line; wait for it (bounded), then stop the sink.
    for (let i = 0; i < 100 && !capped.test(stderr()); i++) await sleep(50);
    await stop(child);
    assert.match(stderr(), capped);
  });

  test("bad --backlog: one line naming it, exit 2", async () => {
    for (const bad of ["0", "-1", "many"]) {
      const child = spawn(process.execPath, [
        BIN,
        "sink",
        "--listen",
        "127.0.0.1:0",
        `--backlog=${bad}`,
      ]);
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      const code = await new Promise((resolve) => child.on("close", resolve));
      assert.equal(code, 2, stderr);
      assert.match(stderr, /^mailvolley: --backlog/);
      assert.equal(stderr.trimEnd().split("\n").length, 1, stderr);
    }
  });

  test("ListenOverflows is read from the TcpExt rows of /proc/net/netstat", () => {
    const file = join(tempDir("mailvolley-netstat-"), "netstat");
    writeFileSync(
      file,
      "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 42 43\n" +
        "IpExt: InNoRoutes\nIpExt: 0\n",
    );
    assert.equal(listenOverflows(file), 42);
    assert.equal(listenOverflows(join(file, "missing")), null);
  });
});
