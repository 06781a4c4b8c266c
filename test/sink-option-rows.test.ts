/**
 * The sink's option table is the one list: every row shows in `sink --help`, every row a
 * self-test may take shows as --sink-NAME in `run --help` and `compare --help`, and a given
 * --sink-NAME reaches the self-test's sink. Run through the built bin.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SINK_OPTIONS } from "../src/config/sink-option-table.js";
import { mailvolley } from "./helpers/cli.js";

const ROWS = Object.entries(SINK_OPTIONS);
const EMBEDDED = ROWS.filter(([, spec]) => !("embedded" in spec)).map(([flag]) => flag);
const COMMAND_ONLY = ROWS.filter(([, spec]) => "embedded" in spec).map(([flag]) => flag);

/** The option names a help text lists, one per `--name` at the start of a line. */
function helpOptions(help: string): Set<string> {
  return new Set([...help.matchAll(/^\s+(?:-\w, )?--([\w-]+)/gm)].map((m) => m[1]));
}

describe("sink option rows", () => {
  test("every row is in sink --help; every embedded row is --sink-NAME in run and compare", async () => {
    const sink = await mailvolley(["sink", "--help"]);
    assert.equal(sink.code, 0, sink.stderr);
    const sinkHelp = helpOptions(sink.stdout);
    for (const [flag] of ROWS) assert.ok(sinkHelp.has(flag), `sink --help lacks --${flag}`);
    assert.ok(EMBEDDED.length > 20, String(EMBEDDED.length));
    for (const command of ["run", "compare"]) {
      const out = await mailvolley([command, "--help"]);
      assert.equal(out.code, 0, out.stderr);
      const help = helpOptions(out.stdout);
      for (const flag of EMBEDDED) {
        assert.ok(help.has(`sink-${flag}`), `${command} --help lacks --sink-${flag}`);
      }
      for (const flag of COMMAND_ONLY) {
        assert.ok(!help.has(`sink-${flag}`), `${command} --help offers --sink-${flag}`);
      }
    }
  });

  test("--sink-fault reaches the self-test's sink: dot:451 answers every second BDAT LAST", async () => {
    const out = await mailvolley([
      "run",
      "-m",
      "20",
      "-s",
      "1",
      "--chunking",
      "--sink-fault",
      "dot:451:every=2",
      "--json",
      "-",
      "-q",
    ]);
    const result = JSON.parse(out.stdout);
    assert.equal(result.messages.accepted, 10, out.stderr);
    assert.equal(result.messages.rejected, 10);
    assert.equal(result.sink.messagesAccepted, 10);
  });

  test("a bad --sink-NAME is one line naming it, exit 2, before any run", async () => {
    for (const [args, line] of [
      [["--sink-fault", "dot:maybe"], /^mailvolley: --sink-fault dot:maybe: unknown action/],
      [["--sink-max-recipients", "x"], /^mailvolley: --sink-max-recipients x: give a whole number/],
      [["--sink-max-message-rate", "5/xs"], /^mailvolley: --sink-max-message-rate 5\/xs: /],
      [
        ["--sink-idle-timeout", "soon"],
        /^mailvolley: --sink-idle-timeout: "soon" is not a duration/,
      ],
    ] as const) {
      const out = await mailvolley(["run", "-m", "1", ...args]);
      assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
      assert.match(out.stderr, line);
      assert.equal(out.stderr.trim().split("\n").length, 1, out.stderr);
    }
  });
});
