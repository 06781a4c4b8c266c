/**
 * README.md is the user's first page and docs/ holds the rest: every relative link in them
 * points at a file that exists, and README.md stays short with the two first commands near
 * its top.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { missingLinks, relativeLinks } from "./helpers/markdown-links.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f)),
];

describe("the documentation's links", () => {
  for (const page of PAGES) {
    test(`every relative link in ${page} resolves to a file`, () => {
      assert.deepEqual(missingLinks(ROOT, page), [], `${page} links to files that do not exist`);
    });
  }

  test("the package ships every page and picture they link to (package.json files)", () => {
    const { files } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      files: string[];
    };
    const shipped = (path: string) =>
      files.some((entry) => (entry.endsWith("/") ? path.startsWith(entry) : path === entry));
    const unshipped = PAGES.flatMap((page) =>
      [page, ...relativeLinks(ROOT, page)].filter((path) => !shipped(path)),
    );
    assert.deepEqual(unshipped, [], "an installed copy would lack these");
  });
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
