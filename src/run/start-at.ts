/**
 * `--start-at`: the load of every shard (and every worker thread of a shard) waits for one
 * wall-clock instant, so that shards on several machines start together. The clock is the one
 * the Result's times are read from (performance.timeOrigin + performance.now()), so a shard's
 * recorded start is never before the instant it waited for.
 */

import { epochMs } from "../stats/clock.js";

/** setTimeout takes at most 2^31 − 1 ms; a longer wait is slept in pieces. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A wait for an instant that Ctrl-C (or a stop) can end early. */
export class StartGate {
  private timer: NodeJS.Timeout | null = null;
  private release: (() => void) | null = null;
  private opened = false;

  /** @param atMs epoch ms to wait for; null: no wait. */
  constructor(private readonly atMs: number | null) {}

  /** Resolves at the instant (at once when it is past, or when the gate was opened). */
  wait(): Promise<void> {
    if (this.atMs === null || this.opened) return Promise.resolve();
    const at = this.atMs;
    return new Promise((resolve) => {
      this.release = resolve;
      const check = () => {
        const left = at - epochMs();
        if (left <= 0) this.open();
        else this.timer = setTimeout(check, Math.min(Math.ceil(left), MAX_TIMER_MS));
      };
      check();
    });
  }

  /** Stops waiting: the run goes on at once (and, stopped, ends at once). */
  open(): void {
    this.opened = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const release = this.release;
    this.release = null;
    release?.();
  }
}
