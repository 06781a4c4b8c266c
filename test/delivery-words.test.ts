/**
 * Every word of the delivery section is a result: the drain's line for each way it ends, the
 * relay rate against the plateau's accept rate with the backlog's trend, stripped keys, the
 * bounce statuses, the first duplicated messages, each in the terminal and in the HTML.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ArrivalLog } from "../src/delivery/arrival-store.js";
import { joinDeliveries } from "../src/delivery/delivery-verdict.js";
import { renderHtml } from "../src/report/html.js";
import { renderSummary } from "../src/report/terminal.js";
import type { DeliveryResult } from "../src/result/delivery-result.js";
import type { Result } from "../src/result/result.js";

const RUN = "0123456789ab";
const T0 = 1_700_000_000_000;
const base = JSON.parse(
  readFileSync(new URL("../../test/golden/result-reuse.json", import.meta.url), "utf8"),
) as Result;

/**
 * 40 messages of two classes accepted over 4 s; 30 arrive, message 3 twice, 5 and 7 refused
 * with 550 (7's notice comes with 5.1.1), the rest not: the delivery section they make.
 */
function delivery(drain: DeliveryResult["drain"]): DeliveryResult {
  const log = new ArrivalLog();
  const accepts = {
    seq: [] as number[],
    intendedMs: [] as number[],
    acceptedMs: [] as number[],
    queueId: [] as string[],
  };
  for (let seq = 0; seq < 40; seq++) {
    accepts.seq.push(seq);
    accepts.intendedMs.push(T0 + seq * 100);
    accepts.acceptedMs.push(T0 + seq * 100 + 10);
    accepts.queueId.push(`Q${seq}`);
    if (seq === 5 || seq === 7)
      log.refused(RUN, seq, "envid", ["s@x"], "5.3.0", T0 + seq * 100 + 20);
    else if (seq < 32) log.copy(RUN, seq, "traceHeader", ["s@x"], T0 + seq * 100 + 50, false);
  }
  log.copy(RUN, 3, "traceHeader", ["s@x"], T0 + 900, false);
  log.notice(RUN, 7, "5.1.1", ["s@x"], T0 + 1000);
  const run = log.runs.get(RUN)!;
  return joinDeliveries({
    receiver: "127.0.0.1:2526",
    parts: [
      {
        runId: RUN,
        accepts,
        arrivals: run.arrivals,
        lastArrivalMs: run.lastArrivalMs,
        classOf: (seq) => seq % 2,
        recipientsOf: () => 1,
      },
    ],
    counts: { foreign: 0, notices: 1, noticesUnjoined: 0 },
    classNames: ["even", "odd"],
    firstConnectMs: T0,
    drain,
  });
}

const with_ = (d: DeliveryResult): Result => ({ ...base, delivery: d });
const terminal = (d: DeliveryResult) => renderSummary(with_(d), { color: false });
const html = (d: DeliveryResult) => renderHtml([with_(d)]);

describe("the drain, in words", () => {
  for (const [drain, words] of [
    [{ end: "arrived", waitedMs: 1234, missing: 0 }, "waited 1.2 s: every message accounted for"],
    [{ end: "timedOut", waitedMs: 60_000, missing: 8 }, "waited 60.0 s for 8 messages: timed out"],
    [
      { end: "interrupted", waitedMs: 3100, missing: 8 },
      "waited 3.1 s, then interrupted: 8 messages not waited for",
    ],
    [
      { end: "skipped", waitedMs: 0, missing: 8 },
      "--drain-timeout 0: nothing waited for (8 messages still inside the gateway)",
    ],
  ] as const) {
    test(`${drain.end}: "${words}"`, () => {
      const d = delivery(drain);
      assert.match(terminal(d), new RegExp(`Drain +${escapeRegExp(words)}`));
      assert.ok(html(d).includes(escapeHtml(`drain: ${words}`)), "the same words in the HTML");
    });
  }

  test("cut short, what had not arrived is not waited for, never lost", () => {
    const cut = delivery({ end: "interrupted", waitedMs: 100, missing: 8 });
    assert.deepEqual([cut.lost, cut.notWaited], [0, 8]);
    assert.match(terminal(cut), /not waited for 8/);
    const waited = delivery({ end: "timedOut", waitedMs: 100, missing: 8 });
    assert.deepEqual([waited.lost, waited.notWaited], [8, 0]);
  });
});

describe("the verdict: the plateau's rates and the backlog's trend", () => {
  const d = delivery({ end: "arrived", waitedMs: 0, missing: 0 });
  const plateau = { fromSecond: 1, toSecond: 9, acceptedPerSecond: 491, relayedPerSecond: 377 };
  for (const [trend, perSecond, words] of [
    ["growing", 114, "the gateway accepts 491/s and relays 377/s: its backlog grew by 114/s"],
    ["shrinking", -40, "the gateway accepts 491/s and relays 377/s: its backlog shrank by 40/s"],
    [
      "flat",
      2,
      "the gateway relays as fast as it accepts (377/s of 491/s): its backlog held steady",
    ],
  ] as const) {
    test(trend, () => {
      const t = { ...d, plateau, backlogTrend: { perSecond, trend, tolerancePerSecond: 9.82 } };
      assert.match(terminal(t), new RegExp(`Verdict +${escapeRegExp(words)}`));
      assert.ok(html(t).includes(escapeHtml(words)));
    });
  }

  test("too short a run for a trend: the whole run's rates, said so", () => {
    const words = "over the run, too short to judge its backlog's trend";
    assert.match(terminal(d), new RegExp(escapeRegExp(words)));
    assert.ok(html(d).includes(escapeHtml(words)));
  });

  test("every arrival foreign: the keys were stripped, use --tag-recipients", () => {
    const keys = { traceHeader: 0, messageId: 0, envid: 0, tag: 0 };
    const stripped = { ...d, keys, foreign: 300, delivered: 0, lost: 300 };
    const words =
      "every arrival was foreign (300): the gateway stripped the keys; run with --tag-recipients";
    assert.match(terminal(stripped), new RegExp(`Keys +${escapeRegExp(words)}`));
    assert.ok(html(stripped).includes(escapeHtml(words)));
    assert.match(terminal(stripped), /Verdict +nothing that arrived carried this run's keys/);
  });
});

describe("bounces, duplicates and classes", () => {
  const d = delivery({ end: "timedOut", waitedMs: 60_000, missing: 8 });

  test("the bounce statuses, the run's and each class's", () => {
    assert.equal(d.bounced, 2);
    assert.deepEqual(d.bounceStatuses, { "5.3.0": 2, "5.1.1": 1 });
    const text = terminal(d);
    assert.match(text, /Bounced +5\.3\.0 ×2, 5\.1\.1 ×1/);
    assert.match(text, /odd +delivered 13\/20 +lost 4 +bounced 2 \(5\.3\.0 ×2, 5\.1\.1 ×1\)/);
    const page = html(d);
    assert.ok(page.includes("bounced: 5.3.0 ×2, 5.1.1 ×1"));
    assert.ok(page.includes("delivered 13/20 · lost 4 · bounced 2 (5.3.0 ×2, 5.1.1 ×1)"));
  });

  test("the first duplicated messages with their queue ids", () => {
    assert.match(terminal(d), new RegExp(`First dup\\. +${RUN}\\.3 odd Q3`));
    assert.ok(
      html(d).includes(
        `<h3>first duplicated (id, class, gateway queue id)</h3><ul><li>${RUN}.3 odd Q3</li>`,
      ),
    );
  });

  test("the HTML has the retry attempts and each class's row", () => {
    const page = html(d);
    assert.ok(page.includes('data-field="delivery.retryAttempts"'));
    assert.ok(page.includes("<h3>per class</h3>"));
    assert.ok(page.includes('data-field="delivery.classes.even.lost"'));
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
