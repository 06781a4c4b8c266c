/** The exit codes of every command, in one table (README, "Exit codes"). */
export const EXIT = Object.freeze({
  /** Every message accepted (and in a self-test the sink counted the same); a probe that ran. */
  ok: 0,
  /**
   * A message rejected or failed, an arrival dropped (open model), the self-test's counts
   * differ, or the sink's --expect missed.
   */
  failed: 1,
  /** Bad input: one line on stderr naming the option and the fix. */
  usage: 2,
  /** A --threshold breached (k6's code), or --fail-on-generator-bound: the generator set the rate. */
  thresholds: 99,
  /** Stopped by Ctrl-C: 128 + SIGINT. */
  interrupted: 130,
} as const);

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** How a load run (or compare) ended → its exit code; the first that applies wins. */
export function loadExitCode(ended: {
  interrupted: boolean;
  breached: boolean;
  failed: boolean;
}): ExitCode {
  if (ended.interrupted) return EXIT.interrupted;
  if (ended.breached) return EXIT.thresholds;
  return ended.failed ? EXIT.failed : EXIT.ok;
}
