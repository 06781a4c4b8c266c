/**
 * SIGINT and SIGTERM in every command, as timeout(1), systemd, docker and Kubernetes send them:
 * a partial report whose counts add up, the sink's count as cross-check, the exit code
 * 128 + signal, nothing half-written, and a second signal as the hard stop. Each signal is sent
 * only after a positive sign that the child is where the test wants it (a progress line, the
 * sink's count, a connection at a scripted server); no timing is asserted.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { StopSignals } from "../src/cli/signals.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import type { Comparison } from "../src/report/compare.js";
import type { ProbeResult } from "../src/result/probe-result.js";
import type { Result } from "../src/result/result.js";
import { type Sink, startSink } from "../src/sink/index.js";
import { waitForText } from "./helpers/child.js";
import { mailvolley, type Outcome, startMailvolley } from "./helpers/cli.js";
import { startScriptedServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-signals-");

function addsUp(result: Result): void {
  const m = result.messages;
  assert.ok(m.attempted > 0, "the run sent something before the signal");
  assert.equal(m.attempted, m.accepted + m.rejected + m.failed + (m.unconfirmed ?? 0));
}

/** Polls `ready` (bounded) until it holds: a positive signal, not a timed wait. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (ready()) return;
    await sleep(10);
  }
  assert.fail(`never: ${what}`);
}

async function withSink<T>(faults: string[], body: (sink: Sink, target: string) => Promise<T>) {
  const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], faults }));
  try {
    const { host, port } = sink.addresses[0];
    return await body(sink, `${host}:${port}`);
  } finally {
    await sink.close();
  }
}

/**
 * Runs `mailvolley ARGS`, sends `signal` once `ready` (a positive sign from the child's stderr
 * or its peer) resolves, and returns how it ended, its exit code checked against 128 + signal.
 */
async function stopWith(
  signal: "SIGINT" | "SIGTERM",
  args: string[],
  ready: (stderr: Readable | null) => Promise<unknown>,
): Promise<Outcome> {
  const { child, done } = startMailvolley(args, 60_000);
  await ready(child.stderr);
  child.kill(signal);
  const outcome = await done;
  assert.equal(outcome.code, signal === "SIGINT" ? 130 : 143, outcome.stderr);
  return outcome;
}

test("StopSignals: the first drains, the second stops, an early one applies at attach", async () => {
  const calls: string[] = [];
  const target = { drain: () => calls.push("drain"), stop: () => calls.push("stop") };
  const first: string[] = [];
  const signals = new StopSignals((signal, running) => first.push(`${signal} ${running}`));
  try {
    const paused = signals.pause(600_000);
    process.emit("SIGTERM", "SIGTERM");
    assert.equal(await paused, true, "a pause ends at the signal");
    assert.equal(signals.received, "SIGTERM");
    signals.attach(target);
    assert.deepEqual(calls, ["drain"], "a signal before the work started drains it at once");
    process.emit("SIGINT", "SIGINT");
    assert.deepEqual(calls, ["drain", "stop"]);
    assert.equal(signals.received, "SIGTERM", "the first signal names the exit code");
    assert.deepEqual(first, ["SIGTERM false"]);
  } finally {
    signals.release();
  }
  assert.equal(process.listenerCount("SIGTERM"), 0, "released");
});

test("run: SIGTERM drains like Ctrl-C; the JSON file adds up, says so, exit 143", async () => {
  const file = join(dir, "term.json");
  const { stderr } = await stopWith(
    "SIGTERM",
    ["run", "-s", "4", "-d", "60s", "--rate", "500", "--workers", "1", "--json", file],
    (err) => waitForText(err, /progress/),
  );
  assert.match(stderr, /SIGTERM: stopping; messages in flight get 5\.0s/);
  const result = JSON.parse(readFileSync(file, "utf8")) as Result;
  addsUp(result);
  assert.equal(result.stoppedBy, "SIGTERM");
  assert.equal(result.sink?.messagesAccepted, result.messages.accepted);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes("term.json")),
    ["term.json"],
  );
});

test("run: a second signal cuts the messages in flight off at once", async () => {
  // Every final reply is held 60 s: the drain would wait out --grace 120s; the second signal
  // must not.
  await withSink(["dot:ok:delay=60000"], async (sink, target) => {
    const { child, done } = startMailvolley(
      ["run", target, "-s", "2", "-m", "100", "--grace", "120s", "--workers", "1", "--json", "-"],
      60_000,
    );
    await until(() => sink.stats().messagesAccepted >= 2, "both sessions' dots at the sink");
    child.kill("SIGINT");
    await waitForText(child.stderr, /stopping/);
    child.kill("SIGTERM");
    const { code, stdout, stderr } = await done;
    assert.equal(code, 130, `the first signal names the exit code: ${stderr}`);
    const result = JSON.parse(stdout) as Result;
    addsUp(result);
    assert.equal(result.stoppedBy, "SIGINT");
    const m = result.messages;
    assert.equal(m.accepted, 0);
    // Sent whole, their replies held: the sink took them, so they are unconfirmed, not failed.
    assert.ok((m.unconfirmed ?? 0) >= 2, `the held messages are unconfirmed: ${JSON.stringify(m)}`);
    assert.ok((m.unconfirmed ?? 0) >= sink.stats().messagesAccepted);
    assert.ok(result.errors.length > 0);
    for (const e of result.errors) {
      // The client's own cut is named as such, never as a close by the server.
      assert.deepEqual([e.reply, e.phase, e.class], ["stopped", "dot", "transport"], e.text);
    }
    assert.match(result.errors[0].text, /cut by this client/);
    const rows = result.errors.reduce((sum, e) => sum + e.count, 0);
    assert.equal(rows, m.failed + (m.unconfirmed ?? 0), "every message cut off in one row");
    assert.equal(result.connections.refused, 0);
  });
});

test("run: sessions still waiting for a banner when --grace ends are the client's cut", async () => {
  const server = await startScriptedServer({ banner: null });
  try {
    const { stdout } = await stopWith(
      "SIGTERM",
      ["run", `127.0.0.1:${server.port}`, "-s", "2", "-m", "10", "--grace", "100ms", "--json", "-"],
      () => server.waitForConnections(2, 30_000),
    );
    const result = JSON.parse(stdout) as Result;
    assert.equal(result.connections.refused, 0, "no server refused anything");
    assert.deepEqual(
      result.errors.map((e) => [e.reply, e.phase, e.count]),
      [["stopped", "banner", 2]],
    );
  } finally {
    await server.close();
  }
});

test("compare: a signal drains the run in hand (client = sink) and starts no other", async () => {
  // The sink holds each final reply 200 ms, so messages are in flight whenever the signal
  // comes; a hard stop would leave the sink with more accepted than the client.
  await withSink(["dot:ok:delay=200"], async (sink, target) => {
    const { stdout, stderr } = await stopWith(
      "SIGTERM",
      ["compare", target, "-s", "4", "-d", "60s", "--workers", "1", "--json", "-"],
      (err) => waitForText(err, /progress/),
    );
    const doc = JSON.parse(stdout) as Comparison;
    assert.equal(doc.runs.length, 1);
    assert.deepEqual(doc.notRun, ["reuse"]);
    addsUp(doc.runs[0]);
    assert.equal(doc.runs[0].stoppedBy, "SIGTERM");
    assert.equal(doc.runs[0].messages.accepted, sink.stats().messagesAccepted);
    assert.match(stderr, /the reuse run was not started/);
    assert.match(stderr, /mailvolley per-message → /, "the run it has is summarised");
  });
});

test("compare: Ctrl-C during --pause ends the compare at once", async () => {
  const { stdout, stderr } = await stopWith(
    "SIGINT",
    ["compare", "-s", "2", "-m", "20", "--pause", "10m", "--json", "-"],
    (err) => waitForText(err, /pausing 600\.0s before the reuse run/),
  );
  const doc = JSON.parse(stdout) as Comparison;
  assert.deepEqual(
    doc.runs.map((r) => [r.mode, r.messages.accepted, r.sink?.messagesAccepted, r.stoppedBy]),
    [["per-message", 20, 20, undefined]],
    "the first run had finished: it was not stopped",
  );
  assert.deepEqual(doc.notRun, ["reuse"]);
  assert.match(stderr, /SIGINT: the reuse run was not started/);
});

test("probe: a signal ends it with a summary, the JSON and a QUIT on every connection", async () => {
  // Three connections are greeted; the fourth gets no banner, so the probe waits on it.
  const server = await startScriptedServer({
    banner: (s) => (s.index >= 3 ? null : "220 scripted ESMTP"),
  });
  try {
    const { stdout, stderr } = await stopWith(
      "SIGTERM",
      ["probe", `127.0.0.1:${server.port}`, "--probe", "concurrency", "--json", "-"],
      () => server.waitForConnections(4, 30_000),
    );
    const result = JSON.parse(stdout) as ProbeResult;
    assert.deepEqual([result.allowed, result.ended, result.refusal], [3, "interrupted", null]);
    assert.match(stderr, /Refused\s+never: stopped by a signal/);
    const commands = server.connections.map((c) => c.commands.at(-1));
    assert.deepEqual(commands, ["QUIT", "QUIT", "QUIT", undefined], "no QUIT before a banner");
  } finally {
    await server.close();
  }
});

test("probe: a second signal closes what waits for its QUIT reply", async () => {
  const server = await startScriptedServer({
    banner: (s) => (s.index >= 2 ? null : "220 scripted ESMTP"),
    onCommand: (line) => (line === "QUIT" ? null : undefined),
  });
  try {
    const { child, done } = startMailvolley(
      ["probe", `127.0.0.1:${server.port}`, "--probe", "concurrency", "--json", "-"],
      60_000,
    );
    await server.waitForConnections(3, 30_000);
    child.kill("SIGINT");
    await until(
      () => server.connections.slice(0, 2).every((c) => c.commands.includes("QUIT")),
      "a QUIT on both greeted connections",
    );
    child.kill("SIGINT");
    const { code, stdout, stderr } = await done;
    assert.equal(code, 130, stderr);
    assert.equal((JSON.parse(stdout) as ProbeResult).ended, "interrupted");
  } finally {
    await server.close();
  }
});

test("merge: a signal while the results are read writes nothing, exit 143", async (t) => {
  const shard = join(dir, "shard.json");
  const saved = await mailvolley(["run", "-s", "1", "-m", "5", "-q", "--json", shard]);
  assert.equal(saved.code, 0, saved.stderr);
  const fifo = join(dir, "slow-shard.json");
  try {
    execFileSync("mkfifo", [fifo]);
  } catch {
    t.skip("mkfifo not available");
    return;
  }
  const out = join(dir, "merged.json");
  const { child, done } = startMailvolley(["merge", shard, fifo, "--json", out], 30_000);
  // Opening a FIFO for writing without blocking fails (ENXIO) until a reader has it open.
  let writer = -1;
  await until(() => {
    try {
      writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      return true;
    } catch {
      return false;
    }
  }, "merge reading the FIFO");
  child.kill("SIGTERM");
  await waitForText(child.stderr, /SIGTERM: stopping/);
  // The reader may already have given the FIFO up (the signal aborts the read): EPIPE then.
  try {
    writeSync(writer, readFileSync(shard));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
  }
  closeSync(writer);
  const { code, stderr } = await done;
  assert.equal(code, 143, stderr);
  assert.match(stderr, /nothing written/);
  assert.equal(existsSync(out), false);
});

/**
 * NODE_OPTIONS that signal the process with SIGINT the moment it resolves its `at`-th module
 * (a module resolve hook, Node's module.register): the 1st is the bin itself, the 2nd the
 * bundle it imports after its first lines, the later ones the bundle's own imports, all before
 * a command has installed its handlers. A positive sign from inside the child, no timing.
 * (Before the bin's first line runs no JavaScript of ours can catch a signal: Node's own
 * start, measured by bench/signal-window.ts and docs/reliability-notes.md.)
 */
function signalWhileLoading(at: number): string {
  const hooks = join(dir, "signal-hooks.mjs");
  writeFileSync(
    hooks,
    `let at = 0;
let seen = 0;
export function initialize(data) {
  at = data.at;
}
export async function resolve(specifier, context, next) {
  if (++seen === at) process.kill(process.pid, "SIGINT");
  return next(specifier, context);
}
`,
  );
  const register = join(dir, `signal-register-${at}.mjs`);
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { at: ${at} } });\n`,
  );
  return `--import=${pathToFileURL(register).href}`;
}

// Both commands resolve some 45 modules before their handlers are in place.
for (const at of [2, 3, 10, 30]) {
  for (const [command, args, code] of [
    ["run", ["run", "-m", "100000"], 130],
    ["sink", ["sink", "--listen", "127.0.0.1:0", "-q"], 0],
  ] as const) {
    test(`${command}: a signal at module ${at} of the load writes the report it promises`, async () => {
      const json = join(dir, `early-${command}-${at}.json`);
      const env = { NODE_OPTIONS: signalWhileLoading(at) };
      const out = await startMailvolley([...args, "--json", json], 60_000, env).done;
      assert.equal(out.code, code, out.stderr);
      assert.ok(existsSync(json), `${command} wrote no report: ${out.stderr}`);
      JSON.parse(readFileSync(json, "utf8"));
    });
  }
}
