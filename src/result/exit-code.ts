/**
 * The exit code a finished run earns, worked out once from its Result: the load's own verdict,
 * the delivery through a gateway, and the thresholds evaluated into it.
 */

import { sinkAgrees } from "./accounting.js";
import type { DeliveryResult, Result } from "./result.js";
import { evaluateThresholds, type Threshold } from "./threshold-verdicts.js";

/** Lost, partial, bounced or duplicated messages fail the run, as a failed message does. */
export function deliveryFailed(d: DeliveryResult): boolean {
  return d.lost > 0 || d.partial > 0 || d.bounced > 0 || d.duplicated > 0;
}

/**
 * Whether the run failed (exit 1): a message not accepted, an arrival dropped (the open model
 * asked for more than was sent), a self-test whose sink counted otherwise, a connection that
 * failed on this machine's own limits (reply `local-limit`), or, through a gateway, a message
 * not delivered once.
 */
export function runFailed(result: Result): boolean {
  const m = result.messages;
  if (m.accepted !== m.attempted) return true;
  if (m.dropped > 0) return true;
  if (!sinkAgrees(result)) return true;
  if (result.errors.some((e) => e.reply === "local-limit")) return true;
  return result.delivery !== undefined && deliveryFailed(result.delivery);
}

/** Whether a threshold evaluated into the Result (Result.thresholds) was breached. */
export function thresholdsBreached(result: Result): boolean {
  return (result.thresholds ?? []).some((t) => !t.passed);
}

/**
 * The exit code of one run (the CLI's table, cli/exit-codes.ts): 99 when one of `thresholds`
 * is breached, else 1 when the run failed (runFailed), else 0. A signal's code is the CLI's.
 */
export function exitCodeOf(result: Result, thresholds: readonly Threshold[] = []): 0 | 1 | 99 {
  if (thresholds.length > 0 && evaluateThresholds(thresholds, result).some((t) => !t.passed)) {
    return 99;
  }
  return runFailed(result) ? 1 : 0;
}
