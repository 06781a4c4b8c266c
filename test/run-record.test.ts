/**
 * Every result says what was run (issue 13 item 3): the options, the load in one line, the
 * version, host and Node.js, and the load line in each report.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { describe, test } from "node:test";
import { buildRunConfig, type RawRunOptions } from "../src/config/run-config.js";
import { describeLoad, normalisedOptions, runRecord } from "../src/config/run-record.js";
import { renderHtml } from "../src/report/html.js";
import { renderSummary } from "../src/report/terminal.js";
import type { Result } from "../src/result/result.js";
import { executeRun } from "../src/run/run.js";
import { mailvolley } from "./helpers/cli.js";

const load = (raw: RawRunOptions) =>
  describeLoad(buildRunConfig({ target: "127.0.0.1:25", ...raw }));

describe("run record", () => {
  test("the load in one line, for each load model", () => {
    assert.equal(
      load({ rate: "2000", duration: "10s", sessions: 20 }),
      "constant arrival 2,000/s for 10 s, 20 sessions, 1 KiB",
    );
    assert.equal(
      load({ messages: 10000, sessions: 1, size: "512" }),
      "closed, 10,000 messages, 1 session, 512 B",
    );
    assert.equal(
      load({ ramp: "0s:100,30s:1000,60s:1000", duration: "60s", sessions: 50 }),
      "arrival ramp 100/s → 1,000/s over 60 s, 50 sessions, 1 KiB",
    );
    assert.equal(load({ duration: "5s", sessions: 2 }), "closed, for 5 s, 2 sessions, 1 KiB");
  });

  test("options as JSON: the target as written, Infinity kept, no password", () => {
    const config = buildRunConfig({ target: "127.0.0.1:25", duration: "5s", auth: "u:secret" });
    const options = normalisedOptions(config);
    assert.equal(options.target, "127.0.0.1:25");
    assert.equal(options.messages, "Infinity");
    assert.deepEqual((options.auth as { pass: string }).pass, "****");
    assert.ok(!JSON.stringify(options).includes("secret"));
  });

  test("the record is taken once, after the load", async () => {
    const config = buildRunConfig({ sessions: 1, messages: 5 } as RawRunOptions);
    let calls = 0;
    let started = false;
    let startedFirst = false;
    const { result } = await executeRun(
      config,
      { onStart: () => (started = true) },
      {
        run: () => {
          calls++;
          startedFirst = started;
          return runRecord(config);
        },
      },
    );
    assert.equal(calls, 1);
    assert.ok(startedFirst, "the record was taken before the load started");
    assert.equal(result.messages.accepted, 5);
    assert.deepEqual(result.run, runRecord(config));
    assert.deepEqual(Object.keys(result).slice(0, 3), ["schema", "mode", "run"]);
  });

  test("a self-test records version, host, Node.js and its load, and the reports show it", async () => {
    const out = await mailvolley([
      "run",
      "-s",
      "2",
      "-m",
      "50",
      "--workers",
      "1",
      "--json",
      "-",
      "-q",
    ]);
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(out.stdout) as Result;
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    assert.ok(result.run);
    assert.equal(result.run.version, pkg.version);
    assert.equal(result.run.node, process.version);
    assert.equal(result.run.host, hostname());
    assert.equal(result.run.load, "closed, 50 messages, 2 sessions, 1 KiB");
    assert.equal(result.run.options.target, null, "a self-test names no target");
    assert.equal(result.run.options.sessions, 2);
    assert.match(
      renderSummary(result, { color: false }),
      /^Load {10}closed, 50 messages, 2 sessions, 1 KiB$/m,
    );
    assert.match(renderHtml([result]), /reuse load: closed, 50 messages, 2 sessions, 1 KiB/);
  });
});
