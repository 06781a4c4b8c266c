/**
 * Runs the test lanes: `node scripts/test-lanes.mjs unit peers artifact` (the exit code is
 * non-zero when any file failed), or `--list` to print every built test file by lane as JSON.
 * test/lanes.json names the unit and artifact files; every other dist/test/*.test.js is in the
 * peers lane, so a file nobody classified still runs.
 *
 *   unit      pure module tests: no socket, process, peer or clock
 *   peers     real sockets and peer servers (smtp-sink, Postfix, aiosmtpd, swaks ...)
 *   artifact  bin/mailvolley.js as built, the packed install, Chromium
 *
 * The named lanes' files run together, several at a time, each in a `node --test` of its own
 * (whose report is printed whole when it ends): every server a test starts listens on a port of
 * its own (port 0) and every Postfix in a directory of its own, and most of a peer test's time
 * is spent waiting on a socket or a child, not on a core. The slowest files (test/lanes.json
 * "slowFirst") start first, so that none of them is left running alone at the end (node --test
 * given many files would start them in the order of their names). Files listed under "alone"
 * judge the machine itself (a CPU-bound verdict, a machine-wide kernel counter): they run
 * afterwards, one at a time, with nothing beside them.
 */
import { spawn } from "node:child_process";
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

// Waiting files beside each other: one more than the cores, two cores giving three at once.
const TOGETHER = Math.max(3, availableParallelism() + 1);

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
const named = args.flatMap((lane) => all[lane]);
const alone = new Set(manifest.alone);
const slowFirst = manifest.slowFirst.filter((f) => named.includes(f) && !alone.has(f));
const together = [...slowFirst, ...named.filter((f) => !alone.has(f) && !slowFirst.includes(f))];
const last = named.filter((f) => alone.has(f));

/** One file under node --test; resolves with its report, its exit code and its seconds. */
function runFile(file) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--test", join(built, file)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => out.push(chunk));
    child.on("close", (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      resolve({ file, report: Buffer.concat(out), ok: code === 0 && signal === null, seconds });
    });
  });
}

/** `files` in their order, `at` at a time; the names of those that failed. */
async function runFiles(files, at, what) {
  console.log(`\n# ${what}: ${files.length} files, ${at} at a time`);
  const failed = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const done = await runFile(files[next++]);
      process.stdout.write(done.report);
      console.log(
        `# ${done.ok ? "passed" : "FAILED"}: ${done.file} (${done.seconds.toFixed(1)} s)`,
      );
      if (!done.ok) failed.push(done.file);
    }
  };
  await Promise.all(Array.from({ length: Math.min(at, files.length) }, worker));
  return failed;
}

const failed = [
  ...(await runFiles(together, TOGETHER, `lanes ${args.join(", ")} together`)),
  ...(await runFiles(last, 1, "alone")),
];
if (failed.length > 0) {
  console.error(`\n# failed: ${failed.join(" ")}`);
  process.exit(1);
}
