/**
 * Live progress while a run goes: on a TTY one line rewritten in place; otherwise a summary line
 * every few seconds, like JMeter's `summary +` lines. Nothing with -q.
 */
import type { Progress } from "../run/thread-run.js";
import { grouped } from "../stats/number-format.js";

/** Non-TTY: one line per this many progress reports (one report a second). */
const LINE_EVERY = 5;

export interface ProgressPrinter {
  update(progress: Progress): void;
  /** Clears the live line before the summary is printed. */
  finish(): void;
}

/** What bounds the run, for the percentage and the ETA: -m, -d, or both (the first reached). */
export interface ProgressTotal {
  /** Messages the load model schedules (Infinity: no count). */
  messages: number;
  /** The duration in ms (0: none). */
  durationMs: number;
}

export function progressPrinter(
  stream: NodeJS.WriteStream,
  quiet: boolean,
  total: ProgressTotal = { messages: Number.POSITIVE_INFINITY, durationMs: 0 },
): ProgressPrinter {
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
      const line = formatProgress(progress, previous, {
        intervalSeconds: (now - previousMs) / 1000,
        elapsedSeconds: (now - startMs) / 1000,
        total,
      });
      previous = progress;
      previousMs = now;
      if (stream.isTTY) {
        stream.write(`\r${line.slice(0, (stream.columns || 80) - 1)}\u001b[K`);
        lineShown = true;
      } else {
        // A log keeps the time of each line, as JMeter's summary lines do.
        stream.write(`${new Date().toISOString().slice(0, 19)}Z progress ${line}\n`);
      }
    },
    finish() {
      if (lineShown) stream.write("\r\u001b[K");
    },
  };
}

/** How far the run is, 0..1, by whichever bound ends it first; null without a bound. */
export function doneFraction(
  progress: Progress,
  elapsedSeconds: number,
  total: ProgressTotal,
): number | null {
  const parts: number[] = [];
  if (Number.isFinite(total.messages) && total.messages > 0) {
    parts.push((progress.attempted + progress.dropped) / total.messages);
  }
  if (total.durationMs > 0) parts.push((elapsedSeconds * 1000) / total.durationMs);
  return parts.length > 0 ? Math.min(1, Math.max(...parts)) : null;
}

/** Exact below 100,000 ("12,345"); above, three significant figures ("1.23M", "456.7k"): it is live. */
export function compactCount(n: number): string {
  if (n < 100_000) return grouped(Math.round(n), 0, 0);
  return n < 1_000_000 ? `${(n / 1e3).toFixed(1)}k` : `${(n / 1e6).toFixed(2)}M`;
}

/**
 * One progress line, within 80 columns: elapsed (of the duration), percent done and ETA, then
 * totals so far, the accepted rate over the last interval, its p99, errors and open sessions.
 */
export function formatProgress(
  progress: Progress,
  previous: Progress | null,
  at: { intervalSeconds: number; elapsedSeconds: number; total: ProgressTotal },
): string {
  const { intervalSeconds, elapsedSeconds, total } = at;
  const delta = progress.accepted - (previous?.accepted ?? 0);
  const rate = intervalSeconds > 0 ? delta / intervalSeconds : 0;
  const errors = progress.rejected + progress.failed + progress.unconfirmed;
  const elapsed = `${elapsedSeconds.toFixed(0)}s`;
  const parts = [
    total.durationMs > 0 ? `${elapsed}/${(total.durationMs / 1000).toFixed(0)}s` : elapsed,
  ];
  const fraction = doneFraction(progress, elapsedSeconds, total);
  if (fraction !== null) {
    parts.push(`${Math.floor(fraction * 100)}%`);
    if (fraction > 0)
      parts.push(`ETA ${((elapsedSeconds * (1 - fraction)) / fraction).toFixed(0)}s`);
  }
  parts.push(
    `sent ${compactCount(progress.attempted)}`,
    `acc ${compactCount(progress.accepted)}`,
    `${compactCount(rate)}/s`,
    `p99 ${progress.recentP99Ms.toFixed(1)}ms`,
    `err ${compactCount(errors)}`,
    `sess ${compactCount(progress.openSessions)}`,
  );
  // Connections that never reached a banner fail no message in reuse mode until a session
  // gives up: without this, a target refusing every connection reads "err 0".
  if (progress.connectionsRefused > 0)
    parts.push(`conn fail ${compactCount(progress.connectionsRefused)}`);
  if (progress.dropped > 0) parts.push(`drop ${compactCount(progress.dropped)}`);
  if (progress.insideGateway !== undefined) {
    parts.push(`in gateway ${compactCount(progress.insideGateway)}`);
  }
  return parts.join(" ");
}

/** The countdown line of a compare's --pause: "pause: 43s left before the reuse run". */
export function pauseLine(leftMs: number, next: string): string {
  return `pause: ${Math.max(0, Math.ceil(leftMs / 1000))}s left before the ${next} run`;
}

/**
 * On a terminal, counts a pause down on one line rewritten once a second; elsewhere nothing (the
 * caller's one line says how long it is). Returns the function that clears it.
 */
export function pauseCountdown(
  stream: NodeJS.WriteStream,
  pauseMs: number,
  next: string,
): () => void {
  if (!stream.isTTY) return () => {};
  const end = performance.now() + pauseMs;
  const show = () => stream.write(`\r${pauseLine(end - performance.now(), next)}\u001b[K`);
  show();
  const timer = setInterval(show, 1000);
  return () => {
    clearInterval(timer);
    stream.write("\r\u001b[K");
  };
}
