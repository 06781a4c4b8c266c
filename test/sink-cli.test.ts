/**
 * `mailvolley sink` as a user runs it: bad input is one line naming the option with exit code 2;
 * a run stops on SIGTERM or an exit condition, prints the counts, writes --json, and --expect
 * decides the exit code.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { codes, RawClient } from "./sink-helpers.js";

const BIN = fileURLToPath(new URL("../../bin/mailvolley.js", import.meta.url));

interface Running {
  child: ChildProcess;
  port: number;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function startCli(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, "sink", "--listen", "127.0.0.1:0", ...args]);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolve({ child, port: Number(m[1]), exit });
    });
    exit.then(({ stderr: text }) => reject(new Error(`sink exited early: ${text}`)));
  });
}

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "sink", ...args]);
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

async function deliverOne(port: number): Promise<void> {
  const client = await RawClient.connect(port);
  await client.read();
  const txn = "EHLO x\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n";
  assert.deepEqual(codes(await client.send(txn, 4)), [250, 250, 250, 354]);
  assert.deepEqual(
    codes(await client.send("X-Mailvolley-Class: sec\r\n\r\nhi\r\n.\r\nQUIT\r\n", 2)),
    [250, 221],
  );
  await client.closedByServer();
}

test("bad input: one line naming the option, exit code 2, no stack trace", async () => {
  const cases: [string[], RegExp][] = [
    [["--listen", "nonsense"], /--listen "nonsense": expected host:port/],
    [["--listen", "127.0.0.1:70000"], /--listen "127\.0\.0\.1:70000": the port must be 0\.\.65535/],
    [["--max-connections", "-3"], /--max-connections/],
    [["--expect", "many"], /--expect many: give a whole number/],
    [["--fault", "rcpt:maybe"], /--fault rcpt:maybe: unknown action/],
    // Refused before the sink binds anything (it would listen on 127.0.0.1:2525 otherwise).
    [["--fault", "rcpt:450:every=0"], /--fault rcpt:450:every=0: every=0: N must be a whole/],
    [["--max-message-rate", "5/xs"], /--max-message-rate 5\/xs: write a rate as N\/60s/],
    [["--idle-exit", "soon"], /^mailvolley: --idle-exit: "soon" is not a duration; give e\.g\. /],
    [["--bare-lf", "sometimes"], /--bare-lf sometimes: use accept, reject or normalize/],
    [["--json", "/nonexistent-dir/counts.json"], /--json: cannot write .*ENOENT/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await runCli(args);
    assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
    assert.match(stderr, message);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.doesNotMatch(stderr, /\n\s+at /);
  }
});

test("SIGTERM: summary on stdout, --json written, --expect N decides the exit code", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mailvolley-sink-cli-"));
  try {
    for (const [expect, exitCode] of [
      ["1", 0],
      ["2", 1],
    ] as const) {
      const file = join(dir, `sink-${expect}.json`);
      const sink = await startCli(["--json", file, "--expect", expect]);
      await deliverOne(sink.port);
      sink.child.kill("SIGTERM");
      const { code, stdout, stderr } = await sink.exit;
      assert.equal(code, exitCode);
      assert.match(stdout, /messages accepted 1 /);
      if (exitCode === 1)
        assert.match(stderr, /^mailvolley sink: --expect: expected 2 messages accepted, got 1\n$/m);
      else assert.doesNotMatch(stderr, /--expect/);
      const json = JSON.parse(readFileSync(file, "utf8"));
      assert.equal(json.schema, "mailvolley/sink@1");
      assert.equal(json.messages.accepted, 1);
      assert.equal(json.messages.rejected, 0);
      assert.equal(json.sessions, 1);
      assert.equal(json.classes.sec.accepted, 1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--exit-after-messages stops the sink by itself", async () => {
  const loud = await startCli(["--exit-after-messages", "1", "--json", "-"]);
  await deliverOne(loud.port);
  const { code, stdout } = await loud.exit;
  assert.equal(code, 0);
  assert.match(stdout, /"stopReason": "messages"/);
});

test("--no-<extension> switches each extension off, as smtp-sink does", async () => {
  const off = ["pipelining", "chunking", "starttls", "8bitmime", "smtputf8", "dsn", "xverp"];
  const sink = await startCli([...off.map((name) => `--no-${name}`), "--no-enhanced-status-codes"]);
  const client = await RawClient.connect(sink.port);
  await client.read();
  const [ehlo] = await client.send("EHLO x\r\n");
  assert.deepEqual(
    ehlo.split("\n").map((line) => line.slice(4)),
    ["mailvolley-sink", "SIZE"],
  );
  assert.deepEqual(await client.send("MAIL FROM:<>\r\n"), ["250 Ok"]);
  await client.close();
  sink.child.kill("SIGINT");
  assert.equal((await sink.exit).code, 0);
});
