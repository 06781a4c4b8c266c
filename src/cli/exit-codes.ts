/** The exit codes of every command, in one table (docs/result.md, "Exit codes"). */
export const EXIT = Object.freeze({
  /** Every message accepted (and in a self-test the sink counted the same); a probe that ran. */
  ok: 0,
  /**
   * A message rejected or failed, an arrival dropped (open model), the self-test's counts
   * differ, the sink's --expect missed, or an output file (--json, --html) could not be written
   * after the work was done.
   */
  failed: 1,
  /** Bad input: one line on stderr naming the option and the fix. */
  usage: 2,
  /** A --threshold breached (k6's code), or --fail-on-generator-bound: the generator set the rate. */
  thresholds: 99,
  /** Stopped by Ctrl-C: 128 + SIGINT. */
  interrupted: 130,
  /** Stopped by SIGTERM (timeout, systemd, docker stop, Kubernetes): 128 + SIGTERM. */
  terminated: 143,
} as const);

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The signals every command treats as "stop": Ctrl-C and TERM. */
export type StopSignal = "SIGINT" | "SIGTERM";

/** The exit code of a command stopped by `signal`: 128 + its number, as a shell reports it. */
export function signalExitCode(signal: StopSignal): ExitCode {
  return signal === "SIGINT" ? EXIT.interrupted : EXIT.terminated;
}

/** How a load run (or compare) ended → its exit code; the first that applies wins. */
export function loadExitCode(ended: {
  signal: StopSignal | null;
  breached: boolean;
  failed: boolean;
}): ExitCode {
  if (ended.signal !== null) return signalExitCode(ended.signal);
  if (ended.breached) return EXIT.thresholds;
  return ended.failed ? EXIT.failed : EXIT.ok;
}
