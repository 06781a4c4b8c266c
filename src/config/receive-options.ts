/**
 * Through the gateway (--receive): the run's built-in sink listens where the gateway relays,
 * and the run waits for what it sent to come out (the drain) before it reports delivery.
 */

import { UsageError } from "../usage/usage-error.js";
import type { OptionTable, RawOf } from "./option-rows.js";
import { parseDuration, parseTarget } from "./parse.js";

export const RECEIVE_OPTIONS = {
  receive: {
    kind: "text",
    group: "Through the gateway:",
    describe:
      "Receive what the gateway relays on ADDR (host:port, [v6]:port or unix:/path) and report each message delivered, lost, bounced or doubled; `elsewhere`: a `mailvolley sink --json` on another host receives, and `report --arrivals` joins",
  },
  "drain-timeout": {
    kind: "text",
    group: "Through the gateway:",
    describe: "After the last message is sent, wait this long at most for the rest to arrive",
    default: "2m",
  },
  "tag-recipients": {
    kind: "flag",
    group: "Through the gateway:",
    describe:
      "Add +RUNID.SEQ to every recipient's local part (local+RUNID.SEQ@domain): a key for gateways that rewrite the content and drop DSN",
  },
  "late-window": {
    kind: "text",
    group: "Through the gateway:",
    describe: "Keep receiving this long after the drain: arrivals then are late, not lost",
    default: "0s",
  },
} as const satisfies OptionTable;

export type RawReceive = RawOf<typeof RECEIVE_OPTIONS>;

/** The word --receive takes when a sink on another host receives (no address). */
export const RECEIVE_ELSEWHERE = "elsewhere";

export interface ReceiveConfig {
  /** The sink's listen address, as given (the sink parses it again); "elsewhere": none. */
  readonly listen: string;
  /**
   * A sink elsewhere receives (--receive elsewhere): the run listens for nothing and keeps its
   * accepted messages in the result for `report --arrivals`.
   */
  readonly elsewhere: boolean;
  readonly drainTimeoutMs: number;
  readonly lateWindowMs: number;
  /** --tag-recipients: every recipient carries its message's key as a +tag (RFC 5233). */
  readonly tagRecipients: boolean;
}

/** What each receiver option does, for its refusal without --receive. */
const NEEDS_RECEIVE = [
  ["tagRecipients", "--tag-recipients", "tags recipients for the delivery join"],
  ["drainTimeout", "--drain-timeout", "sets how long the run waits for what the gateway relays"],
  ["lateWindow", "--late-window", "sets how long the run keeps receiving after the drain"],
] as const;

/** A listen address as the sink takes it: host:port, [v6addr]:port or unix:/path. */
const LISTEN_ADDRESS = /^(?:unix:.+|\[[^\]]+\]:\d{1,5}|[^:[\]\s]+:\d{1,5})$/;

/** null without --receive; the other options are then refused, as they would do nothing. */
export function buildReceiveConfig(raw: RawReceive, target: unknown): ReceiveConfig | null {
  if (raw.receive === undefined) {
    for (const [key, option, what] of NEEDS_RECEIVE) {
      if (raw[key] !== undefined && raw[key] !== false) {
        throw new UsageError(option, `${what}: add --receive ADDR (or --receive elsewhere)`);
      }
    }
    return null;
  }
  const listen = String(raw.receive).trim();
  const elsewhere = listen === RECEIVE_ELSEWHERE;
  if (!elsewhere) {
    if (!LISTEN_ADDRESS.test(listen) || Number(listen.slice(listen.lastIndexOf(":") + 1)) > 65535) {
      throw new UsageError(
        "--receive",
        "give the address the gateway relays to: host:port, [v6addr]:port or unix:/path (or `elsewhere`)",
        JSON.stringify(listen),
      );
    }
    // And as a target is, so that the host is one a socket can take.
    parseTarget("--receive", listen);
  }
  if (target === null) {
    throw new UsageError("--receive", "needs a gateway to send to: run GATEWAY --receive ADDR");
  }
  return Object.freeze({
    listen,
    elsewhere,
    drainTimeoutMs: parseDuration("--drain-timeout", raw.drainTimeout ?? "2m"),
    lateWindowMs: parseDuration("--late-window", raw.lateWindow ?? "0s"),
    tagRecipients: raw.tagRecipients === true,
  });
}
