/**
 * Signals that came while the process was still loading: bin/mailvolley.js holds SIGINT and
 * SIGTERM from its first line, before the bundle is read, and whoever installs the real
 * handlers takes the held ones over (and replays them), so that a signal right after start
 * still gets the report it promises.
 */
import type { StopSignal } from "./exit-codes.js";

const KEY = Symbol.for("mailvolley.earlySignals");

interface Held {
  held: StopSignal[];
  hold: (signal: StopSignal) => void;
}

/** Stops holding and returns the signals held so far (once; later calls get none). */
export function takeEarlySignals(): StopSignal[] {
  const slot = globalThis as Record<symbol, Held | undefined>;
  const early = slot[KEY];
  if (early === undefined) return [];
  delete slot[KEY];
  process.off("SIGINT", early.hold);
  process.off("SIGTERM", early.hold);
  return early.held;
}
