/** What the anchors accept: k6's and Go's durations, KB/KiB sizes, rates over any window, k6's p(99). */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parseDuration, parseRate } from "../src/config/parse.js";
import { loadPlan } from "../src/config/plan.js";
import { parseSinkDuration } from "../src/config/sink-config.js";
import { parseOctets, parseSizes } from "../src/config/sizes.js";
import { parseThreshold } from "../src/config/thresholds.js";
import { UsageError } from "../src/usage/usage-error.js";

const refused = (run: () => unknown, line: RegExp) =>
  assert.throws(run, (e: Error) => e instanceof UsageError && line.test(e.message));

describe("values as users type them", () => {
  test("durations: one unit, several, or a bare number of seconds", () => {
    assert.equal(parseDuration("-d", "1m30s"), 90_000);
    assert.equal(parseDuration("-d", "1h5m"), 3_900_000);
    assert.equal(parseDuration("-d", "1s250ms"), 1250);
    assert.equal(parseDuration("-d", "1.5s"), 1500);
    assert.equal(parseDuration("-d", "90"), 90_000);
    refused(
      () => parseDuration("-d", "1m30"),
      /^-d: "1m30" is not a duration; give e\.g\. .*1m30s$/,
    );
    refused(() => parseDuration("-d", "s"), /is not a duration/);
    refused(() => parseDuration("-d", "-5s"), /is not a duration/);
    // One grammar (config/units.ts): the sink's options read durations as run's do.
    assert.equal(parseSinkDuration("idle-timeout", "1m30s"), 90_000);
    assert.equal(parseSinkDuration("idle-timeout", "90"), 90_000);
  });

  test("rates: per second, minute or hour, or over any window", () => {
    assert.equal(parseRate("--rate", "2000"), 2000);
    assert.equal(parseRate("--rate", "120/m"), 2);
    assert.equal(parseRate("--rate", "100/1s"), 100);
    assert.equal(parseRate("--rate", "30/10s"), 3);
    assert.equal(parseRate("--rate", "90/1m30s"), 1);
    refused(() => parseRate("--rate", "5/0s"), /^--rate: "5\/0s" is not a rate/);
    refused(() => parseRate("--rate", "5/x"), /is not a rate/);
  });

  test("sizes: k, K, KB, kB, KiB are all 1024; fractions round", () => {
    for (const text of ["10k", "10K", "10KB", "10kB", "10KiB", "10 KiB"]) {
      assert.equal(parseOctets("-l", text), 10_240, text);
    }
    assert.equal(parseOctets("-l", "1.5k"), 1536);
    assert.equal(parseOctets("-l", "1.5MiB"), 1_572_864);
    assert.equal(parseOctets("-l", "0"), 0);
    refused(() => parseOctets("-l", "2g"), /over the 1 GiB limit/);
    refused(() => parseOctets("-l", "1"), /1 octet cannot end with CRLF/);
    refused(() => parseOctets("-l", "10 kilo"), /^-l: "10 kilo" is not a size/);
    assert.deepEqual(parseSizes("-l", "512:60,10KB:40"), [
      { size: 512, weight: 60 },
      { size: 10_240, weight: 40 },
    ]);
    refused(() => parseSizes("-l", "512:60:1"), /more than one ":"/);
  });

  test("a plan class's size takes what --size takes, a distribution too", () => {
    const dir = mkdtempSync(join(tmpdir(), "mv-plan-size-"));
    try {
      const path = join(dir, "plan.yaml");
      writeFileSync(
        path,
        "classes:\n  - { name: a, share: 1, size: 10k }\n  - { name: b, share: 1, size: '512:3,1KiB:1' }\n",
      );
      const plan = loadPlan(path, []);
      assert.deepEqual(plan.classes?.[0].sizes, [{ size: 10_240, weight: 1 }]);
      assert.deepEqual(plan.classes?.[1].sizes, [
        { size: 512, weight: 3 },
        { size: 1024, weight: 1 },
      ]);
      writeFileSync(path, "classes:\n  - { name: a, share: 1, size: lots }\n");
      refused(() => loadPlan(path, []), /plan\.yaml:2: size: "lots" is not a size; give e\.g\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("thresholds in k6's spelling", () => {
    assert.equal(parseThreshold("p(99)<50").metric, "p99");
    assert.equal(parseThreshold("p(95){phase:envelope}<5ms").metric, "p95");
    assert.equal(parseThreshold("avg<10ms").metric, "mean");
    assert.equal(parseThreshold("med<=5").metric, "p50");
    assert.equal(parseThreshold("p(99)<50").expression, "p(99)<50", "reported as written");
    refused(() => parseThreshold("p(99.9)<5"), /^--threshold: "p\(99\.9\)<5"/);
  });
});
