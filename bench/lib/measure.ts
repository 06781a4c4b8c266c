/**
 * The micro-benchmarks' one measure: a function timed in batches, and the heap it allocates
 * per call. Run under `--expose-gc` with a fixed young generation (run-all.ts starts
 * micro-main.ts so) for the heap figure; without it the figure is null.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

export interface MicroResult {
  name: string;
  /** Operations per second (a reply, a message, a buffer). */
  opsPerSecond: number;
  bytesPerSecond: number;
  /** Heap bytes allocated per operation; null when a GC ran during the measured batch. */
  heapBytesPerOp: number | null;
}

let gcSeen = 0;
new PerformanceObserver((list) => {
  gcSeen += list.getEntries().length;
}).observe({ entryTypes: ["gc"] });

// GC entries reach the observer asynchronously; give them time to arrive.
const settle = () => sleep(20);

/**
 * Times `ops` calls of `fn` (after a warm-up), repeated until 0.5 s have passed, best batch
 * wins; then one batch with the heap measured.
 */
export async function measure(
  name: string,
  bytesPerOp: number,
  ops: number,
  fn: (i: number) => void,
): Promise<MicroResult> {
  for (let i = 0; i < ops; i++) fn(i); // warm-up: let the JIT settle
  let best = Number.POSITIVE_INFINITY;
  const until = performance.now() + 500;
  while (performance.now() < until) {
    const t0 = performance.now();
    for (let i = 0; i < ops; i++) fn(i);
    best = Math.min(best, performance.now() - t0);
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  let heapBytesPerOp: number | null = null;
  if (gc) {
    gc();
    await settle();
    const seen = gcSeen;
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < ops; i++) fn(i);
    const after = process.memoryUsage().heapUsed;
    await settle();
    if (gcSeen === seen) heapBytesPerOp = Math.max(0, (after - before) / ops);
  }
  const opsPerSecond = ops / (best / 1000);
  return { name, opsPerSecond, bytesPerSecond: opsPerSecond * bytesPerOp, heapBytesPerOp };
}
