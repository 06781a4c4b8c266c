/**
 * A share's accounting of the messages no session started: arrivals the open model dropped,
 * and at the end what the run was asked for that was never handed out. Each is counted once.
 */
import type { RunConfig } from "../config/run-config.js";
import type { MessageWire } from "../messages/message-wire.js";
import type { RunStats } from "../stats/collector.js";
import type { Slot } from "./slot.js";
import { unsentReason, type WorkSource } from "./work.js";

/** Arrivals the work source dropped since the last call: counted as they go, per interval. */
export function countDropped(stats: RunStats, work: WorkSource): void {
  const more = work.dropped - stats.counters.dropped;
  if (more > 0) stats.messagesDropped(more);
}

/**
 * What the run was asked for, and the messages asked for that no session took: stopped when
 * the run was told to stop (a signal, --abort-on-fail), unsent (failed, in their class) when
 * every session gave up first. Either way each is counted once, never lost.
 */
export function countLeft(
  stats: RunStats,
  work: WorkSource,
  wire: MessageWire,
  config: RunConfig,
  slots: readonly Slot[],
  stopped: boolean,
): void {
  const left = work.left;
  stats.loadEnded(work.asked, stopped ? left : 0, !stopped && work.cutShort);
  if (stopped || left <= 0) return;
  // Each in its class: take the sequence numbers no session took (one class takes them all;
  // a long schedule can leave millions).
  const perClass = config.classes.map(() => 0);
  if (perClass.length === 1) perClass[0] = left;
  else for (let n = 0; n < left; n++) perClass[wire.classOf(work.takeLeft()).index]++;
  perClass.forEach((count, cls) => {
    if (count > 0) stats.messagesUnsent(cls, count);
  });
  stats.failure("unsent", "connect", unsentReason(config, slots), left);
}
