/** `mailvolley probe`'s options, checked into a frozen ProbeConfig (see run/probe.ts). */
import { randomBytes } from "node:crypto";
import { PROBE_KINDS, type ProbeKind } from "../result/probe-result.js";
import { UsageError } from "../usage/usage-error.js";
import {
  parseAddress,
  parseChoice,
  parseCount,
  parseDuration,
  parseTarget,
  type Target,
} from "./parse.js";
import { parseHelo } from "./run-config.js";
import { parseSecurity, type RawSecurityOptions, type SecuritySettings } from "./security.js";
import { parseSizes } from "./sizes.js";

/** The kinds are the ProbeResult's (stats/); the CLI names them from here. */
export { PROBE_KINDS, type ProbeKind };

/** `tls`, `tlsVerify`, `tlsServername` and `auth` as for `run`. */
export interface ProbeConfig extends SecuritySettings {
  target: Target;
  kind: ProbeKind;
  /** Steps at most: connections (concurrency, connection-rate) or messages (message-rate). */
  max: number;
  /** The whole probe's bound, ms. */
  timeLimitMs: number;
  /** How long to wait for any one reply, ms. */
  replyTimeoutMs: number;
  helo: string;
  from: string;
  to: string;
  /** Body octets of message-rate's messages. */
  size: number;
  runId: string;
}

export interface RawProbeOptions extends RawSecurityOptions {
  target?: unknown;
  probe?: unknown;
  max?: unknown;
  timeLimit?: unknown;
  timeout?: unknown;
  helo?: unknown;
  from?: unknown;
  to?: unknown;
  size?: unknown;
}

export function buildProbeConfig(raw: RawProbeOptions): Readonly<ProbeConfig> {
  if (raw.target === undefined || raw.target === "") {
    throw new UsageError("target", "probe needs a target; give host:port, e.g. 127.0.0.1:2525");
  }
  if (raw.probe === undefined) {
    throw new UsageError("--probe", `name one: ${PROBE_KINDS.join(", ")}`);
  }
  const sizes = parseSizes("--size", String(raw.size ?? "1024"));
  if (sizes.length !== 1) {
    throw new UsageError("--size", "give one size for a probe's messages, e.g. 1024 or 10k");
  }
  return Object.freeze({
    target: parseTarget("target", String(raw.target)),
    ...parseSecurity(raw),
    kind: parseChoice("--probe", raw.probe, PROBE_KINDS),
    max: parseCount("--max", raw.max ?? 1000, 1, 1_000_000),
    timeLimitMs: parseDuration("--time-limit", raw.timeLimit ?? "2m"),
    replyTimeoutMs: positiveDuration("--timeout", raw.timeout ?? "30s"),
    helo: parseHelo(raw.helo ?? "mailvolley.localhost"),
    from: parseAddress("--from", raw.from ?? "mailvolley@localhost", true),
    to: parseAddress("--to", raw.to ?? "sink@localhost"),
    size: sizes[0].size,
    runId: randomBytes(6).toString("hex"),
  });
}

/** A duration that must be above 0: a zero reply timeout would fail every reply at once. */
function positiveDuration(option: string, raw: unknown): number {
  const ms = parseDuration(option, raw);
  if (ms <= 0) throw new UsageError(option, "must be longer than 0, e.g. 30s");
  return ms;
}
