/**
 * The test lanes (scripts/test-lanes.mjs, test/lanes.json): every built test file runs in
 * exactly one lane, so `npm test` (all lanes) skips none, and the files that run in parallel
 * as unit tests touch no socket, process, peer or clock that a neighbour could disturb.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function listed(): Record<string, string[]> {
  const out = execFileSync(process.execPath, [join(ROOT, "scripts", "test-lanes.mjs"), "--list"]);
  return JSON.parse(out.toString());
}

test("every built test file is in exactly one lane", () => {
  const lanes = listed();
  assert.deepEqual(Object.keys(lanes), ["unit", "peers", "artifact"]);
  const built = readdirSync(join(ROOT, "dist", "test"))
    .filter((f) => f.endsWith(".test.js"))
    .sort();
  const all = Object.values(lanes).flat();
  assert.deepEqual([...all].sort(), built, "each file once, none left out");
  assert.ok(lanes.unit.includes("lanes.test.js"));
});

test("test/lanes.json names only test files that exist, each once", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "test", "lanes.json"), "utf8")) as {
    unit: string[];
    artifact: string[];
    slowFirst: string[];
    alone: string[];
  };
  const sources = new Set(readdirSync(join(ROOT, "test")));
  const names = [...manifest.unit, ...manifest.artifact];
  assert.equal(new Set(names).size, names.length, "a file named twice");
  // The order and the files run alone only arrange the lanes' files: no unit file among them.
  const arranged = [...manifest.slowFirst, ...manifest.alone];
  assert.equal(new Set(arranged).size, arranged.length, "a file both slowFirst and alone");
  for (const name of arranged) assert.ok(!manifest.unit.includes(name), `${name} is a unit file`);
  for (const name of [...names, ...arranged]) {
    assert.ok(sources.has(name.replace(/\.js$/, ".ts")), `test/lanes.json: no test/${name}`);
  }
});

// What a unit file may not use: it runs beside others, on a machine others load.
const NOT_UNIT =
  /node:(net|tls|child_process|worker_threads)|helpers\/(cli|chromium|peer|smtp-sink|smtp-source|postfix-smtpd|aiosmtpd|swaks|smtp-server|scripted-server|run-client|raw-client|session-driver|child)\.js|sink-helpers\.js|executeRun|setTimeout|timers\/promises/;

test("unit files open no socket, start no process and wait on no clock", () => {
  for (const file of listed().unit) {
    if (file === "lanes.test.js") continue; // runs the lane script to read the lanes
    const source = readFileSync(join(ROOT, "test", file.replace(/\.js$/, ".ts")), "utf8");
    const found = source.match(NOT_UNIT);
    assert.equal(
      found,
      null,
      `${file} uses ${found?.[0]}: move it out of "unit" in test/lanes.json`,
    );
  }
});
