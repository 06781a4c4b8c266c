/**
 * Runs mailvolley's client in-process against a target and returns its Result, after checking
 * the invariant every test relies on: attempted = accepted + rejected + failed + unconfirmed.
 */
import assert from "node:assert/strict";
import { buildRunConfig, type RawRunOptions } from "../../src/config/run-config.js";
import type { Result } from "../../src/result/result.js";
import { buildResult } from "../../src/result/summarise.js";
import { runThreadShare } from "../../src/run/thread-run.js";
import { splitOverThreads } from "../../src/run/threads.js";

export async function runClient(
  target: string,
  options: RawRunOptions = {},
  trace?: (line: string) => void,
): Promise<Result> {
  const config = buildRunConfig({ target, ...options });
  const [share] = splitOverThreads(config.sessions, config.messages, 1);
  const load = runThreadShare(config, share, { trace });
  const { stats } = await load.result;
  const result = buildResult(stats, {
    mode: config.mode,
    target,
    runId: config.runId,
    sessions: config.sessions,
  });
  assertBalanced(result);
  return result;
}

/** Nothing is lost: every message is counted once as accepted, rejected, failed or unconfirmed. */
export function assertBalanced(result: Result): void {
  const m = result.messages;
  const unconfirmed = m.unconfirmed ?? 0;
  assert.equal(
    m.attempted,
    m.accepted + m.rejected + m.failed + unconfirmed,
    `attempted ${m.attempted} != accepted ${m.accepted} + rejected ${m.rejected} + failed ${m.failed} + unconfirmed ${unconfirmed}`,
  );
}

/**
 * The client and a server's own count agree: every message the client counted accepted, the
 * server took; what else it took, the client sent in full and got no final reply for.
 */
export function assertWithinUnconfirmed(result: Result, serverAccepted: number, why = ""): void {
  const m = result.messages;
  const unconfirmed = m.unconfirmed ?? 0;
  const text = `client ${JSON.stringify(m)}, server accepted ${serverAccepted} ${why}`;
  assert.ok(m.accepted <= serverAccepted, `accepted more than the server took: ${text}`);
  assert.ok(serverAccepted <= m.accepted + unconfirmed, `server took what failed: ${text}`);
}

/** The error rows matching a reply code (and phase), summed. */
export function errorCount(result: Result, reply: string, phase?: string): number {
  return result.errors
    .filter((e) => e.reply === reply && (phase === undefined || e.phase === phase))
    .reduce((sum, e) => sum + e.count, 0);
}
