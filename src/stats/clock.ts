/**
 * The thread's clock, and the one epoch time the run, its stats and the sink read from it. The
 * hot path reads it once per event or per chunk. `performance` is imported rather than read as
 * the global: the global is an accessor on globalThis, a getter call on every read (about
 * 15 ns), and `performance.timeOrigin` is a getter too (about 20 ns), though it is fixed for the
 * thread's life. A message reads them about a dozen times.
 */
import { performance } from "node:perf_hooks";

export { performance };

/** Epoch ms of performance.now()'s zero on this thread. */
export const TIME_ORIGIN = performance.timeOrigin;

/** A performance.now() reading (now, by default) as epoch ms with a sub-millisecond fraction. */
export const epochMs = (now = performance.now()): number => TIME_ORIGIN + now;
