/**
 * The image's build stage (deploy/kubernetes/Containerfile) without a container engine: what its
 * COPY lines bring into the build context, and nothing else, must build (`npm run build`) and
 * pack everything package.json's "files" ships. A file the build or the package needs that the
 * Containerfile forgets (it once packed no schema/) fails here, not in a user's image.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, readFileSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempDir } from "./helpers/tmp.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CONTAINERFILE = join(ROOT, "deploy", "kubernetes", "Containerfile");

/** The build stage's COPY lines (the first FROM up to the next), as [sources, destination]. */
function buildStageCopies(text: string): [string[], string][] {
  const stages = text.split(/^FROM /m).slice(1);
  return stages[0]
    .split("\n")
    .filter((line) => line.startsWith("COPY ") && !line.includes("--from"))
    .map((line) => {
      const words = line.split(/\s+/).slice(1);
      return [words.slice(0, -1), words[words.length - 1]];
    });
}

test("the Containerfile's build stage copies all that npm run build reads and npm pack ships", async () => {
  const context = tempDir("mailvolley-image-");
  for (const [sources, destination] of buildStageCopies(readFileSync(CONTAINERFILE, "utf8"))) {
    for (const source of sources) {
      const into = destination.endsWith("/") ? join(destination, basename(source)) : destination;
      cpSync(join(ROOT, source), join(context, into), { recursive: true });
    }
  }
  // `npm ci` in the image; here the checkout's own modules, the same lock file.
  symlinkSync(join(ROOT, "node_modules"), join(context, "node_modules"));
  await run("npm", ["run", "-s", "build"], { cwd: context, maxBuffer: 16 * 1024 * 1024 });
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--dry-run", "--json"], {
    cwd: context,
    maxBuffer: 16 * 1024 * 1024,
  });
  const paths = (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] };
  for (const entry of pkg.files.filter((f) => !f.startsWith("!"))) {
    assert.ok(
      paths.some((path) => path === entry || path.startsWith(entry)),
      `package.json "files" has ${entry}, the image's package has none of it: COPY it`,
    );
  }
  for (const needed of ["bin/mailvolley.js", "dist/bundle/main.js", "schema/result.schema.json"]) {
    assert.ok(paths.includes(needed), `the image's package lacks ${needed}`);
  }
});
