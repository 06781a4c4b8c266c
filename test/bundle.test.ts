/**
 * bin/mailvolley.js runs dist/bundle/ (scripts/bundle.mjs, esbuild over tsc's dist/src), while
 * the other tests import dist/src: these check that the bin really runs the bundle, that the
 * bundle was built from the dist/src beside it, and that it behaves as dist/src does where the
 * bundling could change something (yargs' own files, the worker entry, the version).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BIN, mailvolley, type Outcome, startMailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = join(ROOT, "dist", "bundle");
const UNBUNDLED = join(ROOT, "dist", "src", "cli", "main.js");

/** Every .js file under `dir`. */
function scripts(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".js"))
    .map((name) => join(dir, name));
}

/** `node SCRIPT ARGS` to completion, with `env` over this process's environment. */
function node(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return startMailvolley(args, undefined, env, script).done;
}

test("the bin imports the bundle, and the bundle is newer than every file of dist/src", () => {
  // A dynamic import, after the lines that hold early signals (static imports would run first).
  assert.match(readFileSync(BIN, "utf8"), /^await import\("\.\.\/dist\/bundle\/main\.js"\);$/m);
  const bundled = statSync(join(BUNDLE, "main.js")).mtimeMs;
  statSync(join(BUNDLE, "worker.js"));
  for (const file of scripts(join(ROOT, "dist", "src"))) {
    assert.ok(
      statSync(file).mtimeMs <= bundled,
      `dist/bundle is older than ${file}: build with npm run build (tsc, then the bundle)`,
    );
  }
});

test("the bundle answers as dist/src does: help, a bad option, yargs' messages in German", async () => {
  const german = { LANG: "de_DE.UTF-8", LC_ALL: "", LC_MESSAGES: "" };
  for (const args of [["run", "--help"], ["--help"], ["run", "--bogus"], ["run", "-c", "0"]]) {
    const bundled = await node(BIN, args, german);
    assert.deepEqual(bundled, await node(UNBUNDLED, args, german), args.join(" "));
  }
  // The comparison is not empty-handed: yargs' locale files were found by both.
  const { code, stderr } = await node(BIN, ["run", "--bogus"], german);
  assert.equal(code, 2);
  assert.match(stderr, /Unbekanntes Argument: bogus/);
});

test("the bundle names no function the client makes per session or connection", () => {
  const code = scripts(BUNDLE)
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
  // esbuild's keepNames helper: `var i=(n,t)=>K(n,"name",{value:t,configurable:!0})`.
  const helper =
    /\b([\w$]+)=\(([\w$]+),([\w$]+)\)=>[\w$]+\(\2,"name",\{value:\3,configurable:!0\}\)/;
  const name = helper.exec(code)?.[1];
  assert.ok(name, "the bundle keeps names (keepNames): its helper is where this test looks");
  const named = (fn: string) => code.includes(`,"${fn}")`);
  assert.ok(named("camel"), "a module-level function keeps its name, as ever");
  // Each would cost a property dictionary per session (src/client/unnamed.ts).
  const perSession = ["wrote", "owns", "secured", "waited", "keep", "onBytes", "callback"];
  assert.deepEqual(perSession.filter(named), []);
});

test("a run through the bin with --workers 2 finds the bundle's worker entry", async () => {
  const json = join(tempDir("mailvolley-bundle-"), "run.json");
  const { code, stderr } = await mailvolley([
    "run",
    "-m",
    "200",
    "--workers",
    "2",
    "-q",
    "--json",
    json,
  ]);
  assert.equal(stderr, "");
  assert.equal(code, 0);
  const result = JSON.parse(readFileSync(json, "utf8"));
  assert.equal(result.messages.accepted, 200);
  assert.equal(result.run.options.workers, 2);
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  assert.equal(result.run.version, pkg.version, "the version the build put in the bundle");
});

test("the bundle leaves the Result's definition out: the bin reads the shipped schema file", () => {
  // TypeBox and the definition's builders are the build's (scripts/schema.mjs writes the file);
  // a bin that loaded them would pay for them at every start.
  for (const file of scripts(BUNDLE)) {
    assert.doesNotMatch(readFileSync(file, "utf8"), /TypeBox\.Kind/, file);
  }
});

test("the bundle leaves stdlib's statistics to node_modules: required on first use by diff", () => {
  // Bundled, stdlib's CommonJS would require Node's builtins where an ES module cannot; left
  // out, a run without --repeat never loads it. test/diff-cli.test.ts runs it through the bin.
  for (const file of scripts(BUNDLE)) {
    assert.doesNotMatch(readFileSync(file, "utf8"), /Welch two-sample t-test/, file);
  }
});
