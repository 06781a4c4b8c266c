/**
 * TLS session resumption against real servers: Postfix smtpd (STARTTLS and implicit TLS on
 * smtps, its session tickets on as by default), the built-in sink and npm smtp-server. Each
 * session's first connection is a full handshake and every later one resumes, so the counts are
 * exact whatever the machine's load; --no-tls-resume makes every handshake full; and resumption
 * changes nothing about what a message counts as.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { mergeResults } from "../src/result/merge-results.js";
import type { Result } from "../src/result/result.js";
import { startSink } from "../src/sink/index.js";
import { mailvolley, startMailvolley } from "./helpers/cli.js";
import { requirePeer } from "./helpers/peer.js";
import { haveSmtpd, startPostfixSmtpd } from "./helpers/postfix-smtpd.js";
import { runClient } from "./helpers/run-client.js";
import { startSmtpServer } from "./helpers/smtp-server.js";
import { tempDir } from "./helpers/tmp.js";

const INSTALL = "apt-get install postfix, and run the tests as root (master must start as root)";

/** `mailvolley run TARGET ARGS` as a user runs it; its JSON result. */
async function runCli(target: string, args: string[]): Promise<{ result: Result; stdout: string }> {
  const json = join(tempDir("mailvolley-tls-"), "result.json");
  const out = await mailvolley(["run", target, ...args, "--json", json], 120_000);
  assert.equal(out.code, 0, out.stderr);
  return { result: JSON.parse(readFileSync(json, "utf8")) as Result, stdout: out.stdout };
}

/** `mailvolley run ARGS` against the built-in sink, whose faults fail messages (exit 1): its JSON. */
async function runCliAllowingFailures(args: string[]): Promise<{ result: Result }> {
  const json = join(tempDir("mailvolley-tls-"), "result.json");
  const out = await mailvolley(["run", ...args, "--json", json], 120_000);
  assert.equal(out.code, 1, out.stderr);
  return { result: JSON.parse(readFileSync(json, "utf8")) as Result };
}

/** Every message accepted, no error, one handshake per connection. */
function assertExact(result: Result, messages: number, connections: number): void {
  assert.deepEqual(result.errors, []);
  assert.equal(result.messages.accepted, messages);
  assert.equal(result.connections.opened, connections);
  assert.ok(result.tls, "a TLS run reports tls");
  assert.equal(result.tls.full + result.tls.resumed, connections);
  assert.equal(result.latency.tlsMs.count, connections);
  assert.equal(result.tls.fullMs.count, result.tls.full);
  assert.equal(result.tls.resumedMs.count, result.tls.resumed);
  assert.equal(
    result.tls.seen.reduce((sum, s) => sum + s.count, 0),
    connections,
  );
}

describe("TLS session resumption", () => {
  test("Postfix smtpd, STARTTLS and smtps: resumed from each session's second connection on", async (t) => {
    if (!requirePeer(t, "postfix smtpd", haveSmtpd(), INSTALL)) return;
    const peer = await startPostfixSmtpd({ tls: true });
    try {
      const target = `${peer.host}:${peer.port}`;
      const perMessage = ["--mode", "per-message", "-s", "4", "-m", "120"];
      const resumed = await runCli(target, ["--starttls", ...perMessage]);
      assertExact(resumed.result, 120, 120);
      assert.equal(resumed.result.tls?.full, 4);
      assert.equal(resumed.result.tls?.resumed, 116);
      assert.match(resumed.stdout, /^TLS +full 4 \(p50 [\d.]+ ms\) +resumed 116 /m);

      const full = await runCli(target, ["--starttls", "--no-tls-resume", ...perMessage]);
      assertExact(full.result, 120, 120);
      assert.equal(full.result.tls?.full, 120);
      assert.equal(full.result.tls?.resumed, 0);

      const smtps = await runCli(`${peer.host}:${peer.smtpsPort}`, [
        "--tls-on-connect",
        ...perMessage,
      ]);
      assertExact(smtps.result, 120, 120);
      assert.equal(smtps.result.tls?.full, 4);
      assert.equal(smtps.result.tls?.resumed, 116);

      const reuse = await runCli(target, ["--starttls", "-s", "4", "-m", "200"]);
      assertExact(reuse.result, 200, 4);
      assert.equal(reuse.result.tls?.full, 4);

      const counts = await peer.stop();
      assert.equal(counts.messages, 120 * 3 + 200, "Postfix delivered every message once");
    } finally {
      await peer.stop();
    }
  });

  test("Postfix smtpd, TLS 1.2: session tickets, and session IDs when tickets are off", async (t) => {
    if (!requirePeer(t, "postfix smtpd", haveSmtpd(), INSTALL)) return;
    const tls12 = "smtpd_tls_protocols = !SSLv2, !SSLv3, !TLSv1, !TLSv1.1, !TLSv1.3";
    // Without tickets smtpd resumes from its session cache, by session ID (RFC 5246 §7.3).
    const sessionIds = [
      "tls_ssl_options = NO_TICKET",
      "smtpd_tls_session_cache_database = btree:$data_directory/smtpd_scache",
    ];
    for (const extra of [[tls12], [tls12, ...sessionIds]]) {
      const peer = await startPostfixSmtpd({ tls: true, extra });
      try {
        const target = `${peer.host}:${peer.port}`;
        const args = ["--starttls", "--mode", "per-message", "-s", "2", "-m", "30"];
        const { result } = await runCli(target, args);
        assertExact(result, 30, 30);
        assert.deepEqual([result.tls?.full, result.tls?.resumed], [2, 28], extra.join("; "));
        assert.equal(result.tls?.seen[0].version, "TLSv1.2");
        assert.equal((await peer.stop()).messages, 30);
      } finally {
        await peer.stop();
      }
    }
  });

  test("built-in sink: tickets resumed; --no-tls-resume (tlsResume false) resumes none", async () => {
    const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: true }));
    try {
      const { host, port } = sink.addresses[0];
      const options = { sessions: 3, messages: 30, starttls: true, mode: "per-message" };
      const resumed = await runClient(`${host}:${port}`, options);
      assertExact(resumed, 30, 30);
      assert.equal(resumed.tls?.full, 3);
      assert.equal(resumed.tls?.resumed, 27);
      const full = await runClient(`${host}:${port}`, { ...options, tlsResume: false });
      assertExact(full, 30, 30);
      assert.equal(full.tls?.resumed, 0);
      const counted = sink.stats();
      assert.equal(counted.tlsFull, 3 + 30);
      assert.equal(counted.tlsResumed, 27);
    } finally {
      await sink.close();
    }
  });

  test("reuse: a session reconnecting after a 421 resumes with the ticket of its last connection", async () => {
    // Every 4th MAIL answered 421 and the connection closed (RFC 5321 §3.8): each slot
    // reconnects, and its ticket outlives the connection it came from, so only each slot's
    // first handshake is full, however the reconnects interleave.
    const fault = ["--sink-fault", "mail:421:every=4"];
    const { result } = await runCliAllowingFailures([
      "--starttls",
      "-s",
      "2",
      "-m",
      "20",
      ...fault,
    ]);
    assert.equal(result.messages.failed, 5);
    assert.equal(result.messages.accepted, 15);
    assert.ok(result.connections.opened > 2, "the 421s made the sessions reconnect");
    assert.equal(result.tls?.full, 2);
    assert.equal(result.tls?.resumed, result.connections.opened - 2);
  });

  test("merged shards add up full and resumed handshakes, their histograms and what was seen", async () => {
    const sink = await startSink(fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: true }));
    try {
      const { host, port } = sink.addresses[0];
      const options = { sessions: 2, messages: 10, starttls: true, mode: "per-message" };
      const a = await runClient(`${host}:${port}`, options);
      const b = await runClient(`${host}:${port}`, { ...options, tlsResume: false });
      const merged = mergeResults([a, b]);
      assert.equal(merged.tls?.full, 2 + 10);
      assert.equal(merged.tls?.resumed, 8);
      assert.equal(merged.tls?.fullMs.count, 12);
      assert.equal(merged.tls?.resumedMs.count, 8);
      assert.equal(
        merged.tls?.seen.reduce((sum, s) => sum + s.count, 0),
        20,
      );
      assert.equal(merged.latency.tlsMs.count, 20);
    } finally {
      await sink.close();
    }
  });

  test("sink --no-tls-resume (tlsResume false): the client offers tickets, every handshake is full", async () => {
    for (const listen of ["127.0.0.1:0", "tls://127.0.0.1:0"]) {
      const sink = await startSink(
        fillSinkOptions({ listen: [listen], starttls: true, tlsResume: false }),
      );
      try {
        const { host, port } = sink.addresses[0];
        const implicit = listen.startsWith("tls:");
        const result = await runClient(`${host}:${port}`, {
          sessions: 2,
          messages: 12,
          mode: "per-message",
          ...(implicit ? { tlsOnConnect: true } : { starttls: true }),
        });
        assertExact(result, 12, 12);
        assert.equal(result.tls?.full, 12);
        assert.equal(sink.stats().tlsFull, 12);
        assert.equal(sink.stats().tlsResumed, 0);
      } finally {
        await sink.close();
      }
    }
  });

  test("npm smtp-server: every handshake counted as full or resumed, every message once", async () => {
    const peer = await startSmtpServer({ disabledCommands: ["AUTH"], hideSTARTTLS: false });
    const result = await runClient(`${peer.host}:${peer.port}`, {
      sessions: 2,
      messages: 20,
      starttls: true,
      mode: "per-message",
    });
    const counts = await peer.stop();
    assertExact(result, 20, 20);
    assert.equal(counts.messages, 20);
    assert.equal(result.tls?.full, 2);
    assert.equal(result.tls?.resumed, 18);
  });

  test("mailvolley sink counts full and resumed handshakes in its summary and JSON", async () => {
    for (const [flags, full, resumed] of [
      [[], 2, 8],
      [["--no-tls-resume"], 10, 0],
    ] as const) {
      const args = [
        "sink",
        "--listen",
        "127.0.0.1:0",
        "--exit-after-messages",
        "10",
        "--json",
        "-",
      ];
      const sink = startMailvolley([...args, ...flags]);
      const port = await new Promise<number>((resolve, reject) => {
        let stderr = "";
        sink.child.stderr?.on("data", (d: string) => {
          stderr += d;
          const m = /listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
          if (m) resolve(Number(m[1]));
        });
        sink.done.then(() => reject(new Error(`sink exited early: ${stderr}`)));
      });
      const run = ["--starttls", "-m", "10", "-s", "2", "--mode", "per-message"];
      const client = await runCli(`127.0.0.1:${port}`, run);
      assert.equal(client.result.tls?.full, full);
      assert.equal(client.result.tls?.resumed, resumed);
      const out = await sink.done;
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, new RegExp(`TLS handshakes full ${full}  resumed ${resumed}`));
      const json = JSON.parse(out.stdout.slice(out.stdout.indexOf("{")));
      assert.deepEqual(json.tls, { full, resumed });
    }
  });

  test("compare --starttls: per-message full, per-message resumed and reuse, ratios in the headline", async () => {
    const json = join(tempDir("mailvolley-tls-"), "compare.json");
    const args = ["compare", "--starttls", "-m", "60", "-s", "3", "--pause", "0", "--json", json];
    const out = await mailvolley(args, 120_000);
    assert.equal(out.code, 0, out.stderr);
    assert.match(
      out.stdout,
      /TLS resumption delivered [\d,.]+ messages\/s against [\d,.]+ with a full handshake per connection \(×[\d.]+\);/,
    );
    assert.match(out.stdout, /session reuse [\d,.]+ \(×[\d.]+ full, ×[\d.]+ resumed\)/);
    assert.match(
      out.stdout,
      /per-message full +per-message resumed +reuse +resumed \/ full +reuse \/ per-message full/,
    );
    const runs = (JSON.parse(readFileSync(json, "utf8")) as { runs: Result[] }).runs;
    assert.deepEqual(
      runs.map((r) => [r.mode, r.messages.accepted, r.tls?.full, r.tls?.resumed]),
      [
        ["per-message", 60, 60, 0],
        ["per-message", 60, 3, 57],
        ["reuse", 60, 3, 0],
      ],
    );
  });
});
