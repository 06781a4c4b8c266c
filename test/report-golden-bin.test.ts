/**
 * The golden reports (test/golden/, report-golden.test.ts renders them from tsc's dist/src) as
 * users get them: `mailvolley report FILE` through bin/mailvolley.js, the minified bundle. The
 * same bytes, so what the golden files pin down holds for the shipped CLI too; and the bin's
 * HTML equals dist/src's renderHtml, chart script included.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { renderHtml } from "../src/report/html.js";
import { mailvolley } from "./helpers/cli.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { tempDir } from "./helpers/tmp.js";

const GOLDEN = fileURLToPath(new URL("../../test/golden/", import.meta.url));
const golden = (name: string) => readFileSync(join(GOLDEN, name), "utf8");

/** `mailvolley report` of `doc` saved to a file, with ARGS after it; its stdout. */
async function report(doc: unknown, args: string[] = []): Promise<string> {
  const file = join(tempDir("mailvolley-golden-"), "result.json");
  writeFileSync(file, JSON.stringify(doc));
  const { code, stdout, stderr } = await mailvolley(["report", file, ...args]);
  assert.equal(stderr, "");
  assert.equal(code, 0);
  return stdout;
}

test("the bin's terminal summaries and compare table are the golden files", async () => {
  assert.equal(await report(fixedResult("reuse")), golden("summary-reuse.txt"));
  assert.equal(await report(fixedResult("per-message")), golden("summary-per-message.txt"));
  const compare = {
    schema: "mailvolley/compare@1",
    runs: [fixedResult("per-message"), fixedResult("reuse")],
  };
  assert.equal(await report(compare), golden("compare.txt"));
});

test("the bin's JSON is the golden file, and its HTML is dist/src's", async () => {
  const dir = tempDir("mailvolley-golden-");
  const json = join(dir, "out.json");
  const html = join(dir, "out.html");
  const doc = fixedResult("reuse");
  assert.equal(await report(doc, ["-q", "--json", json, "--html", html]), "");
  assert.equal(readFileSync(json, "utf8"), golden("result-reuse.json"));
  const page = readFileSync(html, "utf8");
  assert.equal(page, renderHtml([JSON.parse(JSON.stringify(doc))]));
  assert.match(page, /mailvolleyCharts\.drawCharts\(data\.runs, uPlot, data\.labels\);/);
});
