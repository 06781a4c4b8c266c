/**
 * A receiver on another host: `mailvolley sink --json` records what a private Postfix relays,
 * runs sent with `--receive elsewhere` keep their accepted messages, and `report --arrivals`
 * and `merge --arrivals` make the join offline. Their counts must be the ones the run's own
 * receiver (--receive ADDR) finds through the same gateway: the built bin throughout.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { freePort, HOST, requirePeer } from "./helpers/peer.js";
import { havePostfixRelay, startPostfixRelay } from "./helpers/postfix-relay.js";
import { tempDir } from "./helpers/tmp.js";

interface Delivery {
  accepted: number;
  delivered: number;
  lost: number;
  duplicated: number;
  foreign: number;
  receiverClock: string;
  endToEndMs: { count: number };
  classes: Record<string, { lost: number; delivered: number }>;
}

const MESSAGES = 400;
/** 5% of the messages: Postfix's header_checks discard this class. */
const DISCARDED = MESSAGES / 20;

const read = (file: string) => JSON.parse(readFileSync(file, "utf8"));

test("sink --json elsewhere, report and merge --arrivals: the counts --receive gives", {
  timeout: 240_000,
}, async (t) => {
  if (!requirePeer(t, "postfix (root)", havePostfixRelay(), "apt-get install postfix")) return;
  const dir = tempDir("mailvolley-elsewhere-");
  const plan = join(dir, "plan.yaml");
  writeFileSync(plan, "classes:\n  - { name: bulk, share: 19 }\n  - { name: spam, share: 1 }\n");
  const receiverPort = await freePort();
  const postfix = await startPostfixRelay({
    receiverPort,
    headerChecks: ["/^X-Mailvolley-Class: spam/ DISCARD"],
  });
  const load = ["--plan", plan, "-m", String(MESSAGES), "-s", "4", "-q"];
  const gateway = `${HOST}:${postfix.port}`;
  let sink: ReturnType<typeof startMailvolley> | null = null;
  try {
    // The reference: the run's own receiver, the join in process.
    const own = join(dir, "own.json");
    const reference = await mailvolley(
      ["run", gateway, "--receive", `${HOST}:${receiverPort}`, "--drain-timeout", "15s"].concat(
        load,
        ["--json", own],
      ),
      120_000,
    );
    assert.equal(reference.code, 1, reference.stderr);
    const expected = read(own).delivery as Delivery;
    assert.deepEqual([expected.delivered, expected.lost], [MESSAGES - DISCARDED, DISCARDED]);

    // The same load in two shards, received by a sink of its own process (another host's).
    const sinkJson = join(dir, "sink.json");
    sink = startMailvolley(
      ["sink", "--listen", `${HOST}:${receiverPort}`, "--json", sinkJson, "-q"].concat([
        "--exit-after-messages",
        String(MESSAGES - DISCARDED),
      ]),
      120_000,
    );
    const shards = [1, 2].map((i) => join(dir, `shard-${i}.json`));
    for (const [i, file] of shards.entries()) {
      const args = ["run", gateway, "--receive", "elsewhere", "--shard", `${i}/2`];
      const out = await mailvolley(args.concat(load, ["--json", file]), 120_000);
      assert.equal(out.code, 0, `the shard exits 0: it joins nothing itself. ${out.stderr}`);
      assert.equal(read(file).delivery, undefined);
    }
    // The sink stops once every relayed message is in: the discarded ones never come.
    const sunk = await sink.done;
    assert.equal(sunk.code, 0, sunk.stderr);

    const merged = join(dir, "merged.json");
    const out = await mailvolley(
      ["merge", ...shards, "--arrivals", sinkJson, "--json", merged, "-q"],
      60_000,
    );
    assert.equal(out.code, 1, `lost messages fail the merge as they fail the run. ${out.stderr}`);
    const d = read(merged).delivery as Delivery;
    assert.deepEqual(
      [d.accepted, d.delivered, d.lost, d.duplicated, d.classes.spam.lost, d.classes.bulk.lost],
      [
        expected.accepted,
        expected.delivered,
        expected.lost,
        expected.duplicated,
        expected.classes.spam.lost,
        expected.classes.bulk.lost,
      ],
    );
    assert.equal(d.receiverClock, "other", "the latencies cross two clocks");
    assert.equal(d.endToEndMs.count, d.delivered);

    // One shard alone: the other shard's mail at that sink is foreign to it.
    const single = await mailvolley(
      ["report", shards[0], "--arrivals", sinkJson, "--json", join(dir, "one.json")],
      60_000,
    );
    assert.match(single.stdout, /Clocks +two hosts/);
    const one = read(join(dir, "one.json")).delivery as Delivery;
    assert.equal(one.delivered + one.lost, one.accepted);
    assert.equal(one.delivered + one.foreign, d.delivered);
  } finally {
    // A sink still waiting (the test failed before every message came) is stopped here.
    if (sink !== null && sink.child.exitCode === null) {
      sink.child.kill("SIGTERM");
      await sink.done;
    }
    await postfix.stop();
  }
});

test("report --arrivals of a run that kept no ledger: one line naming --receive elsewhere", async () => {
  const dir = tempDir("mailvolley-elsewhere-");
  const run = join(dir, "run.json");
  const made = await mailvolley(["run", "-m", "5", "-s", "1", "-q", "--json", run]);
  assert.equal(made.code, 0, made.stderr);
  const sink = join(dir, "sink.json");
  writeFileSync(
    sink,
    JSON.stringify({
      schema: "mailvolley/sink@1",
      arrivals: { foreign: 0, notices: 0, noticesUnjoined: 0, runs: {} },
    }),
  );
  const out = await mailvolley(["report", run, "--arrivals", sink]);
  assert.equal(out.code, 2);
  assert.match(out.stderr, /^mailvolley: --arrivals: .*--receive elsewhere/);
  assert.doesNotMatch(out.stderr, /\n\s+at /, "no stack trace");
  const notSink = await mailvolley(["report", run, "--arrivals", run]);
  assert.equal(notSink.code, 2);
  assert.match(notSink.stderr, /--arrivals: .* holds no arrivals/);
});
