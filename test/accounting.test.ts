/**
 * Every message a run was asked for is counted exactly once:
 * accounting.asked = started + unsent + dropped + stopped, in both modes and three load models
 * (closed with -m, open with --rate and -m, open with --rate and -d), against a target that is
 * down, one that stops taking mail mid-run (`sink --exit-after-messages`), and a run stopped by
 * SIGINT. Where a sink exists, the client's accepted count is the sink's. Nothing here waits on
 * time: the signal goes once the sink has accepted a message.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fillSinkOptions } from "../src/config/sink-config.js";
import type { Result } from "../src/result/result.js";
import { startSink } from "../src/sink/index.js";
import { waitForText } from "./helpers/child.js";
import { startMailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-accounting-");
const MODES = ["reuse", "per-message"] as const;

/** A load model: its options and what it asks for, for a short run and for a long one. */
interface Model {
  name: string;
  short: string[];
  shortAsked: number;
  long: string[];
  longAsked: number;
}

const MODELS: Model[] = [
  {
    name: "closed -m",
    short: ["-m", "20"],
    shortAsked: 20,
    long: ["-m", "1000000"],
    longAsked: 1e6,
  },
  {
    name: "open -m",
    short: ["--rate", "10/s", "-m", "20"],
    shortAsked: 20,
    long: ["--rate", "20/s", "-m", "400"],
    longAsked: 400,
  },
  {
    name: "open -d",
    short: ["--rate", "10/s", "-d", "2s"],
    shortAsked: 20,
    long: ["--rate", "20/s", "-d", "20s"],
    longAsked: 400,
  },
];

/** The identity, exactly, and the messages block agreeing with it. */
function accountsFor(result: Result, asked: number): NonNullable<Result["accounting"]> {
  const m = result.messages;
  const a = result.accounting;
  assert.ok(a, "the result has its accounting");
  assert.equal(
    m.attempted,
    m.accepted + m.rejected + m.failed + (m.unconfirmed ?? 0),
    JSON.stringify(m),
  );
  assert.equal(a.asked, asked, JSON.stringify(a));
  assert.equal(a.started + a.unsent + a.dropped + a.stopped, asked, JSON.stringify(a));
  assert.equal(a.started + a.unsent, m.attempted, "unsent ones are attempted and failed");
  assert.equal(a.dropped, m.dropped);
  const unsentRow = result.errors.find((e) => e.reply === "unsent")?.count ?? 0;
  assert.equal(unsentRow, a.unsent, "the unsent error row counts the unsent messages");
  return a;
}

function run(args: string[]) {
  const json = join(dir, `r-${Math.random().toString(36).slice(2)}.json`);
  const { child, done } = startMailvolley([...args, "-s", "2", "--json", json, "-q"], 90_000);
  return {
    child,
    result: async () => {
      const out = await done;
      return { out, result: JSON.parse(readFileSync(json, "utf8")) as Result };
    },
  };
}

/** `mailvolley sink --exit-after-messages N` on a free port: a target that stops mid-run. */
async function stoppingSink(after: number) {
  const json = join(dir, `sink-${Math.random().toString(36).slice(2)}.json`);
  const { child, done } = startMailvolley(
    ["sink", "--listen", "127.0.0.1:0", "--exit-after-messages", `${after}`, "--json", json],
    90_000,
  );
  const seen = await waitForText(child.stderr, /listening on 127\.0\.0\.1:\d+/);
  const port = /listening on 127\.0\.0\.1:(\d+)/.exec(seen)?.[1];
  return {
    target: `127.0.0.1:${port}`,
    accepted: async () => {
      await done;
      return (JSON.parse(readFileSync(json, "utf8")) as { messages: { accepted: number } }).messages
        .accepted;
    },
  };
}

describe("accounting: every message asked for, counted once", () => {
  for (const mode of MODES) {
    for (const model of MODELS) {
      test(`${mode}, ${model.name}: target down`, async () => {
        const { out, result } = await run([
          "run",
          "127.0.0.1:1",
          "--mode",
          mode,
          ...model.short,
        ]).result();
        assert.equal(out.code, 1, out.stderr);
        const a = accountsFor(result, model.shortAsked);
        assert.equal(result.messages.accepted, 0);
        assert.equal(a.stopped, 0);
        assert.equal(result.generator?.limitedBy, "nobody");
      });

      test(`${mode}, ${model.name}: the target stops taking mail mid-run`, async () => {
        const sink = await stoppingSink(10);
        const longer = model.short.map((v) => (v === "20" ? "60" : v === "2s" ? "6s" : v));
        const { out, result } = await run(["run", sink.target, "--mode", mode, ...longer]).result();
        assert.equal(out.code, 1, out.stderr);
        // -m 60, or 10/s for 6 s: 60 asked either way.
        const a = accountsFor(result, 60);
        assert.equal(a.stopped, 0);
        assert.equal(
          result.messages.accepted,
          await sink.accepted(),
          "the client's accepted is the sink's",
        );
        assert.ok(result.messages.accepted >= 10);
        if (mode === "reuse") {
          // Its sessions give up once the target is gone: the load ended early, and says so.
          assert.equal(a.endedEarly, true);
          assert.equal(result.generator?.limitedBy, "target");
          assert.match(result.generator?.advice ?? "", /target stopped taking sessions/);
        }
      });

      test(`${mode}, ${model.name}: SIGINT mid-run`, async () => {
        const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"] }));
        try {
          const { host, port } = sink.addresses[0];
          const running = run(["run", `${host}:${port}`, "--mode", mode, ...model.long]);
          for (let i = 0; sink.stats().messagesAccepted === 0; i++) {
            assert.ok(i < 6000, "the sink accepted a first message");
            await sleep(10);
          }
          running.child.kill("SIGINT");
          const { out, result } = await running.result();
          assert.equal(out.code, 130, out.stderr);
          assert.equal(result.stoppedBy, "SIGINT");
          const a = accountsFor(result, model.longAsked);
          assert.ok(a.stopped > 0, "what was never handed out is stopped");
          assert.equal(a.unsent, 0);
          assert.equal(a.endedEarly, false);
          assert.equal(result.messages.accepted, sink.stats().messagesAccepted);
        } finally {
          await sink.close();
        }
      });
    }
  }
});
