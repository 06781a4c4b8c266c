/**
 * Through the gateway (--receive): the run's built-in sink listens where the gateway relays,
 * and the run waits for what it sent to come out (the drain) before it reports delivery.
 */

import { UsageError } from "../usage/usage-error.js";
import type { OptionTable, RawOf } from "./options.js";
import { parseDuration, parseTarget } from "./parse.js";

export const RECEIVE_OPTIONS = {
  receive: {
    kind: "text",
    group: "Through the gateway:",
    describe:
      "Receive what the gateway relays on ADDR (host:port, [v6]:port or unix:/path) and report each message delivered, lost, bounced or doubled",
  },
  "drain-timeout": {
    kind: "text",
    group: "Through the gateway:",
    describe: "After the last message is sent, wait this long at most for the rest to arrive",
    default: "2m",
  },
  "late-window": {
    kind: "text",
    group: "Through the gateway:",
    describe: "Keep receiving this long after the drain: arrivals then are late, not lost",
    default: "0s",
  },
} as const satisfies OptionTable;

export type RawReceive = RawOf<typeof RECEIVE_OPTIONS>;

export interface ReceiveConfig {
  /** The sink's listen address, as given (the sink parses it again). */
  readonly listen: string;
  readonly drainTimeoutMs: number;
  readonly lateWindowMs: number;
}

/** null without --receive; the other options are then refused, as they would do nothing. */
export function buildReceiveConfig(raw: RawReceive, target: unknown): ReceiveConfig | null {
  if (raw.receive === undefined) {
    return null;
  }
  const listen = String(raw.receive).trim();
  // The address is checked as a target is: host:port, [v6]:port or unix:/path.
  parseTarget("--receive", listen);
  if (target === null) {
    throw new UsageError("--receive", "needs a gateway to send to: run GATEWAY --receive ADDR");
  }
  return Object.freeze({
    listen,
    drainTimeoutMs: parseDuration("--drain-timeout", raw.drainTimeout ?? "2m"),
    lateWindowMs: parseDuration("--late-window", raw.lateWindow ?? "0s"),
  });
}
