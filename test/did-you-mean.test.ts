/** Mistyped commands and options get the closest known one, as git and cargo suggest it. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { closest, editDistance, withSuggestions } from "../src/cli/did-you-mean.js";

const BIN = fileURLToPath(new URL("../../bin/mailvolley.js", import.meta.url));

describe("did you mean", () => {
  test("edit distance counts a swap of neighbours as one edit", () => {
    assert.equal(editDistance("sessions", "sessions"), 0);
    assert.equal(editDistance("sesions", "sessions"), 1);
    assert.equal(editDistance("pasue", "pause"), 1);
    assert.equal(editDistance("", "abc"), 3);
  });

  test("the closest candidate within reach, a unique prefix, or nothing", () => {
    const options = ["sessions", "messages", "size", "seed", "threshold", "html", "json"];
    assert.equal(closest("sesions", options), "sessions");
    assert.equal(closest("thresold", options), "threshold");
    assert.equal(closest("jsn", options), "json");
    assert.equal(closest("thres", options), "threshold");
    assert.equal(closest("s", options), null);
    assert.equal(closest("zzz", options), null);
    assert.equal(closest("se", options), null, "a prefix of several suggests none");
  });

  test("yargs' message gains the suggestions, and stays as it was without one", () => {
    const known = { commands: ["run", "sink"], options: ["sessions", "json"], commandGiven: true };
    assert.equal(
      withSuggestions("Unknown arguments: sesions, jsno", known),
      "Unknown arguments: sesions, jsno; did you mean --sessions?; did you mean --json?",
    );
    assert.equal(withSuggestions("Unknown argument: zzz", known), "Unknown argument: zzz");
    assert.equal(
      withSuggestions("Unknown argument: rnu", { ...known, commandGiven: false }),
      "Unknown argument: rnu; did you mean the command run?",
    );
  });

  test("the command line: one line, exit 2, the command's own help named", () => {
    const cases: [string[], string][] = [
      [
        ["run", "--sesions", "3"],
        "mailvolley: Unknown argument: sesions; did you mean --sessions? (see mailvolley run --help)",
      ],
      [
        ["rnu"],
        "mailvolley: Unknown argument: rnu; did you mean the command run? (see mailvolley --help)",
      ],
      [
        ["sink", "--lisen", "x"],
        "mailvolley: Unknown argument: lisen; did you mean --listen? (see mailvolley sink --help)",
      ],
    ];
    for (const [args, line] of cases) {
      const out = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
      assert.equal(out.status, 2, args.join(" "));
      assert.equal(out.stderr, `${line}\n`);
    }
  });
});
