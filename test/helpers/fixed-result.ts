/** A fixed Result for golden-file and HTML tests: the same events give the same figures. */
import { buildRunConfig } from "../../src/config/run-config.js";
import { runRecord } from "../../src/config/run-record.js";
import { parseThreshold } from "../../src/config/thresholds.js";
import type { Mode, Result } from "../../src/result/result.js";
import { buildResult } from "../../src/result/summarise.js";
import { evaluateThresholds } from "../../src/result/threshold-verdicts.js";
import { RunStats } from "../../src/stats/collector.js";

const T0 = 1_764_683_700_000;

/** A run made of fixed events: the same Result every time. */
export function fixedResult(mode: Mode): Result {
  const perMessage = mode === "per-message";
  let now = T0 + 10;
  const stats = new RunStats(["bulk", "alerts"], 1000, { clock: () => now });
  stats.sample(T0 + 10, 0);
  stats.touch(T0 + 10);
  let connection = 0;
  for (let i = 0; i < 400; i++) {
    const second = Math.floor(i / 100);
    now = T0 + 10 + i * 10;
    const cls = i % 4 === 0 ? 1 : 0;
    const tx = 2 + (i % 50) / 10 + (perMessage ? 3 : 0);
    const message = stats.messageStarted(1);
    const refused = perMessage && i % 10 === 9;
    const limited = i % 40 === 7;
    if (perMessage || i < 4) {
      connection = stats.connectionOpened();
      stats.record("connect", 0.2 + (i % 7) / 100);
      if (refused) {
        stats.connectionRefused();
        stats.reply(
          421,
          "4.7.0",
          "banner",
          `mx${i}.example too many connections from [127.0.0.1]`,
          1,
          connection,
        );
        stats.messageSettled(cls, "failed", 0);
      } else {
        stats.connectionEstablished();
        stats.record("banner", 0.5);
        stats.record("ehlo", 0.4);
      }
    }
    if (!refused && limited) {
      stats.recipientRejected();
      const text = `<a${i}@x.test>: too much mail from 127.0.0.1`;
      stats.reply(450, "4.7.1", "mail", text, 1, connection, message);
      stats.messageSettled(cls, "rejected", 0);
    } else if (!refused) {
      stats.recipientAccepted();
      stats.recordPhase(cls, "envelope", tx / 2);
      stats.recordPhase(cls, "data", tx / 2);
      stats.messageSettled(cls, "accepted", tx);
      if (perMessage) stats.record("quit", 0.3);
    }
    if (perMessage) stats.connectionClosed();
    if (i % 100 === 99) stats.sample(T0 + (second + 1) * 1000 + 20, perMessage ? 3 : 4);
  }
  stats.touch(T0 + 4010);
  stats.sample(T0 + 4010, 0, true);
  const result = buildResult(stats.snapshot(), {
    mode,
    target: "127.0.0.1:2525",
    runId: "0123456789ab",
    sessions: 4,
    apdexMs: 5,
  });
  const config = buildRunConfig({ target: "127.0.0.1:2525", sessions: 4, messages: 400, mode });
  // What was run, with the parts that vary by machine fixed, and a few options only: the whole
  // set grows with every new option, which would churn the golden files (run-record.test.ts
  // checks the whole set).
  result.run = {
    ...runRecord(config),
    version: "0.0.0-test",
    node: "v20.0.0",
    host: "test-host",
    options: { target: "127.0.0.1:2525", mode, sessions: 4, messages: 400 },
  };
  result.thresholds = evaluateThresholds(
    ["p99<50ms", "error_rate<1%", "p99{phase:envelope}<2ms", "rate>=90/s"].map(parseThreshold),
    result,
  );
  return result;
}
