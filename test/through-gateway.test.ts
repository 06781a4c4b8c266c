/**
 * Through the gateway (--receive) against a real private Postfix on loopback that relays
 * everything to the run's receiving sink: what the gateway discards is lost, exactly that
 * class; what the receiver defers comes again and is delivered, with the retries counted.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  assertChartsDrawn,
  DRAWN_CHARTS,
  openInChromium,
  skipWithoutChromium,
} from "./helpers/chromium.js";
import { mailvolley } from "./helpers/cli.js";
import { freePort, HOST, requirePeer } from "./helpers/peer.js";
import { havePostfixRelay, type RelayOptions, startPostfixRelay } from "./helpers/postfix-relay.js";
import { settledLog } from "./helpers/relay-run.js";
import { readSchema, schemaFields } from "./helpers/schema-fields.js";
import { tempDir } from "./helpers/tmp.js";

const schema = readSchema();
const validate = new Ajv2020({ strict: true, allErrors: true, keywords: ["better"] }).compile(
  schema,
);

function schemaProblems(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

interface Delivery {
  accepted: number;
  delivered: number;
  lost: number;
  duplicated: number;
  bounced: number;
  partial: number;
  retried: number;
  retryAttempts: number;
  drainMs: number;
  notices: number;
  noticesUnjoined: number;
  foreign: number;
  endToEndMs: { count: number; p99: number };
  classes: Record<string, { accepted: number; lost: number; delivered: number }>;
  firstLost: { seq: number; className: string; queueId: string }[];
  firstDuplicated: { seq: number; className: string; queueId: string }[];
  perSecond: { accepted: number[] };
  keys: Record<string, number>;
}

/** Runs mailvolley through a fresh Postfix relay; returns the exit code and the delivery. */
async function throughPostfix(
  relay: Omit<RelayOptions, "receiverPort">,
  args: string[],
  drainTimeout = "60s",
): Promise<{
  code: number | null;
  delivery: Delivery;
  log: string;
  html: string;
  page: string;
  dir: string;
}> {
  const receiverPort = await freePort();
  const postfix = await startPostfixRelay({ ...relay, receiverPort });
  const dir = tempDir("mailvolley-gateway-");
  const json = join(dir, "result.json");
  try {
    const out = await mailvolley(
      [
        "run",
        `${HOST}:${postfix.port}`,
        "--receive",
        `${HOST}:${receiverPort}`,
        "--drain-timeout",
        drainTimeout,
        "--json",
        json,
        "--html",
        join(dir, "report.html"),
        "-q",
        ...args.map((a) => a.replace("DIR", dir)),
      ],
      150_000,
    );
    assert.equal(out.stderr.includes("Error"), false, out.stderr);
    const result = JSON.parse(readFileSync(json, "utf8"));
    assert.deepEqual(schemaProblems(result), [], "the result matches schema/result.schema.json");
    assert.deepEqual(schemaFields(schema, result).problems, [], "every field has a description");
    const page = join(dir, "report.html");
    const html = readFileSync(page, "utf8");
    const log = await settledLog(postfix.log);
    return { code: out.code, delivery: result.delivery, log, html, page, dir };
  } finally {
    await postfix.stop();
  }
}

/** 1,000 messages in 10 sessions through a fresh relay, the receiver faulting by `fault`. */
function faultCase(
  fault: string,
  relay: Omit<RelayOptions, "receiverPort"> = {},
  more: string[] = [],
): ReturnType<typeof throughPostfix> {
  return throughPostfix(relay, ["-m", "1000", "-s", "10", "--sink-fault", fault, ...more]);
}

/** The queue ids Postfix logged "may be sent more than once" for: a final reply timed out. */
function timedOutIds(log: string): Set<string> {
  return new Set(
    log
      .split("\n")
      .filter((line) => line.includes("may be sent more than once"))
      .flatMap((line) => /: ([0-9A-F]+): to=/.exec(line)?.[1] ?? []),
  );
}

/** Queue ids of delivery notices (sender <>) that the receiver refused with 554. */
function refusedNoticeIds(log: string): Set<string> {
  const lines = log.split("\n");
  const notices = new Set(lines.flatMap((line) => /: ([0-9A-F]+): from=<>,/.exec(line)?.[1] ?? []));
  const refused = lines.flatMap(
    (line) => /: ([0-9A-F]+): to=.* status=bounced \(host .* said: 554/.exec(line)?.[1] ?? [],
  );
  return new Set(refused.filter((id) => notices.has(id)));
}

/**
 * The copies the receiver took, per gateway queue id, read back from the files --sink-dump
 * wrote (one per accepted transaction, the relay's queue id in its Received line): a count
 * kept apart from the join's.
 */
function dumpedCopies(dir: string): Map<string, number> {
  const copies = new Map<string, number>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".eml"))) {
    const text = readFileSync(join(dir, name), "latin1");
    const id = /\(Postfix\) with E?SMTP id ([0-9A-F]+)/.exec(text)?.[1] ?? `unknown ${name}`;
    copies.set(id, (copies.get(id) ?? 0) + 1);
  }
  return copies;
}

describe("through a Postfix relay", { timeout: 300_000 }, () => {
  test("header_checks DISCARD of one class: exactly that class lost", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const dir = tempDir("mailvolley-plan-");
    const plan = join(dir, "plan.yaml");
    writeFileSync(plan, "classes:\n  - { name: bulk, share: 19 }\n  - { name: spam, share: 1 }\n");
    const {
      code,
      delivery: d,
      html,
      page,
    } = await throughPostfix(
      { headerChecks: ["/^X-Mailvolley-Class: spam/ DISCARD"] },
      ["--plan", plan, "-m", "400", "-s", "10"],
      // The 20 discarded never come: the drain runs to its end, so it is kept short.
      "12s",
    );
    assert.equal(d.accepted, 400);
    assert.equal(d.delivered, 380);
    assert.equal(d.lost, 20);
    assert.equal(d.duplicated, 0);
    assert.equal(d.classes.spam.lost, 20);
    // The lost mail leads the page, before who set the rate.
    assert.match(
      html,
      /<\/header>\n<div class="verdict lost" data-delivery="lost"><p><strong>Mail lost through the gateway: 20 lost of 400 accepted messages /,
    );
    assert.equal(d.classes.bulk.lost, 0);
    assert.equal(d.firstLost[0].className, "spam");
    assert.match(d.firstLost[0].queueId, /^[0-9A-Za-z]+$/, "the gateway's queue id is recorded");
    assert.equal(d.endToEndMs.count, 380);
    assert.ok(d.endToEndMs.p99 > 0);
    assert.equal(typeof d.drainMs, "number");
    assert.match(html, /data-field="delivery\.lost" data-value="20"/);
    assert.equal(code, 1, "lost messages fail the run");
    if (skipWithoutChromium(t)) return;
    // What came out of the gateway is charted beside the throughput, on the same x axis.
    const check = await openInChromium(page);
    assertChartsDrawn(check, [...DRAWN_CHARTS, "chart-delivery"]);
    // Under 2 s the charts count ms (their own rule): a fast gateway takes the 400 in less.
    const seconds = d.perSecond.accepted.length;
    const [xUnit, scale] = seconds < 2 ? ["ms", 1000] : ["s", 1];
    assert.deepEqual(check.legends["chart-delivery"], [
      xUnit,
      "accepted/s",
      "delivered/s",
      "inside the gateway",
    ]);
    assert.equal(check.charts["chart-delivery"].xMax, seconds * scale);
    assert.equal(check.charts["chart-throughput"].xMax, seconds * scale);
  });

  test("the receiver defers every 10th recipient: all delivered, retries counted", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const { code, delivery: d } = await faultCase("rcpt:451:every=10");
    assert.equal(d.accepted, 1000);
    assert.equal(d.delivered, 1000);
    assert.equal(d.lost, 0);
    assert.ok(d.retried >= 90, `retried ${d.retried}`);
    assert.ok(d.retryAttempts >= 2 * d.retried);
    assert.equal(code, 0);
  });

  test("the gateway delivers twice: duplicates counted as Postfix logs them", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    // Postfix gives up on a final reply after 2 s; the receiver takes 1% of messages and
    // answers them after 3 s, so Postfix sends those again.
    const {
      code,
      delivery: d,
      log,
      dir,
    } = await faultCase("dot:ok:delay=3s:p=0.01", { extra: ["smtp_data_done_timeout = 2s"] }, [
      // The second copies come after Postfix's retry delay, once the first ones are all in.
      "--late-window",
      "8s",
      // Every copy the receiver takes, as a file: the duplicates counted apart from the join.
      "--sink-dump",
      "DIR",
    ]);
    const timedOut = timedOutIds(log);
    assert.ok(timedOut.size > 0, "some final replies timed out");
    const copies = dumpedCopies(dir);
    const twice = [...copies].filter(([, n]) => n >= 2).map(([id]) => id);
    assert.equal(d.duplicated, twice.length, "the join counts the copies the receiver took");
    // Postfix logs "may be sent more than once" when a final reply does not come in time, and
    // its timer runs while the end of the data is still being written. Where the receiver had
    // taken the whole message first (the 3 s replies it held) the message comes twice; on a
    // loaded machine Postfix also gives up before the data reached the receiver, and that
    // message comes once, from the retry. So Postfix's lines are an upper bound, and the exact
    // count is of its timed-out queue ids whose message did arrive twice: every duplicate.
    const doubled = twice.filter((id) => timedOut.has(id));
    assert.equal(d.duplicated, doubled.length, `doubled without a timeout: ${twice}`);
    assert.ok(d.duplicated > 0, "the held replies doubled their messages");
    for (const id of timedOut) assert.ok((copies.get(id) ?? 0) >= 1, `${id} never arrived`);
    for (const m of d.firstDuplicated) assert.ok(doubled.includes(m.queueId), m.queueId);
    assert.equal(d.delivered + d.duplicated, 1000);
    assert.equal(d.lost, 0);
    assert.equal(code, 1, "duplicates fail the run");
  });

  test("the receiver refuses 1% with 554: bounced, their notices joined, not mail", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const { code, delivery: d, log } = await faultCase("dot:554:p=0.01");
    // The receiver's own 554 bounces the message: Postfix gives up on it and owes a notice,
    // whether or not the notice comes back (the fault may refuse the notice too, and the
    // drain does not wait for notices of messages already accounted for).
    const refusedNotices = refusedNoticeIds(log).size;
    const summary = JSON.stringify({ ...d, perSecond: undefined, refusedNotices });
    assert.ok(d.bounced > 0, summary);
    assert.ok(d.notices <= d.bounced, `every notice joined to its message: ${summary}`);
    assert.equal(d.noticesUnjoined, 0, summary);
    assert.equal(d.lost, 0, `a refused message is bounced, never lost: ${summary}`);
    assert.equal(d.delivered + d.bounced, 1000, summary);
    assert.equal(d.foreign, 0, "notices are not counted as mail");
    assert.equal(code, 1, "bounced messages fail the run");
  });

  test("a gateway that strips the keys from the content, without DSN: found by the +tag", async (t) => {
    if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
    const { code, delivery: d } = await throughPostfix(
      {
        headerChecks: ["/^X-Mailvolley-Id:/ IGNORE", "/^Message-ID:/ IGNORE"],
        // No DSN offered: the client sends no ENVID, so only the recipients carry a key.
        extra: ["smtpd_discard_ehlo_keywords = dsn"],
      },
      ["-m", "200", "-s", "4", "--tag-recipients"],
    );
    assert.equal(d.delivered, 200);
    assert.equal(d.foreign, 0);
    assert.deepEqual(d.keys, { traceHeader: 0, messageId: 0, envid: 0, tag: 200 });
    assert.equal(code, 0);
  });
});
