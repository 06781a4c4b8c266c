/**
 * Every file the command line names as input, given as a FIFO, through the built bin: the
 * offline readers (report, merge, --arrivals) read a pipe and a SIGTERM or SIGINT while they
 * wait for its writer ends them (128 + the signal, nothing written); the readers that cannot
 * wait (--plan, --auth-file, the sink's certificate) refuse it in one line with exit 2; a
 * directory or a device is refused everywhere. The signal is sent once the child holds the
 * FIFO open (a writer's non-blocking open succeeds), never after a fixed sleep.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type Outcome, startMailvolley } from "./helpers/cli.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-inputs-");
const good = join(dir, "good.json");
writeFileSync(good, JSON.stringify(fixedResult("reuse")));
let fifos = 0;

function fifo(): string {
  const path = join(dir, `fifo-${fifos++}`);
  execFileSync("mkfifo", [path]);
  return path;
}

/**
 * A writer's end of `path`, opened once some process reads it: a non-blocking open for writing
 * fails with ENXIO until a reader has the FIFO open. The child's reading is the event waited on.
 */
async function writerOnceRead(path: string): Promise<number> {
  for (;;) {
    try {
      return openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
      await sleep(10);
    }
  }
}

/** Starts mailvolley on `args`, signals it once it reads `pipe`; its outcome. */
async function signalWhileReading(
  args: string[],
  pipe: string,
  signal: NodeJS.Signals,
): Promise<Outcome> {
  const { child, done } = startMailvolley(args, 30_000);
  const writer = await writerOnceRead(pipe);
  child.kill(signal);
  const outcome = await done;
  closeSync(writer);
  return outcome;
}

describe("a FIFO read by report, merge and --arrivals: a signal ends the wait", () => {
  const cases: [string, (pipe: string) => string[]][] = [
    ["report", (pipe) => ["report", pipe, "--html", join(dir, "r.html")]],
    ["merge", (pipe) => ["merge", pipe, good, "--json", join(dir, "m.json")]],
    ["report --arrivals", (pipe) => ["report", good, "--arrivals", pipe]],
    ["merge --arrivals", (pipe) => ["merge", good, good, "--arrivals", pipe]],
  ];
  for (const [name, args] of cases) {
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGINT", 130],
    ] as const) {
      test(`${name}: ${signal} while it waits for a writer → exit ${code}, nothing written`, async () => {
        const pipe = fifo();
        const command = name.split(" ")[0];
        const { code: exit, stdout, stderr } = await signalWhileReading(args(pipe), pipe, signal);
        assert.equal(exit, code, stderr);
        assert.match(
          stderr,
          new RegExp(`mailvolley ${command}: ${signal}: stopped before writing`),
        );
        assert.equal(stdout, "");
      });
    }
  }

  test("report reads a result a pipe brings", async () => {
    const pipe = fifo();
    const { done } = startMailvolley(["report", pipe, "--color=false"], 30_000);
    // The writer's end as a socket: libuv waits while the pipe is full; end() closes it.
    const writer = new Socket({ fd: await writerOnceRead(pipe), readable: false, writable: true });
    writer.end(JSON.stringify(fixedResult("reuse")));
    const { code, stdout, stderr } = await done;
    assert.equal(code, 0, stderr);
    assert.match(stdout, /accepted/);
  });
});

describe("inputs that cannot wait refuse a FIFO; no input may be a directory or a device", () => {
  const cases: [string, (pipe: string) => string[], RegExp][] = [
    [
      "--plan",
      (pipe) => ["run", "-m", "1", "--plan", pipe],
      /^mailvolley: --plan ".*fifo-\d+": is a FIFO \(named pipe\); give the YAML or JSON plan as a regular file\n$/,
    ],
    [
      "--auth-file",
      (pipe) => ["run", "-m", "1", "--auth-file", pipe],
      /^mailvolley: --auth-file ".*fifo-\d+": is a FIFO \(named pipe\); give the file of user:password as a regular file\n$/,
    ],
    [
      "sink --tls-cert",
      (pipe) => [
        "sink",
        "--listen",
        "127.0.0.1:0",
        "--starttls",
        "--tls-cert",
        pipe,
        "--tls-key",
        good,
      ],
      /^mailvolley: --tls-cert ".*fifo-\d+": is a FIFO \(named pipe\); give the PEM certificate as a regular file\n$/,
    ],
    [
      "sink --tls-key",
      (pipe) => [
        "sink",
        "--listen",
        "127.0.0.1:0",
        "--starttls",
        "--tls-cert",
        good,
        "--tls-key",
        pipe,
      ],
      /^mailvolley: --tls-key ".*fifo-\d+": is a FIFO \(named pipe\); give the PEM private key as a regular file\n$/,
    ],
    [
      "report, a directory",
      () => ["report", dir],
      /^mailvolley: result ".*": is a directory; give the path of the JSON result\n$/,
    ],
    [
      "report --arrivals, a device",
      () => ["report", good, "--arrivals", "/dev/zero"],
      /^mailvolley: --arrivals "\/dev\/zero": is a device, not a file; give the arrivals JSON as a regular file\n$/,
    ],
    [
      "--plan, a device",
      () => ["run", "-m", "1", "--plan", "/dev/zero"],
      /^mailvolley: --plan "\/dev\/zero": is a device, not a file; give the YAML or JSON plan as a regular file\n$/,
    ],
  ];
  for (const [name, args, line] of cases) {
    test(`${name}: one line, exit 2`, async () => {
      const { code, stdout, stderr } = await startMailvolley(args(fifo()), 30_000).done;
      assert.equal(code, 2, stderr);
      assert.match(stderr, line);
      assert.equal(stdout, "");
    });
  }
});
