/**
 * Whose numbers are these: the generator section of real runs. mailvolley runs as a child
 * process (its own threads, its own CPU clock) against a slow target, a fast target while
 * pinned to a core two other processes keep busy, and the built-in sink's gateway limits. The
 * tests assert the verdict and the figures it rests on, never a wall-clock time.
 */

import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { renderCompare } from "../src/report/compare.js";
import { renderHtml } from "../src/report/html.js";
import { renderSummary } from "../src/report/terminal.js";
import { generatorResult, limitedBy } from "../src/result/generator-verdict.js";
import { mergeResults } from "../src/result/merge-results.js";
import type { Result } from "../src/result/result.js";
import { startSink } from "../src/sink/index.js";
import { waitExit } from "./helpers/child.js";
import { requirePeer } from "./helpers/peer.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";

const BIN = fileURLToPath(new URL("../../bin/mailvolley.js", import.meta.url));

interface Ran {
  result: Result;
  code: number | null;
  stderr: string;
}

/** `mailvolley run … --json -` as a child process (optionally behind a prefix such as taskset). */
function runChild(args: readonly string[], prefix: readonly string[] = []): Promise<Ran> {
  const argv = [...prefix, process.execPath, BIN, "run", ...args, "--json", "-", "-q"];
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        resolve({ result: JSON.parse(stdout) as Result, code, stderr });
      } catch {
        reject(new Error(`no JSON result (exit ${code}): ${stderr}`));
      }
    });
  });
}

/** A process that keeps one core busy until killed (bounded: it exits by itself after 60 s). */
function spinner(core: number): ChildProcess {
  const spin = "const end = Date.now() + 60000; while (Date.now() < end) {}";
  return spawn("taskset", ["-c", String(core), process.execPath, "-e", spin], { stdio: "ignore" });
}

const haveTaskset = () => spawnSync("taskset", ["-V"]).status === 0;

/** Short intervals, so that a 2–3 s run has the steady intervals the verdict needs. */
const INTERVALS = ["--interval", "250ms"];

describe("the generator section of a run", () => {
  test("a slow target (the sink holds every final reply 50 ms) reads `target`", async () => {
    const sink = await startSink(
      fillSinkOptions({ listen: ["127.0.0.1:0"], faults: ["dot:ok:delay=50ms"] }),
    );
    try {
      const { port } = sink.addresses[0];
      const { result } = await runChild([`127.0.0.1:${port}`, "-s", "4", "-d", "2s", ...INTERVALS]);
      const g = result.generator;
      assert.ok(g, "a generator section");
      assert.equal(g.limitedBy, "target", g.reasons.join("; "));
      assert.match(g.reasons[0], /every generator thread had headroom/);
      assert.equal(g.threads.length, 1);
      const [main] = g.threads;
      assert.equal(main.name, "main");
      assert.ok(main.points.length >= 5, `${main.points.length} intervals`);
      assert.ok(main.cpuUtilisation < 0.7, `main thread ${main.cpuUtilisation} busy`);
      assert.equal(g.lateness, null, "closed model: no schedule to be late against");
      // The series carries the generator's figures per interval.
      assert.ok(result.series.points.some((p) => p.generator?.busiestThread === "main"));
      assert.equal(result.messages.accepted, sink.stats().messagesAccepted);
    } finally {
      await sink.close();
    }
  });

  test("open model against a slow target: late starts with the generator idle read `target`", async (t) => {
    const sink = await startSink(
      fillSinkOptions({ listen: ["127.0.0.1:0"], faults: ["dot:ok:delay=20ms"] }),
    );
    try {
      const { port } = sink.addresses[0];
      // One session takes at most 50 messages a second; 200 a second arrive.
      const { result } = await runChild([
        `127.0.0.1:${port}`,
        "-s",
        "1",
        "--rate",
        "200",
        "-d",
        "2s",
        ...INTERVALS,
      ]);
      const g = result.generator;
      assert.ok(g?.lateness, "open model: a lateness section");
      // The lateness is the load's own (one session, four times too slow), whatever the machine.
      assert.equal(g.lateness.arrivalIntervalMs, 5);
      assert.equal(g.lateness.toleranceMs, 10);
      assert.equal(g.lateness.started, result.messages.attempted);
      assert.ok(g.lateness.late > 0, "arrivals waited for the one session");
      assert.ok(g.lateness.startMs.p99 > g.lateness.toleranceMs);
      // Whether the generator was idle is the machine's: read from the recorded thread figures,
      // not assumed. A busy test machine may leave a thread ≥ 70% busy, and the verdict must
      // then follow those figures; idle, they make the late starts the target's.
      const open = {
        arrivalIntervalMs: g.lateness.arrivalIntervalMs,
        latenessP99Ms: g.lateness.startMs.p99,
        dropped: result.messages.dropped,
      };
      assert.equal(g.limitedBy, limitedBy({ threads: g.threads, open }).verdict);
      const idle = limitedBy({ threads: g.threads, open: null }).verdict === "target";
      if (!idle) {
        t.diagnostic(`the machine kept the generator busy: ${g.reasons.join("; ")}`);
        return;
      }
      assert.equal(g.limitedBy, "target", g.reasons.join("; "));
      assert.match(g.advice, /raise --sessions/);
    } finally {
      await sink.close();
    }
  });

  test("the built-in sink's gateway limit sets the rate: `target`", async () => {
    // 300 arrivals a second, the emulated gateway takes 100 MAILs a second per client.
    const { result } = await runChild([
      "--rate",
      "300",
      "-d",
      "2s",
      "--sink-max-message-rate",
      "100/1s",
      ...INTERVALS,
    ]);
    assert.ok(result.messages.rejected > 0, "the limit answered 450");
    assert.equal(result.generator?.limitedBy, "target", result.generator?.reasons.join("; "));
  });

  test("pinned to a core two other processes keep busy: `generator`, exit 99 on request", async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    if (!requirePeer(t, "taskset", haveTaskset(), "apt-get install util-linux")) return;
    const sink = await startPostfixSmtpSink();
    // Two spinners on core 0 and mailvolley beside them at nice 10: the scheduler's weights
    // (110 against 1024 each) leave it about 5% of that core, so little that the sink keeps up
    // even when the other cores are busy (at a third of core 0 and not niced, three busy
    // processes on core 1 starved the sink instead, and the verdict read `target`).
    const spins = [spinner(0), spinner(0)];
    try {
      const { result, code, stderr } = await runChild(
        [
          `${sink.host}:${sink.port}`,
          "-s",
          "10",
          "-d",
          "2s",
          ...INTERVALS,
          "--fail-on-generator-bound",
        ],
        ["taskset", "-c", "0", "nice", "-n", "10"],
      );
      const g = result.generator;
      assert.ok(g);
      assert.equal(g.limitedBy, "generator", g.reasons.join("; "));
      // Its main thread shared core 0 with the spinner: saturated (on the core or waiting for
      // it), or its event loop ran late, in most steady intervals.
      assert.match(g.reasons[0], /^main thread (\d+% busy|event loop late)/);
      const [main] = g.threads;
      const waiting = main.points.slice(1, -1).map((p) => (p.waitSeconds ?? 0) / p.wallSeconds);
      assert.ok(
        waiting.filter((w) => w >= 0.2).length * 2 > waiting.length,
        `share of each interval spent waiting for core 0: ${waiting.map((w) => w.toFixed(2)).join(" ")}`,
      );
      assert.equal(code, 99, stderr);
      assert.match(
        stderr,
        /--fail-on-generator-bound: the generator set the rate of the reuse run/,
      );
    } finally {
      for (const spin of spins) spin.kill("SIGKILL");
      await Promise.all(spins.map((spin) => waitExit(spin)));
      await sink.stop();
    }
  });
});

describe("the verdict in reports and merges", () => {
  /**
   * A real run's result twice, judged again with its main thread set to `busy` in every
   * interval and its event loop on time: figures that do not depend on this machine's load.
   */
  async function pair(): Promise<[Result, Result]> {
    const sink = await startSink(
      fillSinkOptions({ listen: ["127.0.0.1:0"], faults: ["dot:ok:delay=50ms"] }),
    );
    try {
      const { port } = sink.addresses[0];
      const { result } = await runChild([`127.0.0.1:${port}`, "-s", "2", "-d", "2s", ...INTERVALS]);
      const judged = (busy: number) => {
        const copy = structuredClone(result);
        const threads = copy.generator?.threads ?? [];
        for (const p of threads.flatMap((t) => t.points)) {
          p.cpuUtilisation = busy;
          p.eventLoopUtilisation = busy;
          p.waitSeconds = 0;
          p.eventLoopDelay = { p50Ms: 0, p99Ms: 0, maxMs: 0 };
        }
        copy.generator = generatorResult(threads, null);
        return copy;
      };
      return [judged(0.2), judged(0.99)];
    } finally {
      await sink.close();
    }
  }

  test("merge judges the shards' threads again and names the generator-bound one", async () => {
    const [idle, bound] = await pair();
    assert.equal(idle.generator?.limitedBy, "target");
    const merged = mergeResults([idle, bound]);
    const g = merged.generator;
    assert.ok(g);
    assert.equal(g.limitedBy, "generator");
    assert.deepEqual(
      g.threads.map((t) => t.name),
      ["result 1 main", "result 2 main"],
    );
    assert.match(g.reasons.join("\n"), /^result 2 main thread 99% busy/m);
    assert.doesNotMatch(g.reasons.join("\n"), /result 1/);
    const both = mergeResults([idle, idle]);
    assert.equal(both.generator?.limitedBy, "target");
  });

  test("terminal, HTML and compare say it in their first lines", async () => {
    const [idle, bound] = await pair();
    const terminal = renderSummary(bound, { color: false }).split("\n");
    assert.match(terminal[1], /^Limited by the generator: this rate measures mailvolley/);
    assert.match(terminal[2], /^ {2}main thread 99% busy/);
    assert.match(renderSummary(idle, { color: false }).split("\n")[1], /^Limited by the target/);

    const perMessage = { ...bound, mode: "per-message" as const };
    const compare = renderCompare([perMessage, idle], { color: false }).split("\n");
    assert.match(compare[1], /^per-message run: limited by the generator/);
    assert.ok(
      compare
        .slice(0, 8)
        .some((l) =>
          /^The ratios below measure mailvolley, not the target: the per-message run/.test(l),
        ),
      compare.slice(0, 8).join("\n"),
    );

    const html = renderHtml([bound]);
    const verdictAt = html.indexOf('class="verdict generator"');
    assert.ok(
      verdictAt > 0 && verdictAt < html.indexOf("<h2>Overview</h2>"),
      "the verdict comes first",
    );
    assert.match(html, /<h2>Generator<\/h2>/);
  });
});
