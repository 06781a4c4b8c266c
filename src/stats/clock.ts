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

/**
 * A time not taken yet. -0 equals 0 in every comparison, but V8 stores it as a double where 0
 * is a small integer: a field that will hold performance.now() and starts at 0 changes its
 * representation at the first real time, which deprecates its objects' shape and migrates each
 * object when next touched. For a session's preallocated transactions that is every session's
 * first use of each (12,000 migrations over the first minute with 3,000 sessions at 200/s).
 */
export const NO_TIME = -0;
