/**
 * Live progress while a run goes: on a TTY one line rewritten in place; otherwise a summary line
 * every few seconds, like JMeter's `summary +` lines. Nothing with -q.
 */
import type { Progress } from "../run/load.js";

/** Non-TTY: one line per this many progress reports (one report a second). */
const LINE_EVERY = 5;

export interface ProgressPrinter {
  update(progress: Progress): void;
  /** Clears the live line before the summary is printed. */
  finish(): void;
}

export function progressPrinter(stream: NodeJS.WriteStream, quiet: boolean): ProgressPrinter {
  if (quiet) return { update() {}, finish() {} };
  const startMs = performance.now();
  let previous: Progress | null = null;
  let previousMs = startMs;
  let reports = 0;
  let lineShown = false;
  return {
    update(progress) {
      const now = performance.now();
      reports++;
      if (!stream.isTTY && reports % LINE_EVERY !== 0) return;
      const line = formatProgress(
        progress,
        previous,
        (now - previousMs) / 1000,
        (now - startMs) / 1000,
      );
      previous = progress;
      previousMs = now;
      if (stream.isTTY) {
        stream.write(`\r${line.slice(0, (stream.columns || 100) - 1)}\u001b[K`);
        lineShown = true;
      } else {
        stream.write(`${line}\n`);
      }
    },
    finish() {
      if (lineShown) stream.write("\r\u001b[K");
    },
  };
}

/** One progress line: totals so far and the accepted rate over the last interval. */
export function formatProgress(
  progress: Progress,
  previous: Progress | null,
  intervalSeconds: number,
  elapsedSeconds: number,
): string {
  const delta = progress.accepted - (previous?.accepted ?? 0);
  const rate = intervalSeconds > 0 ? delta / intervalSeconds : 0;
  const errors = progress.rejected + progress.failed;
  const parts = [
    `progress ${elapsedSeconds.toFixed(0).padStart(4)}s`,
    `sent ${progress.attempted}`,
    `accepted ${progress.accepted}`,
    `${rate.toFixed(0)}/s now`,
    `p99 ${progress.recentP99Ms.toFixed(1)}ms`,
    `errors ${errors}`,
    `sessions ${progress.openSessions}`,
  ];
  if (progress.dropped > 0) parts.push(`dropped ${progress.dropped}`);
  return parts.join("  ");
}
