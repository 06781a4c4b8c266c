/**
 * The robustness sweep kept as a table: Postfix smtp-sink's own faults (-f: 5xx, -r: 4xx,
 * -q: hang up without a reply, -Q: 421 and hang up, -W CMD:1: every reply to CMD a second
 * late) on each command of a transaction, in both modes. Whatever the server does, the run
 * ends by itself, every message is counted once as accepted, rejected, failed or unconfirmed,
 * and the client's accepted equals what smtp-sink took.
 *
 * The delay column is smtp-sink's -W, which takes any command (its -w DELAY is -W data:DELAY;
 * -A and -H delay an abort and a read, not a reply). It runs lock-step (--pipelining off):
 * smtp-sink delays a reply by parking it while it goes on reading, so with pipelining the
 * replies to the commands behind a delayed MAIL, RCPT or dot overtake it, out of the order
 * RFC 2920 §3.1 requires. That case has its own test below: nothing counts as accepted then.
 * smtp-sink has no BDAT (it never offers CHUNKING), so the BDAT cells of the fault matrix run
 * against the built-in sink only (test/fault-matrix.test.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import { requirePeer } from "./helpers/peer.js";
import { assertWithinUnconfirmed, runClient } from "./helpers/run-client.js";
import { havePostfix, startPostfixSmtpSink } from "./helpers/smtp-sink.js";

/** smtp-sink's names of the commands a transaction sends (`.` is the end of data). */
const COMMANDS = ["ehlo", "mail", "rcpt", "data", "."] as const;
type Command = (typeof COMMANDS)[number];

/** smtp-sink's flag and its argument for a fault on `command`. */
const FAULT_ARGS: Record<string, (command: Command) => string[]> = {
  "-f": (command) => ["-f", command],
  "-r": (command) => ["-r", command],
  "-q": (command) => ["-q", command],
  "-Q": (command) => ["-Q", command],
  // One second: whole seconds are -W's unit.
  "-W": (command) => ["-W", `${command}:1`],
};

/** What a fault on `command` must do to the messages, by flag. */
const EXPECT: Record<
  string,
  (command: Command) => "rejected" | "failed" | "accepted" | "unsettled" | "any"
> = {
  // 5xx: to EHLO the client falls back to HELO (which smtp-sink answers); else the message goes.
  "-f": (command) => (command === "ehlo" ? "accepted" : "rejected"),
  "-r": (command) => (command === "ehlo" ? "any" : "rejected"),
  // A hang-up after the dot leaves the message sent whole, unconfirmed; the envelopes pipelined
  // behind it fail (unsettled: failed or unconfirmed, none accepted).
  "-q": (command) => (command === "." ? "unsettled" : "failed"),
  "-Q": () => "failed",
  "-W": () => "accepted",
};

const MODES = ["reuse", "per-message"] as const;
const LOAD: RawRunOptions = {
  sessions: 2,
  messages: 12,
  reconnectAttempts: 1000,
  reconnectDelay: "1ms",
};
/** A second a reply, lock-step (see above): four messages keep a cell to a few seconds. */
const DELAYED_LOAD: RawRunOptions = { ...LOAD, messages: 4, pipelining: "off" };

describe("smtp-sink's faults on every command, in both modes", () => {
  for (const flag of Object.keys(EXPECT)) {
    for (const command of COMMANDS) {
      for (const mode of MODES) {
        test(`${flag} ${command}, ${mode}`, async (t) => {
          if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) {
            return;
          }
          const peer = await startPostfixSmtpSink({ args: FAULT_ARGS[flag](command) });
          const load = flag === "-W" ? DELAYED_LOAD : LOAD;
          try {
            // runClient asserts attempted = accepted + rejected + failed.
            const result = await runClient(`${peer.host}:${peer.port}`, { ...load, mode });
            const m = result.messages;
            assert.equal(m.attempted, load.messages);
            const want = EXPECT[flag](command);
            const unsettled = m.failed + (m.unconfirmed ?? 0);
            if (want === "unsettled") assert.equal(unsettled, load.messages, JSON.stringify(m));
            else if (want !== "any") assert.equal(m[want], load.messages, JSON.stringify(m));
            const counted = await peer.stop();
            // smtp-sink counts every final dot it reads, also those it answers with a fault
            // (a delay is no fault: it takes the message).
            const took = command === "." && flag !== "-W" ? 0 : counted.messages;
            assert.equal(m.accepted, took, `accepted ${m.accepted}, smtp-sink took ${took}`);
            const rows = result.errors.reduce((sum, e) => sum + e.count, 0);
            if (m.rejected + unsettled > 0) assert.ok(rows > 0, "errors have their rows");
          } finally {
            await peer.stop();
          }
        });
      }
    }
  }

  test("-W with pipelining: replies overtake the delayed one; none counts as accepted", async (t) => {
    if (!requirePeer(t, "postfix smtp-sink", havePostfix(), "apt-get install postfix")) return;
    for (const command of ["mail", "rcpt", "."] as const) {
      const peer = await startPostfixSmtpSink({ args: ["-W", `${command}:1`] });
      try {
        const result = await runClient(`${peer.host}:${peer.port}`, { ...LOAD, messages: 4 });
        const m = result.messages;
        // The dot's 250 comes after the next MAIL's: smtp-sink took the message, but its reply
        // cannot be told from the next MAIL's (the held-2xx rule): sent whole, the message is
        // unconfirmed, and smtp-sink's count lies within it.
        assert.equal(m.accepted, 0, `${command}: ${JSON.stringify(m)}`);
        if (command === ".") {
          assert.ok(result.errors.some((e) => e.reply === "protocol" && e.phase === "dot"));
          assertWithinUnconfirmed(result, (await peer.stop()).messages, "smtp-sink -W .:1");
        } else {
          assert.equal((await peer.stop()).messages, 0, `${command}: smtp-sink took none`);
        }
      } finally {
        await peer.stop();
      }
    }
  });
});
