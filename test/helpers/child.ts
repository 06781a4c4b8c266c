/**
 * Child-process plumbing shared by the tests' peers and the benchmarks' sinks. For a pause, both
 * use the platform's `setTimeout` from node:timers/promises (imported as `sleep`).
 */
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";

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

/**
 * Resolves once what `stream` printed (from now on) matches `pattern`: a positive signal that a
 * child is where a test wants it (a progress line, a "stopping" line) before the next step.
 * Rejects when the stream ends first.
 */
export function waitForText(stream: Readable | null, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    if (stream === null) return reject(new Error("no stream to wait on"));
    let text = "";
    const onData = (chunk: string | Buffer) => {
      text += chunk.toString();
      if (!pattern.test(text)) return;
      stream.off("data", onData);
      resolve(text);
    };
    stream.on("data", onData);
    stream.once("end", () => reject(new Error(`ended before ${pattern}: ${text}`)));
  });
}
