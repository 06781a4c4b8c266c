/**
 * skipHelpCache (src/cli/help-cache.ts): after a command's handler, yargs holds no rendered help,
 * and --help still prints the command's whole help.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import yargs, { type Argv } from "yargs";
import { skipHelpCache } from "../src/cli/help-cache.js";
import { mailvolley } from "./helpers/cli.js";

type Internal = {
  getInternalMethods(): { getUsageInstance(): { hasCachedHelpMessage(): boolean } };
};

async function helpCachedAfterHandler(skip: boolean): Promise<boolean> {
  let ran = false;
  const cli = yargs(["go", "--n", "1"]).command(
    "go",
    "a command",
    (y: Argv) => y.option("n", { type: "string" }),
    () => {
      ran = true;
    },
  );
  if (skip) skipHelpCache(cli);
  await cli.parseAsync();
  assert.ok(ran, "the handler ran");
  return (cli as unknown as Internal)
    .getInternalMethods()
    .getUsageInstance()
    .hasCachedHelpMessage();
}

test("yargs caches a command's help after its handler, unless skipHelpCache", async () => {
  assert.equal(await helpCachedAfterHandler(false), true, "yargs no longer caches: drop the skip");
  assert.equal(await helpCachedAfterHandler(true), false);
});

test("run --help prints the whole help of run", async () => {
  const out = await mailvolley(["run", "--help"]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /^mailvolley run \[target\]/);
  assert.match(out.stdout, /--sessions/);
  assert.match(out.stdout, /Examples:/);
});
