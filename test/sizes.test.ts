/**
 * Sizes the style guide holds the code to (issue 11, STYLE.md): no file in src/ over 400 lines,
 * no function outside the tests over 60 (a function is counted from its first line to its
 * closing brace, nested functions inside it included).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { functionsOf, lineCount, readSources } from "./helpers/source-tree.js";

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 60;
/** Functions over the limit that issue 11 has not yet split: a list that may only shrink. */
const FUNCTION_DEBT: string[] = [];

describe("sizes", () => {
  const sources = readSources("src");

  test("the reader sees the files and their functions", () => {
    assert.ok(sources.length > 50, `${sources.length} files`);
    const spans = sources.flatMap(functionsOf);
    assert.ok(spans.length > 500, `${spans.length} functions`);
    assert.ok(spans.some((s) => / constructor$/.test(s.where)));
    assert.ok(spans.some((s) => / \(anonymous\)$/.test(s.where)));
  });

  test(`no file in src/ is over ${MAX_FILE_LINES} lines`, () => {
    const long = sources
      .map((file) => ({ path: file.path, lines: lineCount(file.text) }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.path}: ${f.lines} lines`);
    assert.deepEqual(long, [], `${long.length} files over ${MAX_FILE_LINES} lines`);
  });

  test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = sources
      .flatMap(functionsOf)
      .filter((span) => span.lines > MAX_FUNCTION_LINES)
      .map((span) => span.where.replace(/:\d+ /, " "));
    assert.deepEqual(
      long,
      FUNCTION_DEBT,
      `${long.length} functions over ${MAX_FUNCTION_LINES} lines`,
    );
  });

  test("lines are counted as wc -l counts them, functions from first line to last", () => {
    assert.equal(lineCount(""), 0);
    assert.equal(lineCount("a\nb\n"), 2);
    assert.equal(lineCount("a\nb"), 2);
    const [file] = readSources("test/helpers").filter((f) => f.path.endsWith("/child.ts"));
    const spans = functionsOf(file);
    const waitExit = spans.find((s) => / waitExit$/.test(s.where));
    assert.ok(waitExit, spans.map((s) => s.where).join(", "));
    const start = Number(waitExit.where.split(":")[1].split(" ")[0]);
    const lines = file.text.split("\n");
    assert.match(lines[start - 1], /^export function waitExit\(/);
    assert.equal(lines[start - 1 + waitExit.lines - 1], "}");
  });
});
