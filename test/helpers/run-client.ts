/**
 * Runs mailvolley's client in-process against a target and returns its Result, after checking
 * the invariant every test relies on: attempted = accepted + rejected + failed.
 */
import assert from "node:assert/strict";
import { buildRunConfig, type RawRunOptions } from "../../src/config/run-config.js";
import { runThreadShare } from "../../src/run/thread-run.js";
import { splitOverThreads } from "../../src/run/threads.js";
import type { Result } from "../../src/stats/result.js";
import { buildResult } from "../../src/stats/summarise.js";

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

/** Nothing is lost: every message is counted once as accepted, rejected or failed. */
export function assertBalanced(result: Result): void {
  const m = result.messages;
  assert.equal(
    m.attempted,
    m.accepted + m.rejected + m.failed,
    `attempted ${m.attempted} != accepted ${m.accepted} + rejected ${m.rejected} + failed ${m.failed}`,
  );
}

/** The error rows matching a reply code (and phase), summed. */
export function errorCount(result: Result, reply: string, phase?: string): number {
  return result.errors
    .filter((e) => e.reply === reply && (phase === undefined || e.phase === phase))
    .reduce((sum, e) => sum + e.count, 0);
}
