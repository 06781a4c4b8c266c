/**
 * The answer of `mailvolley probe`: what run/probe.ts finds and report/probe.ts words. Documented
 * in docs/reference.md's `mailvolley probe` section.
 */
import type { Phase } from "./result.js";

export const PROBE_SCHEMA = "mailvolley/probe@1";

/** The limits a probe looks for. */
export const PROBE_KINDS = ["concurrency", "connection-rate", "message-rate"] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** A refusing reply (its first line), or a failure without one, and the phase it answered. */
export interface Refusal {
  /** The reply code; 0 for a failure without a reply. */
  code: number;
  /**
   * The code as text ("421"), or the failure: "refused", "reset", "timeout", "closed", or
   * "local-limit" (this machine ran out of file descriptors or ports, as in a run's errors).
   */
  reply: string;
  enhanced: string;
  /** The first line's text without code and enhanced code. */
  text: string;
  phase: Phase;
}

/** How a probe ended. */
export interface ProbeResult {
  schema: typeof PROBE_SCHEMA;
  probe: ProbeKind;
  target: string;
  /**
   * What the gateway allowed before it refused: connections held at once (concurrency),
   * connections opened one after another (connection-rate), messages accepted in one session
   * (message-rate).
   */
  allowed: number;
  /** Seconds from the first connect to the refusal (or to the end). */
  seconds: number;
  /** The reply that refused, and in which phase; null when none came. */
  refusal: Refusal | null;
  /**
   * Why the probe ended: refused (by the gateway), local (this machine's limit: file
   * descriptors or ports, in `refusal`; `allowed` is then no limit of the gateway's), max
   * (the step bound), time (timeLimitMs), interrupted (SIGINT or SIGTERM: what was open got
   * its QUIT; a second signal closes it without).
   */
  ended: "refused" | "local" | "max" | "time" | "interrupted";
  /**
   * concurrency, after a refusal: true when, one held connection closed, a new one was
   * accepted (a limit on concurrent connections); false when it was refused again (another
   * limit, a connection rate most likely). Absent otherwise.
   */
  freedSlotAccepted?: boolean;
}
