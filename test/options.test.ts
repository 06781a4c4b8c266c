/**
 * The option table's contracts: every row is in the help with the default the config uses,
 * every plan key is a row, a plan never changes what the command line gave, report and
 * sink-emulation options are checked in config/, and every command's exit code comes from the
 * one table.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { EXIT, loadExitCode, type StopSignal } from "../src/cli/exit-codes.js";
import { givenOptions } from "../src/cli/load-options.js";
import { checkWritable, exportsOf, writeOutput } from "../src/cli/output.js";
import {
  buildCompareCommandConfig,
  buildRunCommandConfig,
  PLAN_KEYS,
  withPlan,
} from "../src/config/command-config.js";
import { camel, helpText, type OptionSpec, valueTag } from "../src/config/option-rows.js";
import {
  COMPARE_OPTIONS,
  DEFAULTS,
  LOAD_OPTIONS,
  TIMEOUT_OPTIONS,
} from "../src/config/option-table.js";
import { parseDuration, parseWindowRate } from "../src/config/parse.js";
import { parseSinkRate } from "../src/config/sink-config.js";
import { DEFAULT_APDEX_MS } from "../src/result/summarise.js";
import { DEFAULT_TIMEOUTS, PHASE_NAMES } from "../src/smtp/phases.js";
import { UsageError } from "../src/usage/usage-error.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-options-");
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const ALL_ROWS: [string, OptionSpec][] = Object.entries({ ...LOAD_OPTIONS, ...COMPARE_OPTIONS });

/** A config without its random run id, to compare two builds. */
function withoutRunId<T extends { runId: string }>(config: T): Omit<T, "runId"> {
  const { runId: _, ...rest } = config;
  return rest;
}

describe("the help is derived from the table", () => {
  for (const command of ["run", "compare"]) {
    test(`every option of ${command} is in its --help with its default`, async () => {
      const out = await mailvolley([command, "--help"]);
      assert.equal(out.code, EXIT.ok, out.stderr);
      const help = out.stdout.replace(/\s+/g, " ");
      const rows = Object.entries(
        command === "run" ? LOAD_OPTIONS : { ...LOAD_OPTIONS, ...COMPARE_OPTIONS },
      );
      for (const [flag, spec] of rows as [string, OptionSpec][]) {
        if (spec.kind === "positional") continue;
        // compare runs both modes and refuses --mode, so its help does not list it.
        if (command === "compare" && flag === "mode") continue;
        assert.ok(help.includes(`--${flag} `), `--${flag} missing from ${command} --help`);
        const letters = [spec.alias ?? []].flat().map((letter) => `-${letter}, `);
        assert.ok(help.includes(`${letters.join("")}--${flag} `), `${letters.join("")}--${flag}`);
        const shown = spec.shown ?? spec.default;
        if (shown !== undefined) {
          // The description, what the option takes, the default (a flag's as on or off).
          const tag = valueTag(spec);
          const onOff: Record<string, string> = { true: "on", offered: "on", false: "off" };
          const value = spec.kind === "flag" ? (onOff[String(shown)] ?? shown) : shown;
          const expected = `${spec.describe}${tag === null ? "" : ` [${tag}]`} [default: ${value}]`;
          assert.equal(helpText(spec), expected);
          assert.ok(help.includes(expected), `--${flag}: ${expected}`);
          if (typeof spec.default === "number") assert.match(tag ?? "", /^number/, `--${flag}`);
        }
      }
    });
  }

  test("a phase's timeout shown in the help is the timeout the config uses", () => {
    for (const phase of PHASE_NAMES) {
      const row = TIMEOUT_OPTIONS[`timeout-${phase}`];
      assert.equal(parseDuration("--timeout", row.default), DEFAULT_TIMEOUTS[phase], phase);
    }
    assert.equal(parseDuration("--apdex", DEFAULTS.apdex), DEFAULT_APDEX_MS);
  });

  test("--timeout sets every phase; a --timeout-PHASE wins for its phase", () => {
    const { run } = buildRunCommandConfig({ timeout: "5s", timeoutBanner: "1500ms" });
    for (const phase of PHASE_NAMES) {
      assert.equal(run.timeouts[phase], phase === "banner" ? 1500 : 5000, phase);
    }
    assert.throws(
      () => buildRunCommandConfig({ timeout: "0s" }),
      /--timeout: must be longer than 0/,
    );
    assert.throws(
      () => buildRunCommandConfig({ timeout: "soon" }),
      /--timeout: "soon" is not a duration/,
    );
  });

  test("giving every default explicitly builds the config that giving nothing builds", () => {
    const defaults: Record<string, unknown> = {};
    for (const [flag, spec] of ALL_ROWS) {
      // The receiver's options need --receive: given without it, each is refused.
      if (flag === "drain-timeout" || flag === "late-window") continue;
      if (spec.default !== undefined) defaults[camel(flag)] = String(spec.default);
    }
    const implicit = buildRunCommandConfig({});
    const explicit = buildRunCommandConfig(defaults);
    assert.deepEqual(withoutRunId(explicit.run), withoutRunId(implicit.run));
    assert.deepEqual(explicit.report, implicit.report);
    assert.deepEqual(explicit.sink, implicit.sink);
    const compare = buildCompareCommandConfig({});
    const compareExplicit = buildCompareCommandConfig({ ...defaults, mode: undefined });
    assert.equal(compareExplicit.pauseMs, compare.pauseMs);
    assert.deepEqual(
      compareExplicit.runs.map((r) => r.mode),
      compare.runs.map((r) => r.mode),
    );
  });
});

describe("plan keys", () => {
  test("every plan key is a row, and every row but a few is a plan key", () => {
    const rowKeys = new Set(ALL_ROWS.map(([flag]) => camel(flag)));
    for (const key of PLAN_KEYS) assert.ok(rowKeys.has(key), `plan key ${key} has no row`);
    const notInPlans = ALL_ROWS.filter(([flag]) => !PLAN_KEYS.has(camel(flag))).map(([f]) => f);
    assert.deepEqual(notInPlans.sort(), ["plan", "quiet", "set", "verbose"]);
  });

  test("a plan may set a --timeout-PHASE row; one of the few others is refused", () => {
    const good = file("timeouts.yaml", "timeout-banner: 5s\ntimeoutDot: 2m\n");
    const { run } = buildRunCommandConfig({ plan: good });
    assert.equal(run.timeouts.banner, 5000);
    assert.equal(run.timeouts.dot, 120_000);
    assert.equal(run.timeouts.mail, DEFAULT_TIMEOUTS.mail);
    const bad = file("verbose.yaml", "sessions: 2\nverbose: true\n");
    assert.throws(
      () => buildRunCommandConfig({ plan: bad }),
      /verbose.yaml:2: "verbose" is not a run option/,
    );
  });

  test("an error in a value from the plan names the plan's line, for report options too", () => {
    const path = file("bad-apdex.yaml", "sessions: 2\napdex: 0ms\n");
    assert.throws(
      () => buildRunCommandConfig({ plan: path }),
      /--apdex: must be above 0 \(from .*bad-apdex\.yaml:2\)/,
    );
  });
});

describe("a plan does not change what the command line gave", () => {
  const plan = file(
    "layers.yaml",
    [
      "sessions: 3",
      "messages: 30",
      "rate: 100/s",
      "html: out.html",
      "classes:",
      "  - { name: a, share: 1 }",
    ].join("\n"),
  );

  test("the given values stay as they were, frozen or not", () => {
    const given = Object.freeze({ plan, set: Object.freeze(["messages=20"]), sessions: "2" });
    const planned = withPlan(given);
    assert.deepEqual(given, { plan, set: ["messages=20"], sessions: "2" });
    assert.equal(planned.values.sessions, "2", "the command line wins");
    assert.equal(planned.values.messages, "20", "--set wins over the plan");
    assert.equal(planned.values.rate, "100/s");
    assert.equal(planned.classes.length, 1);
  });

  test("the same argv parsed twice gives the same config", () => {
    const argv = {
      _: ["run"],
      $0: "mailvolley",
      plan,
      set: ["messages=20"],
      s: "2",
      sessions: "2",
    };
    const before = structuredClone(argv);
    const first = buildRunCommandConfig(givenOptions(argv));
    const second = buildRunCommandConfig(givenOptions(argv));
    assert.deepEqual(argv, before, "argv untouched");
    assert.deepEqual(withoutRunId(first.run), withoutRunId(second.run));
    assert.deepEqual(first.report, second.report);
    assert.equal(first.run.sessions, 2);
    assert.equal(first.run.messages, 20);
    assert.equal(first.report.html, "out.html");
  });
});

describe("report and sink-emulation options are checked in config/", () => {
  test("report options: defaults, thresholds, abort-on-fail", () => {
    const { report } = buildRunCommandConfig({ threshold: ["p99<50ms"], abortOnFail: true });
    assert.equal(report.apdexMs, DEFAULT_APDEX_MS);
    assert.equal(report.thresholds.length, 1);
    assert.equal(report.abortOnFail, true);
    assert.throws(() => buildRunCommandConfig({ abortOnFail: true }), /--abort-on-fail/);
    assert.throws(() => buildRunCommandConfig({ apdex: "soon" }), UsageError);
  });

  test("--sink-NAME options become the sink's options, rates read as the sink reads them", () => {
    const { sink } = buildRunCommandConfig({
      sinkMaxConnections: "4",
      sinkMaxMessageRate: "30/1m",
    });
    // Parsed in config/, once: the sink takes the rate as a count over a window.
    assert.deepEqual(sink, { maxConnections: 4, maxMessageRate: { count: 30, windowMs: 60_000 } });
    assert.ok(Object.isFrozen(sink) && Object.isFrozen(sink.maxMessageRate));
    for (const text of ["30/60s", "30/1m", "30/m", "30", "30/60", "7/500ms", "5/2h"]) {
      assert.deepEqual(parseWindowRate("--x", text), parseSinkRate("--x", text), text);
    }
    for (const bad of ["fast", "0/60s", "30/0s", "-1"]) {
      assert.throws(() => parseWindowRate("--sink-max-message-rate", bad), UsageError, bad);
    }
    // 0 is the sink's "no limit", as `sink --max-connections 0` has always read it.
    assert.equal(buildRunCommandConfig({ sinkMaxConnections: "0" }).sink.maxConnections, 0);
    assert.throws(
      () => buildRunCommandConfig({ sinkMaxConnections: "x" }),
      /--sink-max-connections x/,
    );
  });
});

describe("compare's config", () => {
  test("both modes in --order, each run its own id; --mode is refused, a plan's is overridden", () => {
    const plan = file("compare.yaml", "mode: reuse\norder: reuse,per-message\npause: 0s\n");
    const config = buildCompareCommandConfig({ plan });
    assert.deepEqual(
      config.runs.map((r) => r.mode),
      ["reuse", "per-message"],
    );
    assert.equal(config.pauseMs, 0);
    assert.notEqual(config.runs[0].runId, config.runs[1].runId);
    assert.throws(() => buildCompareCommandConfig({ mode: "reuse" }), /--mode.*--order/);
    assert.throws(() => buildCompareCommandConfig({ order: "reuse" }), /--order/);
  });
});

describe("outputs", () => {
  test("exports: only those asked for, checked before, written from the value", () => {
    const json = join(dir, "out.json");
    const exports = exportsOf<number[]>([
      ["--json", json, (v) => `${JSON.stringify(v)}\n`],
      ["--html", null, () => "never"],
      ["--skip", join(dir, "skipped.txt"), () => null],
    ]);
    assert.deepEqual(
      exports.map((e) => e.option),
      ["--json", "--skip"],
    );
    checkWritable(exports);
    writeOutput({ quiet: true, summary: () => "not printed", exports }, [1, 2]);
    assert.equal(readFileSync(json, "utf8"), "[1,2]\n");
    assert.equal(existsSync(join(dir, "skipped.txt")), false, "null: nothing written");
    const unwritable = exportsOf<number>([["--html", join(dir, "no-such-dir", "x.html"), String]]);
    assert.throws(() => checkWritable(unwritable), /--html: cannot write/);
  });

  test("report --json - writes the JSON to stdout and the summary to stderr", async () => {
    const saved = join(dir, "saved.json");
    const run = await mailvolley([
      "run",
      "-s",
      "1",
      "-m",
      "5",
      "--workers",
      "1",
      "-q",
      "--json",
      saved,
    ]);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const out = await mailvolley(["report", saved, "--json", "-"]);
    assert.equal(out.code, EXIT.ok, out.stderr);
    assert.equal(
      (JSON.parse(out.stdout) as { messages: { accepted: number } }).messages.accepted,
      5,
    );
    assert.match(out.stderr, /accepted 5/);
  });
});

describe("exit codes", () => {
  test("one table; a load run's code follows interrupted, then breached, then failed", () => {
    assert.deepEqual(EXIT, {
      ok: 0,
      failed: 1,
      usage: 2,
      thresholds: 99,
      interrupted: 130,
      terminated: 143,
    });
    const code = (signal: StopSignal | null, breached: boolean, failed: boolean) =>
      loadExitCode({ signal, breached, failed });
    assert.equal(code("SIGINT", true, true), EXIT.interrupted);
    assert.equal(code("SIGTERM", true, true), EXIT.terminated);
    assert.equal(code(null, true, true), EXIT.thresholds);
    assert.equal(code(null, false, true), EXIT.failed);
    assert.equal(code(null, false, false), EXIT.ok);
  });

  test("no command handler writes an exit code as a number of its own", () => {
    const cliDir = new URL("../../src/cli/", import.meta.url);
    for (const name of readdirSync(cliDir).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(new URL(name, cliDir), "utf8");
      if (name === "exit-codes.ts") continue;
      assert.doesNotMatch(text, /exitCode\s*=\s*\d|exitCode\s*=[^;]*[?:]\s*\d/, name);
      assert.doesNotMatch(text, /process\.exit\(\s*\d/, name);
      assert.doesNotMatch(text, /return\s+\d+;/, name);
    }
  });
});
