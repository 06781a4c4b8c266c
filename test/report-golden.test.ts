/**
 * Golden files: the terminal summary, the compare table and the JSON of fixed Results. A change
 * to a report shows up as a diff of test/golden/; after checking it, regenerate with
 * MAILVOLLEY_UPDATE_GOLDEN=1 npm test.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { renderCompare } from "../src/report/compare.js";
import { renderJson } from "../src/report/json.js";
import { renderSummary } from "../src/report/terminal.js";
import { fixedResult } from "./helpers/fixed-result.js";

const GOLDEN = fileURLToPath(new URL("../../test/golden/", import.meta.url));
function golden(name: string, actual: string): void {
  const path = `${GOLDEN}${name}`;
  if (process.env.MAILVOLLEY_UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  assert.equal(actual, readFileSync(path, "utf8"), `differs from test/golden/${name}`);
}

describe("golden reports", () => {
  test("terminal summary of a fixed reuse run", () => {
    golden("summary-reuse.txt", renderSummary(fixedResult("reuse"), { color: false }));
  });

  test("terminal summary of a fixed per-message run", () => {
    golden("summary-per-message.txt", renderSummary(fixedResult("per-message"), { color: false }));
  });

  test("compare table of the two", () => {
    const runs = [fixedResult("per-message"), fixedResult("reuse")];
    golden("compare.txt", renderCompare(runs, { color: false }));
  });

  test("JSON of a fixed run", () => {
    golden("result-reuse.json", renderJson(fixedResult("reuse")));
  });

  test("colour only when asked: no escape codes without it", () => {
    const plain = renderSummary(fixedResult("per-message"), { color: false });
    const coloured = renderSummary(fixedResult("per-message"), { color: true });
    assert.ok(!plain.includes("\u001b["));
    assert.ok(coloured.includes("\u001b[31m"));
  });
});
