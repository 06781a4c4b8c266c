/** `mailvolley sink`'s exit summary prints its counts as the run's summary does: "20,000". */
import assert from "node:assert/strict";
import { test } from "node:test";
import { sinkSummary } from "../src/cli/sink-command.js";
import { zeroSinkCounters } from "../src/sink/counters.js";

test("the sink's summary groups its counts by thousands", () => {
  const summary = sinkSummary({
    ...zeroSinkCounters(),
    sessions: 12_000,
    connectionsRefused: 1_500,
    messagesAccepted: 1_234_567,
    messagesRejected: 2_000,
    mailRejected: 3_000,
    recipients: 1_234_567,
    recipientsRejected: 4_000,
    bytes: 1_300_000_000,
    tlsFull: 10_000,
    tlsResumed: 90_000,
    classes: {},
  });
  assert.equal(
    summary,
    [
      "sessions 12,000  refused 1,500",
      "messages accepted 1,234,567  rejected 2,000  MAIL refused 3,000",
      "recipients 1,234,567  rejected 4,000  bytes 1,300,000,000",
      "TLS handshakes full 10,000  resumed 90,000",
      "",
    ].join("\n"),
  );
});
