/**
 * The fault matrix: the built-in sink's faults on every command of a transaction (close without
 * a reply, 421 and close, 4xx, 5xx, a delayed 250), on every third occurrence, with DATA and with BDAT, in
 * reuse and per-message mode. Whatever the server does, the client counts as accepted exactly
 * the messages the server accepted: a held 2xx final reply stands when the server hangs up
 * after it, and nothing is accepted on a reply that was not the message's.
 *
 * Then replies later than the client's timeout, on every command, with DATA, BDAT (a window of
 * whole transactions) and LMTP: the server may take a message whose reply the client gave up
 * on, so client accepted <= sink accepted <= client accepted + unconfirmed in every cell.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import { assertWithinUnconfirmed, runClient } from "./helpers/run-client.js";
import { withSink } from "./sink-helpers.js";

const ACTIONS = ["close", "421", "451", "550", "ok:delay=5ms"] as const;
const BODIES: [string, string[], RawRunOptions][] = [
  ["DATA", ["mail", "rcpt", "data", "dot", "rset"], {}],
  ["BDAT", ["mail", "rcpt", "bdat", "rset"], { chunking: true, window: 3 }],
];
const MODES = ["reuse", "per-message"] as const;
const LOAD: RawRunOptions = {
  sessions: 2,
  messages: 14,
  reconnectAttempts: 1000,
  reconnectDelay: "1ms",
  timeout: { mail: "5s", rcpt: "5s", data: "5s", dot: "5s", bdat: "5s", rset: "5s" },
};

describe("fault matrix: client accepted = sink accepted", () => {
  for (const [body, commands, bodyOptions] of BODIES) {
    for (const command of commands) {
      for (const action of ACTIONS) {
        for (const mode of MODES) {
          const fault = `${command}:${action}:every=3`;
          test(`${body} ${fault}, ${mode}`, async () => {
            await withSink({ faults: [fault], seed: 7 }, async (sink) => {
              const { port } = sink.addresses[0];
              const options = { ...LOAD, ...bodyOptions, mode };
              // runClient asserts attempted = accepted + rejected + failed.
              const result = await runClient(`127.0.0.1:${port}`, options);
              assert.equal(result.messages.attempted, LOAD.messages);
              assert.equal(
                result.messages.accepted,
                sink.stats().messagesAccepted,
                `client ${JSON.stringify(result.messages)}, sink ${JSON.stringify(sink.stats())}`,
              );
            });
          });
        }
      }
    }
  }
});

/** Each body's commands: the session's (EHLO, QUIT) and its transactions'. */
const LATE: [string, string[], RawRunOptions][] = [
  ["DATA", ["ehlo", "mail", "rcpt", "data", "dot", "rset", "quit"], {}],
  ["BDAT", ["ehlo", "mail", "rcpt", "bdat", "rset", "quit"], { chunking: true, window: 3 }],
  ["LMTP", ["ehlo", "mail", "rcpt", "data", "dot", "quit"], { lmtp: true, recipients: 2 }],
];
/** Replies 600 ms late against a 200 ms timeout: the client gives up on each one. */
const LATE_LOAD: RawRunOptions = {
  sessions: 2,
  messages: 8,
  reconnectAttempts: 1000,
  reconnectDelay: "1ms",
  timeout: Object.fromEntries(
    ["ehlo", "mail", "rcpt", "data", "dot", "bdat", "rset", "quit"].map((p) => [p, "200ms"]),
  ),
};

/** Polls (bounded) until the sink has no session open: it has counted whatever it will take. */
async function sinkSettled(sink: { stats(): { sessionsActive: number } }): Promise<void> {
  for (let i = 0; i < 500 && sink.stats().sessionsActive > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("fault matrix: replies later than the timeout are unconfirmed, never failed", () => {
  for (const [body, commands, bodyOptions] of LATE) {
    for (const command of commands) {
      for (const mode of MODES) {
        const fault = `${command}:ok:delay=600ms:every=3`;
        test(`${body} ${fault}, ${mode}`, async () => {
          const lmtp = bodyOptions.lmtp === true;
          await withSink({ faults: [fault], seed: 7, lmtp }, async (sink) => {
            const { port } = sink.addresses[0];
            const options = { ...LATE_LOAD, ...bodyOptions, mode };
            // runClient asserts attempted = accepted + rejected + failed + unconfirmed.
            const result = await runClient(`127.0.0.1:${port}`, options);
            await sinkSettled(sink);
            assert.equal(result.messages.attempted, LATE_LOAD.messages);
            assert.equal(result.messages.rejected, 0, "a late reply is no refusal");
            assertWithinUnconfirmed(result, sink.stats().messagesAccepted, fault);
          });
        });
      }
    }
  }
});
