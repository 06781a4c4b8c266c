/**
 * SIGINT and SIGTERM, one rule for every command. The first asks the work in hand to wind down
 * (a run drains within --grace, a probe QUITs what it holds, a pause ends) and the command
 * then reports what it has; a second signal cuts short (the hard stop). The exit code is
 * 128 + the first signal's number. timeout(1), systemd, `docker stop` and Kubernetes send TERM,
 * a terminal's Ctrl-C sends INT: both must leave a report, never a killed process.
 */
import { takeEarlySignals } from "./early-signals.js";
import { type StopSignal, signalExitCode } from "./exit-codes.js";

/** What a signal can stop: `drain` winds down, `stop` cuts off. */
export interface Stoppable {
  drain(): void;
  stop(): void;
}

const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

export class StopSignals {
  private first: StopSignal | null = null;
  private count = 0;
  private target: Stoppable | null = null;
  private wake: (() => void) | null = null;
  private readonly handler = (signal: StopSignal) => this.receive(signal);

  /**
   * `onFirst` says what happens (e.g. the grace period) when the first signal arrives;
   * `running`: some work was attached to drain.
   */
  constructor(private readonly onFirst: (signal: StopSignal, running: boolean) => void = () => {}) {
    for (const signal of SIGNALS) process.on(signal, this.handler);
    for (const signal of takeEarlySignals()) this.receive(signal);
  }

  /** The first signal received, or null. */
  get received(): StopSignal | null {
    return this.first;
  }

  /**
   * The work now running (null: none). A signal that came before it started applies at once,
   * so a TERM while message files load still stops the run before its first message.
   */
  attach(target: Stoppable | null): void {
    this.target = target;
    if (target === null || this.count === 0) return;
    if (this.count === 1) target.drain();
    else target.stop();
  }

  /** Cuts the work in hand off without a signal (--abort-on-fail). */
  stopNow(): void {
    this.target?.stop();
  }

  /** Waits `ms`, or less when a signal arrives; true when it was cut short by one. */
  pause(ms: number): Promise<boolean> {
    if (this.first !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve(false);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve(true);
      };
    });
  }

  /** Stops listening: from here the process's default action applies again. */
  release(): void {
    for (const signal of SIGNALS) process.off(signal, this.handler);
  }

  private receive(signal: StopSignal): void {
    this.count++;
    if (this.count === 1) {
      this.first = signal;
      this.onFirst(signal, this.target !== null);
      this.target?.drain();
      this.wake?.();
    } else {
      this.target?.stop();
    }
  }
}

/** The signals of a command that only reads and then writes (merge, report). */
export function readerSignals(command: string): StopSignals {
  return new StopSignals((signal) =>
    process.stderr.write(
      `\nmailvolley ${command}: ${signal}: stopping before anything is written\n`,
    ),
  );
}

/**
 * For commands that only read and write (merge, report): lets a signal that came while they
 * read be seen, and if one came, says so and sets the exit code. True: write nothing.
 */
export async function stoppedBeforeWriting(
  signals: StopSignals,
  command: string,
): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  const signal = signals.received;
  if (signal === null) return false;
  process.stderr.write(
    `mailvolley ${command}: ${signal}: stopped before writing; nothing written\n`,
  );
  process.exitCode = signalExitCode(signal);
  return true;
}
