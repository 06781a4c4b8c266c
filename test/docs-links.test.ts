/**
 * README.md is the user's first page and docs/ holds the rest: every relative link in them
 * points at a file that exists, and README.md stays short with the two first commands near
 * its top.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f)),
];

/** The targets of inline Markdown links `[text](target)` and images, code spans left out. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    ([, target]) => target,
  );
}

function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#");
}

describe("the documentation's links", () => {
  for (const page of PAGES) {
    test(`every relative link in ${page} resolves to a file`, () => {
      const text = readFileSync(join(ROOT, page), "utf8");
      const missing = linkTargets(text)
        .filter(isRelative)
        .filter((target) => {
          const path = decodeURIComponent(target.split("#")[0] ?? "");
          return !existsSync(join(ROOT, dirname(page), path));
        });
      assert.deepEqual(missing, [], `${page} links to files that do not exist`);
    });
  }
});

describe("README.md is a first page", () => {
  const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");

  test("it has at most 300 lines", () => {
    const count = lines.at(-1) === "" ? lines.length - 1 : lines.length;
    assert.ok(count <= 300, `README.md has ${count} lines; move the detail into docs/`);
  });

  test("its first 60 lines give `npm ci && npm start` and `npm test`", () => {
    const top = lines.slice(0, 60).join("\n");
    assert.ok(
      top.includes("npm ci && npm start"),
      "no `npm ci && npm start` in the first 60 lines",
    );
    assert.ok(/(^|[^:\w])npm test\b/m.test(top), "no `npm test` in the first 60 lines");
  });
});
