/**
 * Child-process plumbing shared by the tests' peers and the benchmarks' sinks. For a pause, both
 * use the platform's `setTimeout` from node:timers/promises (imported as `sleep`).
 */
import type { ChildProcess } from "node:child_process";

/** Waits until a child exits (or has exited), killing it with SIGKILL after `graceMs`. */
export function waitExit(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
