/** Colour: on a terminal unless NO_COLOR; FORCE_COLOR, --color and --no-color decide otherwise. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { colorWanted } from "../src/cli/color.js";

const BIN = fileURLToPath(new URL("../../bin/mailvolley.js", import.meta.url));
const ESC = "\u001b[";

test("the rule: NO_COLOR wins, FORCE_COLOR forces, else a terminal", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  assert.equal(colorWanted(tty, {}), true);
  assert.equal(colorWanted(pipe, {}), false);
  assert.equal(colorWanted(tty, { NO_COLOR: "1" }), false);
  assert.equal(colorWanted(tty, { NO_COLOR: "" }), true, "an empty NO_COLOR is unset");
  assert.equal(colorWanted(pipe, { FORCE_COLOR: "1" }), true);
  assert.equal(colorWanted(tty, { FORCE_COLOR: "0" }), false);
  assert.equal(colorWanted(pipe, { NO_COLOR: "1", FORCE_COLOR: "1" }), false);
});

test("--color colours a piped summary; NO_COLOR and --no-color keep it plain", () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const { NO_COLOR: _n, FORCE_COLOR: _f, ...rest } = process.env;
    const out = spawnSync(process.execPath, [BIN, "run", "-m", "50", "-s", "2", ...args], {
      encoding: "utf8",
      env: { ...rest, ...env },
    });
    assert.equal(out.status, 0, out.stderr);
    return out.stdout;
  };
  assert.ok(!run([]).includes(ESC), "a pipe is plain");
  assert.ok(run(["--color"]).includes(ESC));
  assert.ok(run([], { FORCE_COLOR: "1" }).includes(ESC));
  assert.ok(!run(["--no-color"], { FORCE_COLOR: "1" }).includes(ESC));
  assert.ok(!run([], { NO_COLOR: "1", FORCE_COLOR: "1" }).includes(ESC));
});
