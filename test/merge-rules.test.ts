/**
 * Every number a Result can hold has a rule for how `merge` combines it across shards
 * (result/merge-rules.ts), and the rules that say "sum" hold for a real merge.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergeResults } from "../src/result/merge-results.js";
import { MERGE_RULES, mergeRuleOf } from "../src/result/merge-rules.js";
import type { Result } from "../src/result/result.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { readSchema } from "./helpers/schema-fields.js";
import { numberPaths } from "./helpers/schema-paths.js";

/** Each number of a value with its path, lists and maps not walked (their rows differ). */
function numbers(value: unknown, path = ""): [string, number][] {
  if (typeof value === "number") return [[path, value]];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    numbers(child, path === "" ? key : `${path}.${key}`),
  );
}

describe("merge rules", () => {
  test("every number of the schema has a rule", () => {
    const paths = numberPaths(readSchema());
    assert.ok(paths.includes("messages.accepted") && paths.includes("classes[].apdex"));
    const missing = paths.filter((path) => mergeRuleOf(path) === null);
    assert.deepEqual(missing, [], "add a row to MERGE_RULES in src/result/merge-rules.ts");
  });

  test("every rule names a field of the schema", () => {
    const paths = numberPaths(readSchema());
    for (const { path } of MERGE_RULES) {
      assert.ok(
        paths.some((p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[]`)),
        `${path} is no number of the schema, nor a section holding one`,
      );
    }
  });

  test("a sum is the shards' values added, for a real merge", () => {
    const a = fixedResult("reuse");
    const b = fixedResult("reuse");
    // A second shard that differs from the first: its own sink count, as a self-test's.
    const withSink = (r: Result, n: number): Result => ({
      ...r,
      sink: { messagesAccepted: n, sessions: 2, connectionsRefused: n % 3 },
    });
    const parts = [withSink(a, 390), withSink(b, 391)];
    const merged = mergeResults(parts);
    const checked: string[] = [];
    for (const [path, value] of numbers(merged)) {
      if (mergeRuleOf(path)?.combine !== "sum") continue;
      const parts0 = numbers(parts[0]).find(([p]) => p === path)?.[1] ?? 0;
      const parts1 = numbers(parts[1]).find(([p]) => p === path)?.[1] ?? 0;
      assert.equal(value, parts0 + parts1, `${path}: ${parts0} + ${parts1}`);
      checked.push(path);
    }
    for (const path of [
      "messages.accepted",
      "errorClasses.rateLimited",
      "sink.connectionsRefused",
    ]) {
      assert.ok(checked.includes(path), `${path} was checked`);
    }
  });
});
