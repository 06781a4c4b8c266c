/**
 * The top of the HTML page leads with the answer: PASS or FAIL for the thresholds, and in a
 * compare the terminal's headline sentences. Rendered from a saved result, so exact.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { headline, renderCompare } from "../src/report/compare.js";
import { esc, renderHtml } from "../src/report/html.js";
import { renderSummary } from "../src/report/terminal.js";
import type { LimitedBy, Result } from "../src/result/result.js";

const GOLDEN = fileURLToPath(new URL("../../test/golden/result-reuse.json", import.meta.url));
const saved = () => JSON.parse(readFileSync(GOLDEN, "utf8")) as Result;

/** The page's text between <body> and the first section: what a reader sees first. */
function top(html: string): string {
  return html.slice(html.indexOf("<body>"), html.indexOf("<h2>Overview</h2>"));
}

test("thresholds: PASS when all held, FAIL naming each breach, before the overview", () => {
  const passed = saved();
  passed.thresholds = [{ expression: "p99<50ms", actual: 3.2, passed: true }];
  assert.match(
    top(renderHtml([passed])),
    /data-thresholds="PASS"><strong>PASS<\/strong> all 1 thresholds held/,
  );

  const failed = saved();
  failed.thresholds = [
    { expression: "p99<1ms", actual: 3.25, passed: false },
    { expression: "error_rate<0.1%", actual: 0, passed: true },
    { expression: "rate>=1/s", actual: null, passed: false },
  ];
  const head = top(renderHtml([failed]));
  assert.match(head, /<strong>FAIL<\/strong> 2 of 3 thresholds breached/);
  assert.match(head, /<li>p99&lt;1ms \(actual 3\.250\)<\/li><li>rate&gt;=1\/s \(no data\)<\/li>/);
  const bare = saved();
  delete bare.thresholds;
  assert.doesNotMatch(top(renderHtml([bare])), /data-thresholds/, "no thresholds, no banner");
});

test("compare: the headline sentences come first, as in the terminal", () => {
  const reuse = saved();
  const perMessage = { ...saved(), mode: "per-message" as const };
  const head = top(renderHtml([perMessage, reuse]));
  const lines = headline([perMessage, reuse]);
  assert.ok(lines.length >= 2);
  for (const line of lines) assert.ok(head.includes(`<p>${esc(line)}</p>`), line);
  assert.doesNotMatch(top(renderHtml([reuse])), /class="headline"/, "one run: no comparison");
});

test("a shard's result names its part in the terminal's and the page's first lines", () => {
  const shard = saved();
  shard.shard = {
    index: 1,
    count: 3,
    configHash: `sha256:${"0".repeat(64)}`,
    host: "gen-b",
    clockStart: shard.startedAt,
    clockEnd: shard.startedAt,
    startAt: null,
    startLatenessMs: null,
  };
  assert.match(renderSummary(shard, { color: false }).split("\n")[0], /, shard 1\/3 on gen-b\)$/);
  assert.match(top(renderHtml([shard])), /sessions, [^<]*, shard 1\/3 on gen-b<\/p>/);
  const merged = saved();
  merged.shards = [shard.shard, { ...shard.shard, index: 0 }, { ...shard.shard, index: 2 }];
  assert.match(renderSummary(merged, { color: false }).split("\n")[0], /, 3 shards merged\)$/);
  assert.doesNotMatch(renderSummary(saved(), { color: false }).split("\n")[0], /shard/);
});

test("compare: each run says whether it measured the target, from its recorded limitedBy", () => {
  const judged = (mode: Result["mode"], limitedBy: LimitedBy): Result => ({
    ...saved(),
    mode,
    generator: {
      limitedBy,
      reasons: ["a reason"],
      advice: "some advice",
      threads: [],
      lateness: null,
    },
  });
  const cases: [LimitedBy, RegExp][] = [
    ["target", /This run measured the target: it set the rate\./],
    ["generator", /This run did not measure the target: the generator set the rate/],
    [
      "schedule",
      /This run did not measure the target: the schedule \(--rate, --ramp\) set the rate/,
    ],
    ["nobody", /This run did not measure the target: nobody set the rate/],
    ["undetermined", /This run may not have measured the target/],
  ];
  for (const [limitedBy, said] of cases) {
    const runs = [judged("per-message", limitedBy), judged("reuse", "target")];
    const text = renderCompare(runs, { color: false });
    const lines = text.split("\n");
    // Under each run's own verdict: the per-message run's line, then the reuse run's.
    const perMessageAt = lines.findIndex((l) => l.startsWith("per-message run:"));
    const reuseAt = lines.findIndex((l) => l.startsWith("reuse run:"));
    assert.ok(perMessageAt >= 0 && reuseAt > perMessageAt, text);
    assert.match(lines.slice(perMessageAt, reuseAt).join("\n"), said, limitedBy);
    assert.match(lines.slice(reuseAt).join("\n"), /This run measured the target/);
    const head = top(renderHtml(runs));
    const boxes = head.split('<div class="verdict');
    assert.match(boxes[1], said, `HTML, ${limitedBy}`);
    assert.match(boxes[1], new RegExp(`data-measured="${limitedBy === "target"}"`));
    assert.match(boxes[2], /data-measured="true"/);
  }
  // A single run's page has no per-run line: its verdict is the whole page's.
  assert.doesNotMatch(top(renderHtml([judged("reuse", "target")])), /data-measured/);
});

test("a quit row that repeats the data row says why, in the terminal and the HTML", () => {
  const apart = saved();
  assert.doesNotMatch(renderSummary(apart, { color: false }), /quit \*/);
  assert.doesNotMatch(renderHtml([apart]), /data-note="quit-repeats-data"/);
  const same = saved();
  same.latency.quitMs = { ...same.latency.dataMs };
  const text = renderSummary(same, { color: false });
  assert.match(text, /^ {2}quit \* /m);
  assert.match(text, /QUIT went in the final dot's write and both replies came in one read/);
  assert.match(
    renderHtml([same]),
    /<td>quit \*<\/td>.*data-note="quit-repeats-data">quit \*: QUIT went/s,
  );
  const perMessage = { ...same, mode: "per-message" as const };
  const compared = renderCompare([perMessage, apart], { color: false });
  assert.match(compared, /^ {2}quit \* /m);
  assert.match(compared, /so this row repeats data's; .*in the per-message run\)/);
});

test("accounting: the terminal's identity row, Ended early and Stopped; the HTML overview's rows", () => {
  const early = saved();
  early.accounting = {
    asked: 40,
    started: 0,
    unsent: 34,
    dropped: 6,
    stopped: 0,
    endedEarly: true,
  };
  early.generator = {
    limitedBy: "nobody",
    reasons: [],
    advice: "check",
    threads: [],
    lateness: null,
  };
  const text = renderSummary(early, { color: false });
  assert.match(
    text,
    /^Accounting {4}asked 40 = started 0 \+ unsent 34 \+ dropped 6 \+ stopped 0$/m,
  );
  assert.match(
    text,
    /^Ended early {3}the load ended at .* every session gave up.*34 messages asked for were never sent \(unsent\)$/m,
  );
  assert.doesNotMatch(text, /^Stopped/m);
  const html = renderHtml([early]);
  for (const [field, value] of Object.entries({ asked: 40, started: 0, unsent: 34, stopped: 0 })) {
    assert.match(html, new RegExp(`data-field="accounting\\.${field}" data-value="${value}"`));
  }
  assert.match(top(html), /every session gave up/);

  const stopped = saved();
  stopped.stoppedBy = "SIGINT";
  stopped.accounting = {
    asked: 1000,
    started: 91,
    unsent: 0,
    dropped: 0,
    stopped: 909,
    endedEarly: false,
  };
  const said = renderSummary(stopped, { color: false });
  assert.match(
    said,
    /^Stopped {7}909 messages asked for were never sent: the run was stopped \(SIGINT\) first$/m,
  );
  assert.doesNotMatch(said, /^Ended early/m);

  const timed = saved();
  timed.accounting = {
    asked: null,
    started: 4079,
    unsent: 0,
    dropped: 0,
    stopped: 0,
    endedEarly: false,
  };
  assert.match(
    renderSummary(timed, { color: false }),
    /^Accounting {4}as many as the duration allowed = started 4,079/m,
  );
  assert.doesNotMatch(
    renderSummary(saved(), { color: false }),
    /^Accounting/m,
    "none before it existed",
  );
});
