/**
 * Every file the command line names as input, given as a FIFO, through the built bin. report,
 * merge and --arrivals read a pipe; run, compare and probe read their --plan and --auth-file
 * ahead from one, the sink its --tls-cert and --tls-key; a SIGTERM or SIGINT while any of them
 * waits for its writer ends the command (128 + the signal, nothing sent or written). A
 * directory or a device is refused everywhere, one line, exit 2. The signal is sent once the
 * child holds the FIFO open (a writer's non-blocking open then succeeds), never after a fixed
 * sleep.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, readFileSync, writeFileSync } from "node:fs";
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
// merge refuses one run given twice: a second result of another run id to merge with `good`.
const other = join(dir, "other.json");
writeFileSync(other, JSON.stringify({ ...fixedResult("reuse"), runId: "ba9876543210" }));
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

/** A STARTTLS sink's command line with these certificate and key files. */
const tlsSink = (cert: string, key: string) => [
  "sink",
  "--listen",
  "127.0.0.1:0",
  "--starttls",
  "--tls-cert",
  cert,
  "--tls-key",
  key,
];

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

describe("an input that is a FIFO: read, and a signal ends the wait for its writer", () => {
  const NOTHING_WRITTEN = "stopped before writing; nothing written";
  const NOTHING_SENT = "stopped while reading its input files, before anything began";
  const cases: [string, (pipe: string) => string[], string][] = [
    ["report", (pipe) => ["report", pipe, "--html", join(dir, "r.html")], NOTHING_WRITTEN],
    ["merge", (pipe) => ["merge", pipe, good, "--json", join(dir, "m.json")], NOTHING_WRITTEN],
    ["report --arrivals", (pipe) => ["report", good, "--arrivals", pipe], NOTHING_WRITTEN],
    ["merge --arrivals", (pipe) => ["merge", good, other, "--arrivals", pipe], NOTHING_WRITTEN],
    ["run --plan", (pipe) => ["run", "-m", "1", "--plan", pipe], NOTHING_SENT],
    ["run --auth-file", (pipe) => ["run", "-m", "1", "--auth-file", pipe], NOTHING_SENT],
    ["compare --plan", (pipe) => ["compare", "-m", "1", "--plan", pipe], NOTHING_SENT],
    [
      "probe --auth-file",
      (pipe) => ["probe", "127.0.0.1:1", "--probe", "concurrency", "--auth-file", pipe],
      NOTHING_SENT,
    ],
    ["sink --tls-cert", (pipe) => tlsSink(pipe, good), NOTHING_SENT],
    ["sink --tls-key", (pipe) => tlsSink(good, pipe), NOTHING_SENT],
  ];
  for (const [name, args, said] of cases) {
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGINT", 130],
    ] as const) {
      test(`${name}: ${signal} while it waits for a writer → exit ${code}, nothing done`, async () => {
        const pipe = fifo();
        const command = name.split(" ")[0];
        const { code: exit, stdout, stderr } = await signalWhileReading(args(pipe), pipe, signal);
        assert.equal(exit, code, stderr);
        assert.match(stderr, new RegExp(`mailvolley ${command}: ${signal}: ${said}`));
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

  test("run takes its plan and credentials from pipes", async () => {
    const plan = fifo();
    const auth = fifo();
    const json = join(dir, "piped.json");
    const { done } = startMailvolley(
      ["run", "-q", "--plan", plan, "--auth-file", auth, "--json", json],
      60_000,
    );
    for (const [pipe, text] of [
      [plan, "messages: 4\nsessions: 2\n"],
      [auth, "user:secret\n"],
    ]) {
      const writer = new Socket({
        fd: await writerOnceRead(pipe),
        readable: false,
        writable: true,
      });
      writer.end(text);
    }
    const { code, stderr } = await done;
    assert.equal(code, 0, stderr);
    const result = JSON.parse(readFileSync(json, "utf8"));
    assert.equal(result.messages.accepted, 4);
    assert.equal(result.sessions, 2);
  });
});

describe("no input may be a directory or a device", () => {
  const cases: [string, () => string[], RegExp][] = [
    [
      "sink --tls-key, a directory",
      () => tlsSink(good, dir),
      /^mailvolley: --tls-key ".*": is a directory; give the path of the PEM private key\n$/,
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
      const { code, stdout, stderr } = await startMailvolley(args(), 30_000).done;
      assert.equal(code, 2, stderr);
      assert.match(stderr, line);
      assert.equal(stdout, "");
    });
  }
});
