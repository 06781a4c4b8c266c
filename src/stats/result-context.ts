/**
 * Parts of the Result that place what happened and what was run: where each error class first
 * appeared (FirstSeen), where success fell below 100% (Knee), and the run's own record
 * (RunRecord). Their fields are documented here; result.ts re-exports them.
 */
import type { ErrorClass } from "./errors.js";

/**
 * Where an error class first appeared: recorded at the moment of its first occurrence (across
 * worker threads, the earliest), so exact to the connection and the message. Results saved
 * before that, and shards merged from saved results, have only the interval: then `atSeconds`,
 * `connection` and `message` are absent and the counts are those at the interval's end.
 */
export interface FirstSeen {
  class: ErrorClass;
  /** When it happened, in seconds since the first connect. */
  atSeconds?: number;
  /**
   * Ordinal of the connection it came on, from 1 in the order connections were opened; 0 when
   * it came on none (`unsent`: no session could be opened).
   */
  connection?: number;
  /**
   * Ordinal of the message it hit, from 1 in the order messages started; null when it hit no
   * started message (a refusal at the banner, or a failure between messages).
   */
  message?: number | null;
  /** The bounds of the `--interval` holding it, in seconds since the first connect. */
  fromSeconds: number;
  toSeconds: number;
  /** Sessions (connections) open at that moment, the one it came on included. */
  openSessions: number;
  /** Connections opened and messages started from the run's start up to that moment. */
  connectionsOpened: number;
  sent: number;
}

/**
 * Where success fell below 100%, read off the time series (see Result.knee). Success in an
 * interval = accepted / (accepted + rejected + failed + dropped): the messages settled in it
 * and, open model, the arrivals dropped in it (no session could start them). Times are
 * clamped to the run's last event, so every window lies inside the run.
 */
export interface Knee {
  /** The first interval where success was below 100%; null when it never was. */
  fell: {
    /**
     * Seconds since the first connect: the earliest error's exact time (firstSeen) when it lies
     * in that interval, else the interval's start.
     */
    atSeconds: number;
    /** The interval's bounds, seconds since the first connect. */
    fromSeconds: number;
    toSeconds: number;
    /** Success in that interval, %. */
    successPercent: number;
    /** Messages started, scheduled (started + dropped) and accepted per second in it. */
    sentPerSecond: number;
    scheduledPerSecond: number;
    acceptedPerSecond: number;
  } | null;
  /**
   * The window where success stayed at 100%: from the first interval that settled a message up
   * to the knee (or the run's end), and its mean accepted per second. null when the first
   * interval that settled anything already fell short.
   */
  cleanWindow: {
    fromSeconds: number;
    toSeconds: number;
    intervals: number;
    messagesPerSecond: number;
  } | null;
}

/** What was run, recorded by the run (see Result.run). */
export interface RunRecord {
  /** mailvolley's version (its package.json). */
  version: string;
  /** Node.js version (process.version), e.g. "v20.11.1". */
  node: string;
  /** The generating machine's host name (os.hostname()). */
  host: string;
  /** The load in one line: "constant arrival 2,000/s for 10 s, 20 sessions, 1 KiB". */
  load: string;
  /**
   * The checked options (config/run-config.ts RunConfig) as JSON: the target as written,
   * Infinity as "Infinity", the AUTH password as "****".
   */
  options: Record<string, unknown>;
}
