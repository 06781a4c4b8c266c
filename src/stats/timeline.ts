/**
 * MAILVOLLEY_TIMELINE=1: the way from process start to exit as marks on stderr, printed when
 * the process exits, in milliseconds since Node's time origin (`performance.timeOrigin`, the
 * process start). A debugging aid for the fixed cost of a run (bench/fixed-cost.ts
 * reads it): what a run spends before its first connect and after its last reply. Unset, a mark
 * costs one comparison.
 *
 *   mailvolley timeline:      0.0 ms  process start (epoch 1764754512345.678 ms)
 *   mailvolley timeline:    190.2 ms  modules loaded (CPU 171.3 ms)
 *   mailvolley timeline:    212.4 ms  first connect
 *   …
 *
 * A mark taken as it happens carries the process's CPU so far (every thread): on a busy machine
 * that moves far less than the time. First connect and last reply come from the run's counters
 * afterwards, so they carry none.
 */
import { writeSync } from "node:fs";

const enabled = process.env.MAILVOLLEY_TIMELINE === "1";
const marks: [name: string, sinceOriginMs: number][] = [];

/** The process's CPU so far (every thread), for a mark's name: robust where time is not. */
function cpuNote(): string {
  const cpu = process.cpuUsage();
  return `CPU ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms`;
}

/** Marks `name` now, with the CPU used so far. */
export function mark(name: string): void {
  if (!enabled) return;
  markAt(`${name} (${cpuNote()})`, performance.now());
}

function markAt(name: string, sinceOriginMs: number): void {
  if (marks.length === 0) process.once("exit", printTimeline);
  marks.push([name, sinceOriginMs]);
}

/** Marks `name` at an epoch time (performance.timeOrigin-based ms, as the run's counters keep). */
export function markEpoch(name: string, epochMs: number): void {
  if (enabled && epochMs > 0) markAt(name, epochMs - performance.timeOrigin);
}

function printTimeline(): void {
  const line = (ms: number, what: string) =>
    `mailvolley timeline: ${ms.toFixed(1).padStart(8)} ms  ${what}\n`;
  let text = line(0, `process start (epoch ${performance.timeOrigin.toFixed(3)} ms)`);
  const exit = `exit (${cpuNote()}, every thread)`;
  const sorted = [...marks, [exit, performance.now()] as [string, number]].sort(
    (a, b) => a[1] - b[1],
  );
  for (const [name, ms] of sorted) text += line(ms, name);
  // Synchronous: the process is exiting, an asynchronous write might never land.
  writeSync(2, text);
}
