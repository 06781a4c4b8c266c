/**
 * The package a user installs: `npm pack` (whose prepack builds dist/), installed globally into
 * a temporary prefix and run from there with `npx`, as a user would, away from this checkout.
 * Installs use npm's cache first (`npm ci` filled it); the registry only for what it lacks.
 * The pack runs in a copy of the checkout (as a fresh clone would, its node_modules linked):
 * its build must not rewrite the dist/ the tests beside it are loading.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { assertChartsDrawn, openInChromium, skipWithoutChromium } from "./helpers/chromium.js";
import { missingLinks } from "./helpers/markdown-links.js";
import { tempDir } from "./helpers/tmp.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NPM_QUIET = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];

/** Run with a bundle file's path: loads it, prints where its first code comes from. */
const SOURCE_OF = `
import { findSourceMap } from "node:module";
import { pathToFileURL } from "node:url";
const url = pathToFileURL(process.argv[1]).href;
await import(url);
// The first line's first mapped column: a chunk may open with esbuild's own helpers, which map
// to no source, and which chunk sorts first changes with the content hashes.
const map = findSourceMap(url);
let source;
for (let column = 0; map && column < 20000 && !source; column += 50) {
  source = map.findEntry(0, column)?.originalSource;
}
console.log(source ?? "no source map");
`;

/** The checkout as a clone has it: no build output, node_modules linked, not copied. */
function cloneOfRoot(into: string): string {
  const skip = new Set(["node_modules", "dist", "schema", ".git"]);
  cpSync(ROOT, into, {
    recursive: true,
    filter: (from) => from === ROOT || !skip.has(from.slice(ROOT.length).split("/")[0]),
  });
  symlinkSync(join(ROOT, "node_modules"), join(into, "node_modules"));
  return into;
}

async function npm(args: string[], cwd: string) {
  return run("npm", args, { cwd, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 });
}

test("npm pack gives a package that installs globally, runs with npx, and writes HTML whose charts draw", async (t) => {
  const work = tempDir("mailvolley-pack-");
  const clone = cloneOfRoot(join(work, "clone"));
  const { stdout: packed } = await npm(["pack", "--json", "--pack-destination", work], clone);
  const [info] = JSON.parse(packed) as [{ filename: string; files: { path: string }[] }];
  const paths = info.files.map((file) => file.path);
  assert.ok(paths.includes("bin/mailvolley.js"), "the bin is packed");
  assert.ok(
    paths.includes("dist/bundle/main.js"),
    "the bundled CLI, which the bin loads, is packed",
  );
  assert.ok(paths.includes("dist/bundle/worker.js"), "the bundled worker entry is packed");
  // The maps are packed, so `node --enable-source-maps` traces an installed CLI into src/*.ts.
  for (const script of paths.filter((p) => p.startsWith("dist/bundle/") && p.endsWith(".js"))) {
    assert.ok(paths.includes(`${script}.map`), `${script}'s source map is packed`);
  }
  assert.ok(paths.includes("schema/result.schema.json"), "the result's JSON Schema is packed");
  assert.ok(!paths.some((path) => path.startsWith("dist/test/")), "tests are not packed");
  assert.ok(!paths.some((path) => path.startsWith("src/")), "TypeScript sources are not packed");
  const tarball = join(work, info.filename);

  // Global install into a prefix of its own, then the bin from that prefix, run from elsewhere.
  const prefix = join(work, "prefix");
  await npm(["install", "--global", "--prefix", prefix, ...NPM_QUIET, tarball], work);
  const bin = join(prefix, "bin", "mailvolley");
  const json = join(work, "run.json");
  const html = join(work, "run.html");
  // What the package loads at run time, each from its installed place: a YAML plan (yaml from
  // the package's node_modules), two workers (the worker entry beside the bundle's chunks), and
  // STARTTLS to the built-in sink (its certificate made by selfsigned, an external lazy import).
  const plan = join(work, "plan.yaml");
  writeFileSync(plan, "messages: 100\nworkers: 2\n");
  const { stdout, stderr } = await run(
    bin,
    ["run", "--plan", plan, "--starttls", "-q", "--json", json, "--html", html],
    { cwd: work },
  );
  assert.equal(stdout, "");
  assert.equal(stderr, "");
  const result = JSON.parse(readFileSync(json, "utf8"));
  assert.equal(result.messages.accepted, 100);
  assert.equal(result.sink.messagesAccepted, 100);
  assert.equal(result.run.options.workers, 2);
  assert.equal(result.latency.tlsMs.count, result.connections.opened, "every session did TLS");
  // diff's statistics: stdlib's CommonJS, required on first use from the package's node_modules
  // (the bundle leaves it there); two results a side are enough for Welch's test to run.
  const diffed = await run(bin, ["diff", "--json", "-", json, json, "--", json, json], {
    cwd: work,
  });
  const diff = JSON.parse(diffed.stdout).diff;
  assert.equal(diff.figures[0].figure, "throughput");
  assert.equal(diff.figures[0].p, 1, "Welch's test ran: the same runs, no difference");
  // The installed package's report, as a user opens it: the chart script travels inside it.
  const reported = join(work, "report.html");
  await run(bin, ["report", json, "--html", reported, "-q"], { cwd: work });
  if (!skipWithoutChromium(t)) {
    assertChartsDrawn(await openInChromium(html));
    assertChartsDrawn(await openInChromium(reported));
  }

  // yargs' locale files found from the installed bundle (scripts/bundle.mjs points yargs' shim
  // at its own place in node_modules): a bad option in German, one line, exit 2.
  const german = await run(bin, ["run", "--bogus"], {
    cwd: work,
    env: { ...process.env, LANG: "de_DE.UTF-8", LC_ALL: "", LC_MESSAGES: "" },
  }).catch((e: { code: number; stderr: string }) => e);
  assert.equal("code" in german ? german.code : 0, 2);
  assert.match(german.stderr, /Unbekanntes Argument: bogus/);

  // Node finds the installed bundle's maps and reads positions in src/*.ts off them.
  const installed = join(prefix, "lib", "node_modules", "mailvolley", "dist", "bundle");
  const chunk = paths.find((p) => /^dist\/bundle\/chunk-.*\.js$/.test(p));
  assert.ok(chunk, "the bundle has shared chunks");
  const { stdout: mapped } = await run(
    process.execPath,
    [
      "--enable-source-maps",
      "--input-type=module",
      "-e",
      SOURCE_OF,
      join(installed, basename(chunk)),
    ],
    { cwd: work },
  );
  assert.match(mapped.trim(), /\/src\/[a-z-]+\/[a-z-]+\.ts$/);
  // report validates against the packed schema with ajv, both found from the installed layout.
  const summary = await run(bin, ["report", json], { cwd: work });
  assert.match(summary.stdout, /100/);

  // The README's links, and the docs' own, resolve in the installed copy: docs/ is packed.
  const installedRoot = join(prefix, "lib", "node_modules", "mailvolley");
  const pages = ["README.md", ...paths.filter((p) => /^docs\/[^/]+\.md$/.test(p))];
  assert.ok(pages.includes("docs/reference.md"), "the docs are packed");
  for (const page of pages) {
    assert.deepEqual(missingLinks(installedRoot, page), [], `${page}'s links, installed`);
  }

  // npx: the tarball as a package, nothing installed globally.
  const { stdout: version } = await npm(
    ["exec", "--yes", ...NPM_QUIET, "--package", tarball, "--", "mailvolley", "--version"],
    work,
  );
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
  assert.equal(version.trim(), pkg.version);
});
