/**
 * MAILVOLLEY_TIMELINE=1 (src/stats/timeline.ts): the marks from process start to exit on stderr,
 * in time order, read by bench/fixed-cost.ts; nothing of it without the variable.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { startMailvolley } from "./helpers/cli.js";

const MARK = /^mailvolley timeline: +([\d.]+) ms {2}(.*)$/;

describe("MAILVOLLEY_TIMELINE", () => {
  test("a self-test prints its marks in order, from process start to exit", async () => {
    const args = ["run", "-m", "200", "-s", "2", "--quiet"];
    const out = await startMailvolley(args, 60_000, { MAILVOLLEY_TIMELINE: "1" }).done;
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stderr.trimEnd().split("\n");
    const marks = lines.map((line) => MARK.exec(line));
    assert.ok(
      marks.every((m) => m !== null),
      `a line that is not a mark: ${out.stderr}`,
    );
    const names = marks.map((m) => m![2].replace(/ \(.*/, ""));
    const at = marks.map((m) => Number(m![1]));
    assert.deepEqual(
      at,
      [...at].sort((a, b) => a - b),
      "marks out of time order",
    );
    assert.match(marks[0]![2], /^process start \(epoch \d+\.\d+ ms\)$/);
    assert.match(marks.at(-1)![2], /^exit \(CPU \d+\.\d ms, every thread\)$/);
    assert.match(marks[names.indexOf("modules loaded")]![2], /^modules loaded \(CPU \d+\.\d ms\)$/);
    for (const name of ["modules loaded", "sink listening", "first connect", "last reply"]) {
      assert.ok(names.includes(name), `no "${name}" mark in ${names.join(", ")}`);
    }
    assert.ok(names.indexOf("sink listening") < names.indexOf("first connect"));
    assert.ok(names.indexOf("first connect") < names.indexOf("last reply"));
  });

  test("without the variable, a quiet run prints nothing", async () => {
    const out = await startMailvolley(["run", "-m", "20", "-s", "1", "--quiet"], 60_000, {
      MAILVOLLEY_TIMELINE: "",
    }).done;
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stderr, "");
  });
});
