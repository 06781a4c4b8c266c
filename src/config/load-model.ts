/**
 * How load is offered: closed (S sessions as fast as replies allow, for -m messages or a
 * duration) or open (messages arrive at a rate, ramped or constant, whatever the sessions do).
 */
import { DEFAULTS, type RUN_OPTIONS } from "./option-table.js";
import type { RawOf } from "./options.js";
import { ConfigError, parseCount, parseDuration, parseRate } from "./parse.js";
import { parseStages, type StagePoint } from "./stages.js";

export interface LoadModel {
  readonly kind: "closed" | "open";
  /** Stop starting messages after this long; 0: no limit. */
  readonly durationMs: number;
  /** Open model: arrival rate stages in messages per second. */
  readonly rate: readonly StagePoint[] | null;
  /** Closed model: the number of active sessions over time. */
  readonly rampSessions: readonly StagePoint[] | null;
  /** Closed model: sessions start spread evenly over this long (JMeter's ramp-up). */
  readonly rampUpMs: number;
  /** Open model: an arrival that waits longer than this for a session is dropped. */
  readonly maxDelayMs: number;
  /** Open model: at most this many arrivals wait at once. */
  readonly maxQueue: number;
  /** After Ctrl-C: how long in-flight transactions may take before sessions are cut. */
  readonly graceMs: number;
  /** Reuse mode: each session's message cap is drawn uniformly from [min, max]; 0: no cap. */
  readonly messagesPerSession: { readonly min: number; readonly max: number };
}

/** The run options the load model reads. */
export type RawLoadOptions = RawOf<typeof RUN_OPTIONS>;

function parseMessagesPerSession(raw: unknown): { min: number; max: number } {
  const text = String(raw);
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (!range) {
    const n = parseCount("--messages-per-session", text, 0);
    return { min: n, max: n };
  }
  const min = Number(range[1]);
  const max = Number(range[2]);
  if (min < 1 || max < min) {
    throw new ConfigError(
      "--messages-per-session",
      `"${text}" is not a range LOW-HIGH with 1 ≤ LOW ≤ HIGH`,
    );
  }
  return { min, max };
}

export function parseLoadModel(raw: RawLoadOptions, sessions: number): LoadModel {
  const durationMs = raw.duration === undefined ? 0 : parseDuration("--duration", raw.duration);
  if (raw.duration !== undefined && durationMs <= 0) {
    throw new ConfigError("--duration", "must be longer than 0");
  }
  if (raw.rate !== undefined && raw.ramp !== undefined) {
    throw new ConfigError("--ramp", "give either --rate (constant) or --ramp (stages), not both");
  }
  let rate: readonly StagePoint[] | null = null;
  if (raw.rate !== undefined) {
    const perSecond = parseRate("--rate", raw.rate);
    if (perSecond <= 0) throw new ConfigError("--rate", "must be more than 0");
    rate = Object.freeze([{ atMs: 0, value: perSecond }]);
  } else if (raw.ramp !== undefined) {
    rate = parseStages("--ramp", String(raw.ramp), (v) => parseRate("--ramp", v));
    if (rate.every((p) => p.value === 0)) throw new ConfigError("--ramp", "every stage has rate 0");
  }
  let rampSessions: readonly StagePoint[] | null = null;
  if (raw.rampSessions !== undefined) {
    if (rate)
      throw new ConfigError(
        "--ramp-sessions",
        "ramps sessions in the closed model; not with --rate/--ramp",
      );
    rampSessions = parseStages("--ramp-sessions", String(raw.rampSessions), (v) =>
      parseCount("--ramp-sessions", v, 0, sessions),
    );
  }
  const rampUpMs = raw.rampUp === undefined ? 0 : parseDuration("--ramp-up", raw.rampUp);
  if (rampUpMs > 0 && rampSessions) {
    throw new ConfigError("--ramp-up", "give either --ramp-up or --ramp-sessions, not both");
  }
  return Object.freeze({
    kind: rate ? "open" : "closed",
    durationMs,
    rate,
    rampSessions,
    rampUpMs,
    maxDelayMs: parseDuration("--max-delay", raw.maxDelay ?? DEFAULTS.maxDelay),
    maxQueue: parseCount("--max-queue", raw.maxQueue ?? DEFAULTS.maxQueue, 1, 10_000_000),
    graceMs: parseDuration("--grace", raw.grace ?? DEFAULTS.grace),
    messagesPerSession: Object.freeze(
      parseMessagesPerSession(raw.messagesPerSession ?? DEFAULTS.messagesPerSession),
    ),
  });
}
