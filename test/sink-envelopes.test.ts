/**
 * The sink as the seed's MsgSink (issue 16 items 9 and 10): `--log-envelopes` logs each
 * transaction's MAIL FROM and RCPT TOs, its JSON has the first-connect and last-message times,
 * it offers XVERP (which it accepts), and a run with --xverp against a server that does not
 * offer it refuses the sessions instead of sending a parameter the server answers 555 to.
 */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { haveAiosmtpd, startAiosmtpd } from "./helpers/aiosmtpd.js";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { freePort, requirePeer } from "./helpers/peer.js";
import { errorCount, runClient } from "./helpers/run-client.js";
import { tempDir } from "./helpers/tmp.js";

interface LoggedEnvelope {
  time: string;
  from: string;
  rcpts: string[];
  accepted: boolean;
}

function readLog(path: string): LoggedEnvelope[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as LoggedEnvelope);
}

describe("sink --log-envelopes and its time window", () => {
  test("one line per transaction: MAIL FROM, the accepted RCPTs, accepted or not", async () => {
    const dir = tempDir("mailvolley-envelopes-");
    const log = join(dir, "envelopes.log");
    const senders = join(dir, "senders");
    writeFileSync(senders, "a@example.com\nbounce+x=y@example.org\n");
    const sink = await startSink(
      fillSinkOptions({
        listen: ["127.0.0.1:0"],
        starttls: false,
        logEnvelopes: log,
        faults: ["dot:554:every=4"],
      }),
    );
    const before = Date.now();
    const { port } = sink.addresses[0];
    const result = await runClient(`127.0.0.1:${port}`, {
      messages: 8,
      sessions: 1,
      recipients: 2,
      fromFile: senders,
    });
    const stats = sink.stats();
    await sink.close();
    assert.equal(result.messages.accepted, 6);
    const lines = readLog(log);
    assert.equal(lines.length, 8);
    assert.equal(lines.filter((l) => l.accepted).length, stats.messagesAccepted);
    assert.equal(lines.filter((l) => !l.accepted).length, 2);
    assert.deepEqual(
      lines.slice(0, 2).map((l) => l.from),
      ["a@example.com", "bounce+x=y@example.org"],
    );
    for (const line of lines) {
      assert.equal(line.rcpts.length, 2);
      assert.match(line.rcpts[0], /@/);
      assert.ok(Date.parse(line.time) >= before - 1000);
    }
    assert.ok(stats.firstConnectMs >= before - 1000, "first connect");
    assert.ok(stats.lastMessageMs >= stats.firstConnectMs, "last message after first connect");
  });

  test("the CLI's JSON has firstConnectAt and lastMessageAt; a bad log path is one line, exit 2", async () => {
    const bad = await mailvolley([
      "sink",
      "--listen",
      "127.0.0.1:0",
      "--log-envelopes",
      "/nonexistent-dir/x.log",
    ]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /^mailvolley: --log-envelopes: cannot write/);
    assert.equal(bad.stderr.trimEnd().split("\n").length, 1, bad.stderr);
    const dir = tempDir("mailvolley-sink-json-");
    const json = join(dir, "sink.json");
    const port = await freePort();
    const args = ["--exit-after-messages", "2", "--json", json, "-q"];
    const sink = startMailvolley(["sink", "--listen", `127.0.0.1:${port}`, ...args], 30_000);
    const before = Date.now();
    // The sink may not listen yet: reuse mode reconnects until it does.
    const run = await mailvolley([
      "run",
      `127.0.0.1:${port}`,
      "-m",
      "2",
      "-s",
      "1",
      "--workers",
      "1",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((await sink.done).code, 0);
    const counts = JSON.parse(readFileSync(json, "utf8"));
    const first = Date.parse(counts.firstConnectAt);
    const last = Date.parse(counts.lastMessageAt);
    assert.ok(
      first >= before - 1000 && last >= first,
      `${counts.firstConnectAt} ${counts.lastMessageAt}`,
    );
  });
});

describe("XVERP", () => {
  test("the built-in sink offers XVERP and accepts it", async () => {
    const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: false }));
    try {
      const { port } = sink.addresses[0];
      const result = await runClient(`127.0.0.1:${port}`, { messages: 4, xverp: true });
      assert.equal(result.messages.accepted, 4);
      assert.equal(sink.stats().messagesAccepted, 4);
    } finally {
      await sink.close();
    }
  });

  test("--xverp against a server without XVERP: refused as unsupported, nothing sent", async () => {
    const sink = await startSink(
      fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: false, xverp: false }),
    );
    try {
      const { port } = sink.addresses[0];
      const result = await runClient(`127.0.0.1:${port}`, {
        messages: 4,
        sessions: 1,
        xverp: true,
        reconnectAttempts: 1,
      });
      assert.equal(result.messages.accepted, 0);
      assert.equal(sink.stats().mailRejected + sink.stats().messagesAccepted, 0, "no MAIL sent");
      assert.ok(errorCount(result, "unsupported", "mail") >= 1, JSON.stringify(result.errors));
      assert.match(result.errors.find((e) => e.reply === "unsupported")!.text, /XVERP not offered/);
    } finally {
      await sink.close();
    }
  });

  test("aiosmtpd (no XVERP): --xverp is refused, never answered 555", async (t) => {
    if (!requirePeer(t, "aiosmtpd", await haveAiosmtpd(), "apt-get install python3-aiosmtpd")) {
      return;
    }
    const peer = await startAiosmtpd();
    try {
      const result = await runClient(`${peer.host}:${peer.port}`, {
        messages: 3,
        sessions: 1,
        xverp: true,
        reconnectAttempts: 1,
      });
      assert.equal(errorCount(result, "555"), 0);
      assert.ok(errorCount(result, "unsupported", "mail") >= 1, JSON.stringify(result.errors));
    } finally {
      assert.equal((await peer.stop()).messages, 0);
    }
  });
});
