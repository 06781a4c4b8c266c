/**
 * Runs the test lanes: `node scripts/test-lanes.mjs unit peers artifact` (in that order, each
 * to its end; the exit code is non-zero when any lane failed), or `--list` to print every
 * built test file by lane as JSON. test/lanes.json names the unit and artifact files; every
 * other dist/test/*.test.js is in the peers lane, so a file nobody classified still runs, one
 * at a time, as the whole suite used to.
 *
 *   unit      pure module tests, several files at once
 *   peers     real sockets and peer servers (smtp-sink, Postfix, aiosmtpd, swaks ...), one file at a time
 *   artifact  bin/mailvolley.js as built, the packed install, Chromium, one file at a time
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const built = join(root, "dist", "test");
const manifest = JSON.parse(readFileSync(join(root, "test", "lanes.json"), "utf8"));

/** Every built test file by lane; a file named in both unit and artifact is an error. */
function lanes() {
  const files = readdirSync(built)
    .filter((f) => f.endsWith(".test.js"))
    .sort();
  const unit = new Set(manifest.unit);
  const artifact = new Set(manifest.artifact);
  const both = manifest.unit.filter((f) => artifact.has(f));
  if (both.length > 0) throw new Error(`test/lanes.json: in unit and artifact: ${both.join(" ")}`);
  return {
    unit: files.filter((f) => unit.has(f)),
    peers: files.filter((f) => !unit.has(f) && !artifact.has(f)),
    artifact: files.filter((f) => artifact.has(f)),
  };
}

// Unit files share nothing (no port, no process, no timing): as many at once as there are
// cores, two at least. Peers and artifact files start servers and processes that time out on
// a busy machine: one at a time, as `npm test` always ran them.
const CONCURRENCY = {
  unit: Math.max(2, availableParallelism()),
  peers: 1,
  artifact: 1,
};

const args = process.argv.slice(2);
const all = lanes();
if (args.includes("--list")) {
  console.log(JSON.stringify(all, null, 2));
  process.exit(0);
}
const unknown = args.filter((a) => !(a in all));
if (args.length === 0 || unknown.length > 0) {
  console.error(`test-lanes: name lanes to run: ${Object.keys(all).join(", ")} (or --list)`);
  process.exit(2);
}
const failed = [];
for (const lane of args) {
  console.log(`\n# lane ${lane}: ${all[lane].length} files, ${CONCURRENCY[lane]} at a time`);
  // node --test with no file would run every test it finds: an empty lane runs nothing.
  if (all[lane].length === 0) continue;
  const files = all[lane].map((f) => join(built, f));
  const { status } = spawnSync(
    process.execPath,
    ["--test", `--test-concurrency=${CONCURRENCY[lane]}`, ...files],
    { stdio: "inherit" },
  );
  if (status !== 0) failed.push(lane);
}
if (failed.length > 0) {
  console.error(`\n# lanes failed: ${failed.join(", ")}`);
  process.exit(1);
}
