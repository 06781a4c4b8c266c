/**
 * The sweep of bad invocations (issue 17 item 7) kept as a table: each command line with the
 * exit code and the first line of stderr it must give. One line, naming the option, no stack
 * trace, nothing on stdout. test/cli.test.ts holds the older rows.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-bad-");
const bad = join(dir, "bad.pem");
writeFileSync(bad, "not a certificate\n");

/** A saved result with one field changed. */
function resultFile(name: string, change: (result: Record<string, unknown>) => void): string {
  const result = JSON.parse(JSON.stringify(fixedResult("reuse"))) as Record<string, unknown>;
  change(result);
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(result));
  return path;
}

const stringCount = resultFile("string-count.json", (r) => {
  (r.messages as Record<string, unknown>).accepted = "200lots";
});
const futureSchema = resultFile("schema9.json", (r) => {
  r.schema = "mailvolley/result@9";
});
const good = resultFile("good.json", () => {});
const bogusError = resultFile("bogus-error.json", (r) => {
  r.errors = [{ bogus: 1 }];
});
const nullLatency = resultFile("null-latency.json", (r) => {
  r.latency = null;
});
const stringGenerator = resultFile("string-generator.json", (r) => {
  r.generator = "x";
});
/** A saved result's series, as a result file holds it. */
type SavedSeries = { intervalMs: number; points: Record<string, unknown>[] };
const seriesOf = (r: Record<string, unknown>) => r.series as SavedSeries;
const notV2 = Buffer.alloc(16, 7).toString("base64");
const badHistogram = resultFile("bad-histogram.json", (r) => {
  (r.histograms as Record<string, string>).transaction = notV2;
});
const badPointHistogram = resultFile("bad-point-histogram.json", (r) => {
  seriesOf(r).points[0].histogram = "AAAA";
});
const offGridPoint = resultFile("off-grid-point.json", (r) => {
  (seriesOf(r).points[0].t as number) += 1;
});
const pointsReversed = resultFile("points-reversed.json", (r) => {
  seriesOf(r).points.reverse();
});
const nullPoint = resultFile("null-point.json", (r) => {
  seriesOf(r).points[0] = null as unknown as Record<string, unknown>;
});
const intervalZero = resultFile("interval-zero.json", (r) => {
  seriesOf(r).intervalMs = 0;
});
const same = join(dir, "same.out");
/** A FIFO nobody reads or writes: opening it the blocking way would hang for good. */
const fifo = join(dir, "fifo");
execFileSync("mkfifo", [fifo]);
const selfTest = resultFile("self-test.json", (r) => {
  r.target = "embedded-sink";
});

const rows: [args: string[], code: number, firstLine: RegExp][] = [
  [
    ["run", "127.0.0.1:25:25"],
    2,
    /^mailvolley: target: "127\.0\.0\.1:25:25" has more than one ":"/,
  ],
  [["run", "--source-order", "bogus"], 2, /^mailvolley: --source-order: "bogus" is not one of/],
  [["run", "--seed", "abc"], 2, /^mailvolley: --seed: "abc" is not a whole number/],
  [
    ["probe", "127.0.0.1:1", "--probe", "concurrency", "--timeout", "0"],
    2,
    /^mailvolley: --timeout: must be longer than 0/,
  ],
  [["run", "-d", "-5s"], 2, /^mailvolley: --duration: "-5s" is not a duration/],
  [["run", "--timeout-mail", "-1s"], 2, /^mailvolley: --timeout-mail: "-1s" is not a duration/],
  [["compare", "--pause", "-1s"], 2, /^mailvolley: --pause: "-1s" is not a duration/],
  [["run", "-s", "-3"], 2, /^mailvolley: --sessions: -3 is out of range/],
  [["run", "-l", "512:60,10k"], 2, /^mailvolley: --size: "10k" has no weight/],
  [["run", "--threshold", "error_rate<200%"], 2, /^mailvolley: --threshold: .*at most 100%/],
  [["run", "--threshold", "error_rate<2"], 2, /^mailvolley: --threshold: .*at most 100%/],
  [
    ["run", "-m", "10", "--ramp-sessions", "0s:0"],
    2,
    /^mailvolley: --ramp-sessions: every stage has 0/,
  ],
  [["run", "--ramp", "0s:0,5s:0"], 2, /^mailvolley: --ramp: every stage has rate 0/],
  [["run", "-l", "10", "MB"], 2, /^mailvolley: target: "MB" is a size unit, not a host/],
  [
    ["run", "127.0.0.1:1", "--sink-max-connections", "5"],
    2,
    /^mailvolley: --sink-max-connections: sets the built-in sink of a self-test or of --receive/,
  ],
  [
    ["compare", "127.0.0.1:1", "--sink-max-connection-rate", "30/60s"],
    2,
    /^mailvolley: --sink-max-connection-rate: sets the built-in sink/,
  ],
  [
    ["run", "-n", "500", "-c", "5", "-s", "3600"],
    2,
    /^mailvolley: --sessions: given twice \(5, 3600\): -s and -c both set --sessions here; a timeout \(ab's -s\) is --timeout/,
  ],
  [
    ["run", "-n", "1000", "-m", "2000"],
    2,
    /^mailvolley: --messages: given twice \(1000, 2000\): -m and -n both set --messages here; give --messages once$/m,
  ],
  [["run", "-l", "1k", "--size", "2k"], 2, /^mailvolley: --size: given twice \(1k, 2k\)/],
  [["sink", "--backlog", "3", "--backlog", "4"], 2, /^mailvolley: --backlog: given twice/],
  [
    ["probe", "127.0.0.1:1", "--probe", "concurrency", "--max", "5", "--max", "6"],
    2,
    /^mailvolley: --max: given twice \(5, 6\): give --max once$/m,
  ],
  [
    ["report", good, "--granularity", "2s", "--granularity", "3s"],
    2,
    /^mailvolley: --granularity: given twice \(2s, 3s\)/,
  ],
  // A secret given twice is not repeated back.
  [
    ["run", "--auth", "a:SECRET1", "--auth", "b:SECRET2"],
    2,
    /^mailvolley: --auth: given twice: give --auth once$/m,
  ],
  // Errors found before traffic: the name, the source addresses, values that would drop it all.
  [
    ["run", "nonexistent.invalid:25"],
    2,
    /^mailvolley: target: "nonexistent\.invalid" does not resolve \(ENOTFOUND\)/,
  ],
  [
    ["compare", "nonexistent.invalid", "-m", "10"],
    2,
    /^mailvolley: target: "nonexistent\.invalid" does not resolve/,
  ],
  [
    ["probe", "nonexistent.invalid:25", "--probe", "concurrency"],
    2,
    /^mailvolley: target: "nonexistent\.invalid" does not resolve/,
  ],
  [
    ["run", "127.0.0.1:1", "--source", "127.0.0.2,198.51.100.77"],
    2,
    /^mailvolley: --source: "198\.51\.100\.77" is not an address of this host \(EADDRNOTAVAIL\)/,
  ],
  [
    ["run", "unix:/nonexistent/sock", "--source", "127.0.0.2"],
    2,
    /^mailvolley: --source: a unix socket has no local IP address/,
  ],
  [
    ["run", "--rate", "10", "--max-delay", "0"],
    2,
    /^mailvolley: --max-delay: must be longer than 0/,
  ],
  [["report", good, "--html"], 2, /^mailvolley: Not enough arguments following: html/],
  [["merge", good, "--html"], 2, /^mailvolley: Not enough arguments following: html/],
  // Options taken and ignored before: each refused with the reason.
  [
    ["run", "--mode", "per-message", "--messages-per-session", "10"],
    2,
    /^mailvolley: --messages-per-session: shapes the sessions of --mode reuse/,
  ],
  [
    ["run", "--mode", "per-message", "--reconnect-attempts", "3"],
    2,
    /^mailvolley: --reconnect-attempts: shapes the sessions of --mode reuse/,
  ],
  [
    ["run", "--rate", "100", "--ramp-up", "5s"],
    2,
    /^mailvolley: --ramp-up: starts sessions in the closed model; with --rate or --ramp/,
  ],
  [
    ["run", "--tls-verify"],
    2,
    /^mailvolley: --tls-verify: applies to TLS, and this run speaks none/,
  ],
  [["run", "--no-tls-resume"], 2, /^mailvolley: --no-tls-resume: applies to TLS/],
  [
    ["probe", "127.0.0.1:1", "--probe", "concurrency", "--tls-servername", "mx"],
    2,
    /^mailvolley: --tls-servername: applies to TLS/,
  ],
  [
    ["run", "-t", "30"],
    2,
    /^mailvolley: --to: "30" is not a mail address \(local@domain\); give e\.g\. user@example\.com; a time limit is -d 30s$/m,
  ],
  [["run", "-f", "30"], 2, /^mailvolley: --from: "30" is not a mail address/],
  [["compare", "--mode", "reuse"], 2, /^mailvolley: --mode: compare runs both modes/],
  [["report", stringCount], 2, /^mailvolley: result: .*messages\.accepted is "200lots"/],
  [["report", futureSchema], 2, /^mailvolley: result: .*schema "mailvolley\/result@9"/],
  [
    ["merge", selfTest, good],
    2,
    /^mailvolley: merge: .*self-test\.json is a self-test and .*good\.json ran against 127\.0\.0\.1:2525/,
  ],
  [["merge", good, stringCount], 2, /^mailvolley: result: .*messages\.accepted/],
  [["run", "--auth", "nocolonSECRET"], 2, /^mailvolley: --auth: its value is not user:password$/m],
  [
    ["probe", "127.0.0.1:1", "--probe", "concurrency", "--auth", "nocolonSECRET"],
    2,
    /^mailvolley: --auth: its value is not user:password$/m,
  ],
  [
    ["kubernetes", "mx:25", "--shards", "2", "--image", "i", "--namespace", "Bad NS"],
    2,
    /^mailvolley: --namespace: "Bad NS" is not a Kubernetes namespace/,
  ],
  [["run", "-m", "3", "-F", fifo], 2, /^mailvolley: .*fifo: is a FIFO .*message file/],
  [["run", "-m", "3", "--mbox", fifo], 2, /^mailvolley: .*fifo: is a FIFO .*mbox file/],
  [["run", "-m", "3", "--to-file", fifo], 2, /^mailvolley: .*fifo: is a FIFO .*address list/],
  [["run", "-m", "3", "--out", `ndjson=${fifo}`], 2, /^mailvolley: --out: .*\(no reader\)/],
  [["run", "-m", "3", "-q", "--json", fifo], 1, /^mailvolley: --json: .*\(no reader\)/],
  [["report", bogusError], 2, /^mailvolley: result: .*bogus-error\.json.*errors\.0 /],
  [["report", nullLatency], 2, /^mailvolley: result: .*null-latency\.json.*latency must be/],
  [["merge", good, stringGenerator], 2, /^mailvolley: result: .*string-generator.*generator/],
  [
    ["report", badHistogram],
    2,
    /^mailvolley: result: .*bad-histogram\.json.*histograms\.transaction is not a histogram: /,
  ],
  [
    ["merge", good, badPointHistogram],
    2,
    /^mailvolley: result: .*bad-point-histogram\.json.*series\.points\.0\.histogram is not a histogram/,
  ],
  [
    ["report", offGridPoint, "--html", join(dir, "off-grid.html")],
    2,
    /^mailvolley: result: .*off-grid-point\.json.*series\.points\.0\.t \d+ is not a multiple of series\.intervalMs 1000$/m,
  ],
  [
    ["report", pointsReversed, "--granularity", "2s"],
    2,
    /^mailvolley: result: .*points-reversed\.json.*series\.points\.1\.t is not after series\.points\.0\.t$/m,
  ],
  [
    ["merge", good, nullPoint],
    2,
    /^mailvolley: result: .*null-point\.json.*series\.points\.0 must be object/,
  ],
  [
    ["report", intervalZero],
    2,
    /^mailvolley: result: .*interval-zero\.json.*series\.intervalMs must be >= 1/,
  ],
  [["run", "--json", same, "--html", same], 2, /^mailvolley: --html: --json already writes/],
  [["run", "--json", same, "--out", `ndjson=${same}`], 2, /^mailvolley: --out: --json already/],
  [
    ["report", good, "--json", "-", "--html", "-"],
    2,
    /^mailvolley: --(json|html): --(html|json) already writes stdout/,
  ],
  [
    ["sink", "--listen", "127.0.0.1:0", "--tls-cert", bad, "--tls-key", bad],
    2,
    /^mailvolley: --tls-cert .*not a usable PEM certificate and key/,
  ],
  [["sink", "--listen", "127.0.0.1:0", "--backlog", "0"], 2, /^mailvolley: --backlog 0/],
  [["sink", "--listen", "127.0.0.1:0", "--idle-timeout", "0"], 2, /^mailvolley: --idle-timeout 0/],
  [
    ["sink", "--listen", "127.0.0.1:0", "--max-recipients", "0"],
    2,
    /^mailvolley: --max-recipients 0/,
  ],
  [
    ["sink", "--listen", "127.0.0.1:0", "--log-envelopes", join(dir, "no", "such", "dir")],
    2,
    /^mailvolley: --log-envelopes: cannot write/,
  ],
];

describe("bad invocations: exit code and first line", () => {
  for (const [args, code, firstLine] of rows) {
    test(`mailvolley ${args.join(" ").replaceAll(dir, "DIR")}`, async () => {
      const out = await mailvolley(args, 30_000);
      assert.equal(out.code, code, `exit code: ${out.stderr}`);
      assert.match(out.stderr, firstLine);
      assert.equal(out.stderr.trimEnd().split("\n").length, 1, `more than one line: ${out.stderr}`);
      assert.doesNotMatch(out.stderr, /\n\s+at /);
      assert.equal(out.stdout, "");
    });
  }

  test("compare --help does not list --mode, which compare refuses", async () => {
    const out = await mailvolley(["compare", "--help"]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /--order/);
    assert.doesNotMatch(out.stdout, /^\s+(-\w, )?--mode\b/m);
  });

  test("--rate alone says at the start that it keeps the default message count", async () => {
    // Nothing listens on port 1; the run is stopped by SIGINT once the note is out.
    const { child, done } = startMailvolley(["run", "127.0.0.1:1", "--rate", "2", "--quiet"]);
    const note = new Promise<void>((resolve) => {
      let seen = "";
      child.stderr?.on("data", (s: string) => {
        seen += s;
        if (seen.includes("\n")) resolve();
      });
    });
    await Promise.race([note, done]);
    child.kill("SIGINT");
    const out = await done;
    assert.match(
      out.stderr.split("\n")[0],
      /^mailvolley: note: --rate without -m or -d sends the default 10,000 messages \(about 5000 s at 2\/s\)/,
    );
  });

  test("harmless options that do less than they say get a one-line note, and the run goes on", async () => {
    const workers = availableParallelism() + 1;
    const out = await mailvolley([
      "run",
      "-m",
      "5",
      "-s",
      "1",
      "-q",
      "-v",
      "--workers",
      String(workers),
    ]);
    assert.equal(out.code, 0, out.stderr);
    const notes = out.stderr.split("\n").filter((line) => line.startsWith("mailvolley: note:"));
    assert.deepEqual(notes, [
      "mailvolley: note: -v with -q prints the first session's conversation and nothing else",
      `mailvolley: note: --workers ${workers} on ${workers - 1} cores: the threads beyond ${workers - 1} share the cores and add no throughput`,
    ]);
  });

  test("the good result the bad ones were made from is read", async () => {
    const out = await mailvolley(["report", good]);
    assert.equal(out.code, 0, out.stderr);
  });
});
