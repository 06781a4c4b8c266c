/**
 * The command line as a user meets it: a child process, its exit code, stdout and stderr.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { startScriptedServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe("bad input: one line naming the option, exit code 2", () => {
  const cases: [string[], RegExp][] = [
    [["run", "-s", "0"], /--sessions/],
    [["run", "--sessions=-3"], /--sessions/],
    [["run", "-s", "abc"], /--sessions.*whole number/],
    [["run", "-m", "1.5"], /--messages/],
    [["run", "-m", "0"], /--messages/],
    [["run", "-m"], /Not enough arguments following: m/],
    [["run", "--json"], /Not enough arguments following: json/],
    [["run", "-l", "-1"], /--size/],
    [["run", "-r", "0"], /--recipients/],
    [["run", "--mode", "fast"], /--mode.*reuse, per-message/],
    [["run", "--pipelining", "sometimes"], /--pipelining/],
    [["run", "127.0.0.1:99999"], /port 99999 is out of range/],
    [["run", "127.0.0.1:abc"], /port "abc" is not a number/],
    [["run", "[::1"], /closing "\]"/],
    [["run", "unix:"], /socket path/],
    [["run", "--timeout-banner", "soon"], /--timeout-banner.*duration/],
    [["run", "-w", "1s", "-R", "2s"], /--random-wait/],
    [["run", "-f", "a b@c"], /--from/],
    [["run", "--frobnicate"], /frobnicate/],
    [["run", "--json", "/nonexistent-dir/result.json"], /--json.*cannot write/],
    [["run", "--workers", "0"], /--workers/],
    [["run", "--starttls", "--tls-on-connect"], /--tls-on-connect/],
    [["run", "--auth", "nopassword"], /--auth.*user:password/],
    [["run", "--auth", "a:b", "--auth-mechanism", "cram-md5"], /--auth-mechanism/],
    [["fly"], /fly/],
    [[], /command/],
  ];
  for (const [args, pattern] of cases) {
    test(`mailvolley ${args.join(" ")}`, async () => {
      const out = await mailvolley(args);
      assert.equal(out.code, 2, `exit code for ${args.join(" ")}: ${out.stderr}`);
      assert.match(out.stderr, pattern);
      assert.equal(out.stderr.trimEnd().split("\n").length, 1, `more than one line: ${out.stderr}`);
      assert.doesNotMatch(out.stderr, /\n\s+at /);
      assert.equal(out.stdout, "");
    });
  }
});

describe("runs", () => {
  test("self-test against the embedded sink: counts agree, JSON on stdout, exit 0", async () => {
    const out = await mailvolley(["run", "-s", "4", "-m", "500", "--json", "-"]);
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(out.stdout) as Result;
    assert.equal(result.schema, "mailvolley/result@1");
    assert.equal(result.mode, "reuse");
    assert.equal(result.messages.attempted, 500);
    assert.equal(result.messages.accepted, 500);
    assert.equal(result.sink?.messagesAccepted, 500);
    assert.equal(result.connections.opened, 4);
    assert.ok(result.latency.transactionMs.p99 >= result.latency.transactionMs.p50);
    assert.match(out.stderr, /Sink count\s+accepted 500/);
  });

  test("per-message self-test writes the JSON file and prints the summary", async () => {
    const dir = tempDir("mailvolley-cli-");
    const file = join(dir, "result.json");
    const out = await mailvolley([
      "run",
      "--mode",
      "per-message",
      "-s",
      "3",
      "-m",
      "60",
      "--json",
      file,
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /accepted 60/);
    const result = JSON.parse(readFileSync(file, "utf8")) as Result;
    assert.equal(result.mode, "per-message");
    assert.equal(result.connections.opened, 60);
    assert.equal(result.sink?.messagesAccepted, 60);
  });

  test("a target that refuses connections is a clean run with failures and exit 1", async () => {
    const port = await closedPort();
    const out = await mailvolley([
      "run",
      `127.0.0.1:${port}`,
      "-s",
      "1",
      "-m",
      "3",
      "--reconnect-attempts",
      "2",
      "--reconnect-delay",
      "10ms",
      "--json",
      "-",
    ]);
    assert.equal(out.code, 1, out.stderr);
    const result = JSON.parse(out.stdout) as Result;
    assert.equal(result.messages.failed, 3);
    assert.ok(result.errors.some((e) => e.reply === "refused" && e.phase === "connect"));
    assert.doesNotMatch(out.stderr, /\n\s+at /);
  });

  test("--abort-on-fail stops a run whose p99 breaches its threshold, exit 99", async () => {
    const server = await startScriptedServer({
      onMessage: () => ({ reply: "250 ok", delayMs: 20 }),
    });
    try {
      const out = await mailvolley([
        "run",
        `127.0.0.1:${server.port}`,
        "-s",
        "10",
        "-m",
        "100000",
        "--workers",
        "1",
        "--threshold",
        "p99<5ms",
        "--abort-on-fail",
        "--json",
        "-",
      ]);
      assert.equal(out.code, 99, out.stderr);
      assert.match(out.stderr, /abort-on-fail stopped the run: p99<5ms/);
      const result = JSON.parse(out.stdout) as Result;
      assert.ok(result.messages.attempted < 100_000, `${result.messages.attempted}`);
      const m = result.messages;
      assert.equal(m.attempted, m.accepted + m.rejected + m.failed + (m.unconfirmed ?? 0));
    } finally {
      await server.close();
    }
  });

  test("server text with terminal escapes is shown escaped: summary, -v and report", async () => {
    const hostile = "5.7.1 \x1b]0;owned\x07\x1b[2J\x1b[1;31mFAKE: all messages accepted\x9b";
    const server = await startScriptedServer({ onMessage: () => `550 ${hostile}` });
    const json = join(tempDir("mailvolley-hostile-"), "hostile.json");
    try {
      const out = await mailvolley(["run", `127.0.0.1:${server.port}`, "-s", "1", "-m", "2", "-v"]);
      const saved = await mailvolley([
        ...["run", `127.0.0.1:${server.port}`, "-s", "1", "-m", "2", "--json", json, "-q"],
      ]);
      assert.equal(saved.code, 1, saved.stderr);
      const report = await mailvolley(["report", json]);
      for (const [what, text] of [
        ["run", out.stdout + out.stderr],
        ["report", report.stdout + report.stderr],
      ]) {
        // Not a terminal: no colour either, so no escape byte at all.
        for (const byte of ["\x07", "\x1b", "\x9b"]) {
          assert.ok(!text.includes(byte), `${what}: ${JSON.stringify(text)}`);
        }
        assert.match(text, /\\x1b\]0;owned\\x07/, what);
      }
      assert.match(out.stderr, /^< 550 5\.7\.1 \\x1b\]0;owned/m);
    } finally {
      await server.close();
    }
  });

  test("-v prints the first session's conversation", async () => {
    const out = await mailvolley(["run", "-s", "1", "-m", "1", "-v", "-q"]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /^> EHLO /m);
    assert.match(out.stderr, /^< 354/m);
    assert.match(out.stderr, /^> \[body: 1024 octets\]/m);
    assert.equal(out.stdout, "");
  });
});
