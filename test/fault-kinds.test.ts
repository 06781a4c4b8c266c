/**
 * Every kind of fault the built-in sink injects, on the end of a message, with each protocol
 * the client speaks: SMTP with DATA, SMTP with BDAT (RFC 3030, where a `dot` rule answers BDAT
 * LAST) and LMTP (RFC 2033, where a `dot` rule answers each recipient's reply after the data).
 * Each fault must fire (its mark is in the client's counts) and the two sides must agree:
 * client accepted <= sink accepted <= client accepted + unconfirmed.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import type { Result } from "../src/result/result.js";
import { assertWithinUnconfirmed, errorCount, runClient } from "./helpers/run-client.js";
import { withSink } from "./sink-helpers.js";

type Protocol = "DATA" | "BDAT" | "LMTP";

const PROTOCOLS: Record<Protocol, RawRunOptions> = {
  DATA: {},
  BDAT: { chunking: true, window: 2 },
  // Two recipients: a `dot` rule every 2nd time answers each message's second recipient.
  LMTP: { lmtp: true, recipients: 2 },
};

const LOAD: RawRunOptions = {
  sessions: 1,
  messages: 6,
  mode: "per-message",
  reconnectAttempts: 1000,
  reconnectDelay: "1ms",
  timeout: { dot: "200ms", bdat: "200ms" },
};

/** The phase a fault on the end of the message is counted under. */
const endPhase = (p: Protocol) => (p === "BDAT" ? "bdat" : "dot");

/**
 * Each kind: the rule, and what it must leave in the client's result. every=2 fires on
 * messages 2, 4, 6 (SMTP), or on every message's second recipient (LMTP).
 */
const KINDS: [kind: string, rule: string, mark: (r: Result, p: Protocol) => void][] = [
  [
    "a 4xx reply",
    "dot:451:every=2",
    (r, p) => {
      assert.equal(errorCount(r, "451", endPhase(p)), p === "LMTP" ? 6 : 3);
      // LMTP: the first recipient took each message, so none is rejected (RFC 2033 §4.2).
      assert.equal(r.messages.rejected, p === "LMTP" ? 0 : 3);
    },
  ],
  [
    "a 5xx reply",
    "dot:550:every=2",
    (r, p) => assert.equal(errorCount(r, "550", endPhase(p)), p === "LMTP" ? 6 : 3),
  ],
  [
    "421 and close",
    "dot:421:every=2",
    (r, p) => {
      assert.equal(errorCount(r, "421", endPhase(p)), p === "LMTP" ? 6 : 3);
      // LMTP: delivered to the first recipient before the 421, so accepted.
      assert.equal(r.messages.failed, p === "LMTP" ? 0 : 3);
    },
  ],
  [
    "close without a reply",
    "dot:close:every=2",
    (r, p) => {
      assert.equal(errorCount(r, "closed", endPhase(p)), p === "LMTP" ? 6 : 3);
      // Sent whole and never answered: unconfirmed (LMTP: the first recipient took it).
      assert.equal(r.messages.unconfirmed, p === "LMTP" ? 0 : 3);
    },
  ],
  [
    "a delay past the timeout",
    "dot:ok:delay=600ms:every=2",
    (r, p) => {
      assert.equal(errorCount(r, "timeout", endPhase(p)), p === "LMTP" ? 6 : 3);
      assert.equal(r.messages.unconfirmed, p === "LMTP" ? 0 : 3);
    },
  ],
  [
    "a delay within the timeout",
    "dot:ok:delay=20ms:every=2",
    (r) => assert.equal(r.messages.accepted, 6),
  ],
];

describe("every fault kind with every protocol", () => {
  for (const [protocol, options] of Object.entries(PROTOCOLS) as [Protocol, RawRunOptions][]) {
    for (const [kind, rule, mark] of KINDS) {
      test(`${protocol}: ${kind} (${rule})`, async () => {
        await withSink({ faults: [rule], lmtp: protocol === "LMTP" }, async (sink) => {
          const { port } = sink.addresses[0];
          const result = await runClient(`127.0.0.1:${port}`, { ...LOAD, ...options });
          assert.equal(result.messages.attempted, 6);
          mark(result, protocol);
          await sinkIdle(sink);
          assertWithinUnconfirmed(result, sink.stats().messagesAccepted, rule);
        });
      });
    }
  }

  test("DATA and LMTP: an abort during the content", async () => {
    for (const protocol of ["DATA", "LMTP"] as const) {
      const rule = "data:abort:after=10:every=2";
      await withSink({ faults: [rule], lmtp: protocol === "LMTP" }, async (sink) => {
        const { port } = sink.addresses[0];
        const options = { ...LOAD, ...PROTOCOLS[protocol] };
        const result = await runClient(`127.0.0.1:${port}`, options);
        assert.equal(result.messages.accepted, 3, protocol);
        assert.equal(sink.stats().messagesAccepted, 3, protocol);
        const m = result.messages;
        assert.equal(m.failed + (m.unconfirmed ?? 0), 3, `${protocol}: ${JSON.stringify(m)}`);
      });
    }
  });
});

/** Polls (bounded) until the sink has no session open: it has counted what it will take. */
async function sinkIdle(sink: { stats(): { sessionsActive: number } }): Promise<void> {
  for (let i = 0; i < 500 && sink.stats().sessionsActive > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
