/**
 * The delivery join without a gateway: the receiving end's keys (trace header, Message-ID,
 * ENVID), notices joined back, foreign mail, refusals before an arrival; each accepted message
 * in exactly one state; and the command line's refusals of bad --receive input.
 */
import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { describe, test } from "node:test";
import { parseThresholds } from "../src/config/thresholds.js";
import { joinDeliveries, stateOf } from "../src/delivery/delivery-verdict.js";
import { Receiver } from "../src/delivery/receiver.js";
import type { Result } from "../src/result/result.js";
import { evaluateThresholds } from "../src/result/threshold-verdicts.js";
import { mailvolley } from "./helpers/cli.js";

const RUN = "0123456789ab";
const header = (lines: string[]) => Buffer.from(`${lines.join("\r\n")}\r\n\r\nbody\r\n`, "latin1");
const TEMPORARY = Buffer.from("451 4.3.0 Error: injected temporary failure\r\n");
const env = (rcpts = 1, from = "mailvolley@localhost", envid?: string) => ({
  from,
  rcpts: Array.from({ length: rcpts }, (_, i) => `${i}.sink@localhost`),
  envid,
});

describe("the receiving end's keys", () => {
  test("trace header first, then Message-ID, then ENVID; foreign otherwise", () => {
    const r = new Receiver(RUN);
    r.arrived(header([`X-Mailvolley-Id: ${RUN}.000000000007`]), env(), 1000);
    r.arrived(header([`message-id: <000000000008.${RUN}@mailvolley.invalid>`]), env(), 1001);
    r.arrived(header(["Subject: rewritten"]), env(1, "a@b", `${RUN}.9`), 1002);
    r.arrived(header(["X-Mailvolley-Id: ffffffffffff.000000000001"]), env(), 1003);
    assert.equal(r.arrivals.get(7)?.key, "traceHeader");
    assert.equal(r.arrivals.get(8)?.key, "messageId");
    assert.equal(r.arrivals.get(9)?.key, "envid");
    assert.equal(r.counts.foreign, 1);
    assert.equal(r.accounted, 3);
  });

  test("a recipient's +RUNID.SEQ tag when nothing else names the run", () => {
    const r = new Receiver(RUN);
    const tagged = { from: "a@b", rcpts: [`sink+${RUN}.11@localhost`] };
    r.arrived(header(["Subject: rewritten"]), tagged, 1000);
    assert.equal(r.arrivals.get(11)?.key, "tag");
    const other = { from: "a@b", rcpts: ["sink+ffffffffffff.12@localhost"] };
    r.arrived(header(["Subject: rewritten"]), other, 1001);
    assert.equal(r.counts.foreign, 1, "another run's tag is foreign to this one");
  });

  test("a sink for every run (sink --json) keeps each run's arrivals apart", () => {
    const r = new Receiver(null);
    r.arrived(header([`X-Mailvolley-Id: ${RUN}.000000000003`]), env(), 1000);
    r.arrived(header(["X-Mailvolley-Id: ffffffffffff.000000000003"]), env(), 1001);
    r.arrived(header([`message-id: <000000000004.${RUN}@mailvolley.invalid>`]), env(), 1002);
    r.arrived(header(["Subject: no key"]), env(), 1003);
    assert.deepEqual([...r.runs.keys()].sort(), [RUN, "ffffffffffff"]);
    assert.deepEqual([...(r.runs.get(RUN)?.arrivals.keys() ?? [])], [3, 4]);
    assert.equal(r.runs.get("ffffffffffff")?.arrivals.get(3)?.firstMs, 1001);
    assert.equal(r.counts.foreign, 1);
  });

  test("a notice is joined by Original-Envelope-Id and never counted as mail", () => {
    const r = new Receiver(RUN);
    const notice = Buffer.from(
      [
        "Content-Type: multipart/report; report-type=delivery-status; boundary=x",
        "",
        "--x",
        "Content-Type: message/delivery-status",
        "",
        `Original-Envelope-Id: ${RUN}.42`,
        "",
        "Final-Recipient: rfc822; sink@localhost",
        "Action: failed",
        "Status: 5.3.0",
        "",
        "Final-Recipient: rfc822; other@localhost",
        "Action: delayed",
        "Status: 4.4.1",
        "",
      ].join("\r\n"),
      "latin1",
    );
    r.arrived(notice, env(1, ""), 2000);
    assert.equal(r.arrivals.get(42)?.bounceStatus, "5.3.0");
    assert.equal(r.arrivals.get(42)?.gaveUp, 1, "the failed recipient only, not the delayed one");
    assert.equal(r.counts.notices, 1);
    assert.equal(r.counts.foreign, 0);
    assert.equal(r.accounted, 1);
  });

  test("a refusal before the arrival makes it a retry", () => {
    const r = new Receiver(RUN);
    r.refusedRcpt(env(0, "a@b", `${RUN}.5`), "0.sink@localhost", TEMPORARY, 100);
    r.arrived(header([`X-Mailvolley-Id: ${RUN}.000000000005`]), env(), 1100);
    assert.equal(r.arrivals.get(5)?.refusals, 1);
    assert.equal(r.arrivals.get(5)?.retried, 1);
    assert.deepEqual(r.arrivals.get(5)?.retryDelaysMs, [1000]);
  });
});

describe("each accepted message in one state", () => {
  const arrival = (over: Partial<Parameters<typeof stateOf>[0] & object>) => ({
    firstMs: 10,
    copies: 1,
    rcpts: 1,
    dupRcpts: 0,
    refusals: 0,
    retried: 0,
    retryDelaysMs: [] as readonly number[],
    gaveUp: 0,
    pending: 0,
    bounceStatus: "",
    key: "traceHeader" as const,
    late: false,
    recipients: null,
    ...over,
  });

  test("states by recipients and copies", () => {
    assert.equal(stateOf(undefined, 1), "lost");
    assert.equal(stateOf(arrival({}), 1), "delivered");
    assert.equal(stateOf(arrival({ rcpts: 3 }), 3), "delivered");
    assert.equal(stateOf(arrival({ copies: 3, rcpts: 3 }), 3), "delivered");
    assert.equal(stateOf(arrival({ rcpts: 2 }), 3), "partial");
    assert.equal(stateOf(arrival({ rcpts: 2 }), 3, true), "notWaited");
    assert.equal(stateOf(undefined, 1, true), "notWaited");
    assert.equal(stateOf(arrival({ copies: 2, rcpts: 1, dupRcpts: 1 }), 1), "duplicated");
    assert.equal(
      stateOf(arrival({ copies: 1, rcpts: 2, gaveUp: 1, bounceStatus: "5.3.0" }), 3),
      "bounced",
    );
    assert.equal(stateOf(arrival({ bounceStatus: "5.1.1", copies: 0 }), 1), "bounced");
    assert.equal(stateOf(arrival({ late: true }), 1), "late");
  });

  test("the join counts every accepted message once, per class", () => {
    const arrivals = new Map([
      [0, arrival({ firstMs: 1100 })],
      [1, arrival({ firstMs: 1200, copies: 2, rcpts: 1, dupRcpts: 1 })],
      [3, arrival({ firstMs: 1300, refusals: 2, retried: 1, retryDelaysMs: [250] })],
    ]);
    const d = joinDeliveries({
      receiver: "127.0.0.1:2526",
      parts: [
        {
          runId: RUN,
          accepts: {
            seq: [0, 1, 2, 3],
            intendedMs: [1000, 1000, 1000, 1000],
            acceptedMs: [1010, 1010, 1010, 1010],
            queueId: ["A", "B", "C", "D"],
          },
          arrivals,
          lastArrivalMs: 1300,
          classOf: (seq) => seq % 2,
          recipientsOf: () => 1,
        },
      ],
      counts: { foreign: 1, notices: 0, noticesUnjoined: 0 },
      classNames: ["even", "odd"],
      firstConnectMs: 1000,
      drain: { end: "timedOut", waitedMs: 1000, missing: 1 },
    });
    assert.deepEqual(
      [d.accepted, d.delivered, d.duplicated, d.lost, d.retried, d.retryAttempts],
      [4, 2, 1, 1, 1, 3],
    );
    assert.deepEqual(d.firstLost, [{ seq: 2, id: `${RUN}.2`, className: "even", queueId: "C" }]);
    assert.equal(d.classes.even.lost, 1);
    assert.equal(d.classes.odd.duplicated, 1);
    assert.equal(d.endToEndMs.count, 3);
    assert.equal(d.drainMs, 290);
    assert.equal(d.windowMs, 300);
    assert.equal(d.backlogMax, 4, "all four accepted at 1010, before the first arrival");
    assert.deepEqual(d.perSecond, { accepted: [4], delivered: [3], inside: [1] });
    const result = { delivery: d } as unknown as Result;
    const judged = evaluateThresholds(
      parseThresholds(["lost==0", "lost{class:odd}==0", "delivered_ratio>=50%", "drain<1s"]),
      result,
    );
    assert.deepEqual(
      judged.map((j) => [j.passed, j.actual, j.unit]),
      [
        [false, 1, ""],
        [true, 0, ""],
        [true, 50, "%"],
        [true, 290, "ms"],
      ],
    );
  });
});

describe("--receive on the command line", { timeout: 60_000 }, () => {
  for (const [args, option] of [
    [["run", "--receive", "127.0.0.1:2526"], "--receive"],
    [["run", "127.0.0.1:2525", "--receive", "127.0.0.1:port"], "--receive"],
    [
      ["run", "127.0.0.1:2525", "--receive", "127.0.0.1:2526", "--sink-fault", "rcpt:999"],
      "--sink-fault",
    ],
    [["run", "127.0.0.1:2525", "--sink-fault", "rcpt:451"], "--sink-fault"],
    [["run", "127.0.0.1:2525", "--tag-recipients"], "--tag-recipients"],
    [
      ["run", "127.0.0.1:2525", "--receive", "elsewhere", "--sink-fault", "rcpt:451"],
      "--sink-fault.*mailvolley sink --fault",
    ],
    [
      ["run", "127.0.0.1:2525", "--receive", "127.0.0.1:2526", "--drain-timeout", "soon"],
      "--drain-timeout",
    ],
    [["run", "127.0.0.1:2525", "--drain-timeout", "5s"], "--drain-timeout: .*add --receive"],
    [["run", "127.0.0.1:2525", "--late-window", "5s"], "--late-window: .*add --receive"],
    [["run", "127.0.0.1:2525", "--receive", "foo"], '--receive "foo": give the address'],
    [
      ["run", "127.0.0.1:2525", "--receive", "unix:/nonexistent/dir/sock", "-m", "1"],
      "--receive unix:/nonexistent/dir/sock: cannot listen there",
    ],
    [
      ["run", "127.0.0.1:2525", "--receive", "192.0.2.55:2526", "-m", "1"],
      "--receive 192.0.2.55:2526: cannot listen there: the address is not one of this host's",
    ],
  ] as const) {
    test(`${args.slice(1).join(" ")}: one line naming ${option}, exit 2`, async () => {
      const out = await mailvolley([...args]);
      assert.equal(out.code, 2, out.stderr);
      assert.match(out.stderr, new RegExp(option));
      assert.doesNotMatch(out.stderr, /\n\s+at /, "no stack trace");
      assert.equal(out.stderr.trim().split("\n").length, 1, "one line");
    });
  }

  test("--receive on a port already in use: one line, exit 2, before any traffic", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const out = await mailvolley(["run", "127.0.0.1:2525", "--receive", `127.0.0.1:${port}`]);
      assert.equal(out.code, 2, out.stderr);
      assert.equal(
        out.stderr.trim(),
        `mailvolley: --receive 127.0.0.1:${port}: cannot listen there: the address is in use (another server listens there); pick a free port`,
      );
    } finally {
      taken.close();
    }
  });
});
