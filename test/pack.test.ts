/**
 * The package a user installs: `npm pack` (whose prepack builds dist/), installed globally into
 * a temporary prefix and run from there with `npx`, as a user would, away from this checkout.
 * Installs use npm's cache first (`npm ci` filled it); the registry only for what it lacks.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempDir } from "./helpers/tmp.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NPM_QUIET = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];

async function npm(args: string[], cwd: string) {
  return run("npm", args, { cwd, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 });
}

test("npm pack gives a package that installs globally and runs with npx", async () => {
  const work = tempDir("mailvolley-pack-");
  const { stdout: packed } = await npm(["pack", "--json", "--pack-destination", work], ROOT);
  const [info] = JSON.parse(packed) as [{ filename: string; files: { path: string }[] }];
  const paths = info.files.map((file) => file.path);
  assert.ok(paths.includes("bin/mailvolley.js"), "the bin is packed");
  assert.ok(
    paths.includes("dist/bundle/main.js"),
    "the bundled CLI, which the bin loads, is packed",
  );
  assert.ok(paths.includes("dist/bundle/worker.js"), "the bundled worker entry is packed");
  assert.ok(!paths.some((path) => path.endsWith(".map")), "source maps are not packed");
  assert.ok(paths.includes("schema/result.schema.json"), "the result's JSON Schema is packed");
  assert.ok(!paths.some((path) => path.startsWith("dist/test/")), "tests are not packed");
  assert.ok(!paths.some((path) => path.startsWith("src/")), "TypeScript sources are not packed");
  const tarball = join(work, info.filename);

  // Global install into a prefix of its own, then the bin from that prefix, run from elsewhere.
  const prefix = join(work, "prefix");
  await npm(["install", "--global", "--prefix", prefix, ...NPM_QUIET, tarball], work);
  const bin = join(prefix, "bin", "mailvolley");
  const json = join(work, "run.json");
  const { stdout, stderr } = await run(bin, ["run", "-m", "100", "-q", "--json", json], {
    cwd: work,
  });
  assert.equal(stdout, "");
  assert.equal(stderr, "");
  const result = JSON.parse(readFileSync(json, "utf8"));
  assert.equal(result.messages.accepted, 100);
  assert.equal(result.sink.messagesAccepted, 100);
  // report validates against the packed schema with ajv, both found from the installed layout.
  const reported = await run(bin, ["report", json], { cwd: work });
  assert.match(reported.stdout, /100/);

  // npx: the tarball as a package, nothing installed globally.
  const { stdout: version } = await npm(
    ["exec", "--yes", ...NPM_QUIET, "--package", tarball, "--", "mailvolley", "--version"],
    work,
  );
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  assert.equal(version.trim(), pkg.version);
});
