/**
 * What a person sees on a terminal: the sink's live counter and the run's live progress line,
 * under a real pseudo-terminal (util-linux `script`), not just piped output.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import net from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { BIN } from "./helpers/cli.js";
import { freePort, requirePeer } from "./helpers/peer.js";

const SCRIPT = "/usr/bin/script";

function haveScript(): boolean {
  try {
    accessSync(SCRIPT, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs `node BIN args` with a pseudo-terminal as its stdout and stderr; resolves its output. */
function onTty(args: string[], timeoutMs = 30_000): { output: Promise<string>; kill: () => void } {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(" ");
  const child = spawn(SCRIPT, ["-qfec", command, "/dev/null"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => {
    output += s;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return {
    output: new Promise((resolve) =>
      child.on("close", () => {
        clearTimeout(timer);
        resolve(output);
      }),
    ),
    kill: () => child.kill("SIGTERM"),
  };
}

test("mailvolley sink on a terminal shows a live counter, rewritten in place", async (t) => {
  if (!requirePeer(t, "util-linux script", haveScript(), "apt-get install bsdutils")) return;
  const port = await freePort();
  const sink = onTty(["sink", "--listen", `127.0.0.1:${port}`, "--exit-after-messages", "600"]);
  // Wait until the sink listens, then send from another process.
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) break;
    await sleep(50);
  }
  const run = spawn(
    process.execPath,
    [BIN, "run", `127.0.0.1:${port}`, "-m", "600", "--rate", "300", "-s", "2", "-q"],
    {
      stdio: "ignore",
    },
  );
  await new Promise((resolve) => run.on("close", resolve));
  const output = await sink.output;
  assert.match(
    output,
    /\rsessions \d+ \(\d+ open\)\s+accepted \d+/,
    JSON.stringify(output.slice(0, 300)),
  );
  assert.match(output, /messages accepted 600/);
});

test("mailvolley run on a terminal shows one live progress line", async (t) => {
  if (!requirePeer(t, "util-linux script", haveScript(), "apt-get install bsdutils")) return;
  const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: false }));
  try {
    const { port } = sink.addresses[0];
    const run = onTty(["run", `127.0.0.1:${port}`, "-d", "2500ms", "--rate", "200", "-s", "2"]);
    const output = await run.output;
    // Elapsed of the duration, percent done and ETA, then the totals, within 80 columns.
    const erase = "\u001b[K";
    const lines = output
      .split("\r")
      .filter((l) => /^\d+s\/3s /.test(l))
      .map((l) => l.split(erase)[0]);
    assert.ok(lines.length > 0, JSON.stringify(output.slice(0, 300)));
    for (const line of lines) {
      assert.match(
        line,
        /^\d+s\/3s \d+% ETA \d+s sent \d+ acc \d+ \d+\/s p99 [\d.]+ms err 0 sess \d+$/,
      );
      assert.ok(line.length < 80, line);
    }
    // On a terminal the summary is coloured (and only there).
    const green = "\u001b[32maccepted 500\u001b[0m";
    assert.ok(output.includes(green), "the summary is coloured on a terminal");
    assert.match(output, /Messages +attempted 500 /);
  } finally {
    await sink.close();
  }
});

test("compare on a terminal counts its --pause down on one line", async (t) => {
  if (!requirePeer(t, "util-linux script", haveScript(), "apt-get install bsdutils")) return;
  const run = onTty(["compare", "-m", "20", "-s", "2", "--pause", "1500ms"]);
  const output = await run.output;
  assert.ok(
    output.includes("\rpause: 2s left before the reuse run"),
    JSON.stringify(output.slice(0, 400)),
  );
  assert.match(output, /Session reuse delivered/);
});
