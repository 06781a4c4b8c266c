/** Option parsing: targets, durations, counts, and the frozen RunConfig. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseCount, parseDuration, parseTarget } from "../src/config/parse.js";
import { buildRunConfig, DEFAULT_TIMEOUTS } from "../src/config/run-config.js";
import { UsageError } from "../src/usage/usage-error.js";

describe("targets", () => {
  const good: [string, unknown][] = [
    ["127.0.0.1:2525", { kind: "tcp", host: "127.0.0.1", port: 2525 }],
    ["mx.example.com", { kind: "tcp", host: "mx.example.com", port: 25 }],
    ["[::1]:2525", { kind: "tcp", host: "::1", port: 2525 }],
    ["[::1]", { kind: "tcp", host: "::1", port: 25 }],
    ["::1", { kind: "tcp", host: "::1", port: 25 }],
    ["unix:/run/smtp.sock", { kind: "unix", path: "/run/smtp.sock" }],
  ];
  for (const [text, expected] of good) {
    test(text, () => assert.deepEqual(parseTarget("target", text), expected));
  }
  for (const bad of [
    "127.0.0.1:0",
    "127.0.0.1:65536",
    "host:2x",
    "[::1",
    "[nothost]:25",
    "unix:",
    ":25",
  ]) {
    test(`rejects ${bad}`, () => assert.throws(() => parseTarget("target", bad), UsageError));
  }
});

describe("durations and counts", () => {
  test("units", () => {
    assert.equal(parseDuration("--wait", "250ms"), 250);
    assert.equal(parseDuration("--wait", "1.5s"), 1500);
    assert.equal(parseDuration("--wait", "2"), 2000);
    assert.equal(parseDuration("--wait", "2m"), 120_000);
    assert.throws(() => parseDuration("--wait", "soon"), /--wait/);
    assert.throws(() => parseDuration("--wait", "-1s"), /--wait/);
  });
  test("counts", () => {
    assert.equal(parseCount("-s", "20", 1), 20);
    assert.equal(parseCount("-s", 20, 1), 20);
    assert.throws(() => parseCount("-s", "0", 1), /out of range/);
    assert.throws(() => parseCount("-s", "2.5", 1), /whole number/);
    assert.throws(() => parseCount("-s", "", 1), /whole number/);
  });
});

describe("RunConfig", () => {
  test("defaults follow smtp-source where it has them, and the config is frozen", () => {
    const config = buildRunConfig({});
    assert.equal(config.target, null);
    assert.equal(config.mode, "reuse");
    assert.equal(config.sessions, 10);
    assert.equal(config.messages, 10_000);
    assert.deepEqual(config.sizes, [{ size: 1024, weight: 1 }]);
    assert.deepEqual(config.timeouts, DEFAULT_TIMEOUTS);
    assert.ok(Object.isFrozen(config));
    assert.match(config.runId, /^[0-9a-f]{12}$/);
  });
  test("--size 1 is refused: a one-octet body cannot end with CRLF", () => {
    assert.throws(() => buildRunConfig({ size: 1 }), /--size.*0 or at least 2/);
    assert.deepEqual(buildRunConfig({ size: 0 }).sizes, [{ size: 0, weight: 1 }]);
  });
  test("per-phase timeouts and random wait", () => {
    const config = buildRunConfig({ timeout: { banner: "5s" }, randomWait: "100ms" });
    assert.equal(config.timeouts.banner, 5000);
    assert.equal(config.timeouts.dot, DEFAULT_TIMEOUTS.dot);
    assert.equal(config.waitMs, 100);
    assert.equal(config.randomWait, true);
  });
});
