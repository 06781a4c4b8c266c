/**
 * The phase table (smtp/phases.ts) and what derives from it: every expectation has a phase
 * with a timeout, every phase an option, every latency a Result field, a report row, a
 * threshold selector and a line in docs/reference.md.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Expect, PHASE_OF } from "../src/client/pending.js";
import { buildRunConfig } from "../src/config/run-config.js";
import { parseThreshold } from "../src/config/thresholds.js";
import { PHASE_ROWS } from "../src/report/figures.js";
import { RESULT_LATENCIES, type Result } from "../src/result/result.js";
import { buildResult } from "../src/result/summarise.js";
import { measure } from "../src/result/threshold-verdicts.js";
import {
  DEFAULT_TIMEOUTS,
  isPhase,
  LATENCIES,
  latencyField,
  PHASE_NAMES,
  PHASES,
} from "../src/smtp/phases.js";
import { HISTOGRAM_NAMES, RunStats } from "../src/stats/collector.js";
import { recordLatency } from "./helpers/record-latency.js";

const EXPECTS = Object.values(Expect).filter((v): v is Expect => typeof v === "number");

describe("every expectation has a phase, and every phase a timeout", () => {
  test("each Expect member maps to a phase whose timeout is above 0", () => {
    const timeouts = buildRunConfig({}).timeouts;
    assert.equal(PHASE_OF.length, EXPECTS.length);
    for (const kind of EXPECTS) {
      const phase = PHASE_OF[kind];
      assert.ok(isPhase(phase), `Expect.${Expect[kind]} → ${phase}`);
      assert.ok(DEFAULT_TIMEOUTS[phase] > 0, `no default timeout for ${phase}`);
      assert.ok(timeouts[phase] > 0, `the run config has no timeout for ${phase}`);
    }
  });

  test("PHASE_OF is indexed by Expect: each member's entry is the phase it names", () => {
    for (const kind of EXPECTS) {
      const name = Expect[kind];
      const phase = name.startsWith("Auth") ? "auth" : name.toLowerCase();
      assert.equal(PHASE_OF[kind], phase, `Expect.${name}`);
    }
  });

  test("every phase of the table takes a --timeout-PHASE value, helo included", () => {
    for (const phase of PHASE_NAMES) {
      assert.ok(PHASES[phase].timeoutMs > 0);
      assert.equal(DEFAULT_TIMEOUTS[phase], PHASES[phase].timeoutMs);
      const config = buildRunConfig({ timeout: { [phase]: "1.5s" } });
      assert.equal(config.timeouts[phase], 1500, phase);
    }
    assert.deepEqual(Object.keys(DEFAULT_TIMEOUTS), PHASE_NAMES);
  });
});

/** A Result whose every latency has one sample: latency number i has (i + 1) ms (HDR-rounded). */
function resultWithEveryLatency(): Result {
  const stats = new RunStats();
  for (const [i, latency] of LATENCIES.entries()) recordLatency(stats, latency, i + 1);
  stats.touch(1_000);
  stats.touch(2_000);
  return buildResult(stats.snapshot(), {
    mode: "reuse",
    target: "127.0.0.1:2525",
    runId: "0123456789ab",
    sessions: 1,
  });
}

describe("latencies derive from the table", () => {
  test("the transaction first, each phase's latency once in session order, the session last", () => {
    const fromPhases = PHASE_NAMES.flatMap((phase) => PHASES[phase].latency ?? []);
    assert.deepEqual(LATENCIES, ["transaction", ...new Set(fromPhases), "session"]);
    assert.deepEqual(LATENCIES, [
      "transaction",
      "connect",
      "banner",
      "ehlo",
      "tls",
      "auth",
      "envelope",
      "data",
      "quit",
      "session",
    ]);
  });

  test("the Result has one latency field and one histogram per latency", () => {
    const result = resultWithEveryLatency();
    // A saved Result keeps the order its fields joined the schema in.
    assert.deepEqual(Object.keys(result.latency), RESULT_LATENCIES.map(latencyField));
    assert.deepEqual([...RESULT_LATENCIES].sort(), [...LATENCIES].sort());
    LATENCIES.forEach((latency, i) => {
      assert.equal(result.latency[latencyField(latency)].count, 1, latency);
      assert.equal(Math.round(result.latency[latencyField(latency)].p99), i + 1, latency);
      assert.ok(result.histograms[latency], latency);
    });
    assert.deepEqual(
      HISTOGRAM_NAMES.filter((name) => name !== "transactionUncorrected"),
      RESULT_LATENCIES,
    );
  });

  test("the reports show one row per latency, in report order", () => {
    assert.deepEqual(
      PHASE_ROWS.map(([label]) => label),
      LATENCIES,
    );
    assert.deepEqual(
      PHASE_ROWS.map(([, field]) => field),
      LATENCIES.map(latencyField),
    );
  });

  test("a latency threshold takes every latency as its phase and measures that field", () => {
    const result = resultWithEveryLatency();
    LATENCIES.forEach((latency, i) => {
      const threshold = parseThreshold(`p99{phase:${latency}}<100ms`);
      assert.equal(Math.round(measure(threshold, result) ?? 0), i + 1, latency);
    });
    assert.equal(measure(parseThreshold("p99<100ms"), result), result.latency.transactionMs.p99);
  });

  test("a phase without a latency of its own is no threshold selector", () => {
    assert.throws(
      () => parseThreshold("p99{phase:helo}<1ms"),
      /unknown phase "helo" \(one of transaction, connect, banner, ehlo, tls, auth, envelope, data, quit, session\)/,
    );
  });
});

describe("docs/reference.md says what the table says", () => {
  const doc = readFileSync(
    fileURLToPath(new URL("../../docs/reference.md", import.meta.url)),
    "utf8",
  );

  test("the --timeout-PHASE row lists every phase with its default, in table order", () => {
    const row = doc.split("\n").find((line) => line.startsWith("| `--timeout-PHASE"));
    assert.ok(row, "no --timeout-PHASE row");
    const listed = [...row.matchAll(/`([a-z]+)`(?: \([^)]*\))? (\d+)s\b/g)].map(
      ([, phase, seconds]) => [phase, Number(seconds) * 1000],
    );
    assert.deepEqual(
      listed,
      PHASE_NAMES.map((phase) => [phase, PHASES[phase].timeoutMs]),
    );
  });

  test("the threshold table names every latency as a phase", () => {
    const row = doc.split("\n").find((line) => line.includes("`{phase:P}`"));
    assert.ok(row, "no {phase:P} row");
    const names = /\(transaction by default; ([a-z, ]+)\)/.exec(row)?.[1].split(", ");
    assert.deepEqual(["transaction", ...(names ?? [])], LATENCIES);
  });
});
