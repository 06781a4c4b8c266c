/**
 * The robustness sweep of issue 17, kept as a table: Postfix smtp-sink's own faults (-f: 5xx,
 * -r: 4xx, -q: hang up without a reply, -Q: 421 and hang up, -W: a late reply) on each command
 * of a transaction, in both modes. Whatever the server does, the run ends by itself, every
 * message is counted once as accepted, rejected or failed, and nothing is accepted that
 * smtp-sink did not take.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import { requirePeer } from "./helpers/peer.js";
import { runClient } from "./helpers/run-client.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";

/** smtp-sink's names of the commands a transaction sends (`.` is the end of data). */
const COMMANDS = ["ehlo", "mail", "rcpt", "data", "."] as const;
type Command = (typeof COMMANDS)[number];

/** What a fault on `command` must do to the messages, by flag. */
const EXPECT: Record<string, (command: Command) => "rejected" | "failed" | "accepted" | "any"> = {
  // 5xx: to EHLO the client falls back to HELO (which smtp-sink answers); else the message goes.
  "-f": (command) => (command === "ehlo" ? "accepted" : "rejected"),
  "-r": (command) => (command === "ehlo" ? "any" : "rejected"),
  "-q": () => "failed",
  "-Q": () => "failed",
};

const MODES = ["reuse", "per-message"] as const;
const LOAD: RawRunOptions = {
  sessions: 2,
  messages: 12,
  reconnectAttempts: 1000,
  reconnectDelay: "1ms",
};

describe("smtp-sink's faults on every command, in both modes", () => {
  for (const flag of Object.keys(EXPECT)) {
    for (const command of COMMANDS) {
      for (const mode of MODES) {
        test(`${flag} ${command}, ${mode}`, async (t) => {
          if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) {
            return;
          }
          const peer = await startPostfixSmtpSink({ args: [flag, command] });
          try {
            // runClient asserts attempted = accepted + rejected + failed.
            const result = await runClient(`${peer.host}:${peer.port}`, { ...LOAD, mode });
            const m = result.messages;
            assert.equal(m.attempted, LOAD.messages);
            const want = EXPECT[flag](command);
            if (want !== "any") assert.equal(m[want], LOAD.messages, JSON.stringify(m));
            const counted = await peer.stop();
            // smtp-sink counts every final dot it reads, also those it answers with a fault.
            const took = command === "." ? 0 : counted.messages;
            assert.equal(m.accepted, took, `accepted ${m.accepted}, smtp-sink took ${took}`);
            const rows = result.errors.reduce((sum, e) => sum + e.count, 0);
            if (m.rejected + m.failed > 0) assert.ok(rows > 0, "errors have their rows");
          } finally {
            await peer.stop();
          }
        });
      }
    }
  }

  test("-W .:1 (a late final reply): accepted, no message lost, in both modes", async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    for (const mode of MODES) {
      const peer = await startPostfixSmtpSink({ args: ["-W", ".:1"] });
      try {
        const result = await runClient(`${peer.host}:${peer.port}`, {
          sessions: 2,
          messages: 4,
          mode,
          pipelining: "off",
        });
        assert.equal(result.messages.accepted, 4, mode);
        const counted = await peer.stop();
        assert.equal(counted.messages, 4, mode);
      } finally {
        await peer.stop();
      }
    }
  });
});
