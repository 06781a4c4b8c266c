/**
 * The fault matrix: the built-in sink's faults on every command of a transaction (close without
 * a reply, 4xx, 5xx, a delayed 250), on every third occurrence, with DATA and with BDAT, in
 * reuse and per-message mode. Whatever the server does, the client counts as accepted exactly
 * the messages the server accepted: a held 2xx final reply stands when the server hangs up
 * after it, and nothing is accepted on a reply that was not the message's.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import { runClient } from "./helpers/run-client.js";
import { withSink } from "./sink-helpers.js";

const ACTIONS = ["close", "451", "550", "ok:delay=5ms"] as const;
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
