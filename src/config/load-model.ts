/**
 * How load is offered: closed (S sessions as fast as replies allow, for -m messages or a
 * duration) or open (messages arrive at a rate, ramped or constant, whatever the sessions do).
 */

import { UsageError } from "../usage/usage-error.js";
import type { RawOf } from "./option-rows.js";
import { DEFAULTS, type RUN_OPTIONS } from "./option-table.js";
import { parseCount, parseDuration, parseRate } from "./parse.js";
import { parseStages, type StagePoint } from "./stages.js";

/**
 * How the open model spaces its arrivals: evenly (`constant`), or as a Poisson process around
 * the rate (`poisson`: exponential gaps, as mail arrives from many independent senders), the
 * gaps drawn from `seed` so that a run can be repeated.
 */
export interface Arrivals {
  readonly kind: "constant" | "poisson";
  readonly seed: number;
}

/** Poisson gaps without --seed: the same every run, so two runs offer the same arrivals. */
export const DEFAULT_ARRIVALS_SEED = 1;

export interface LoadModel {
  readonly kind: "closed" | "open";
  /**
   * Stop starting messages after this long; 0: no limit. Given by -d, or by a ramp: a ramp that
   * ends at 0 can deliver nothing after it reaches 0, and without -d or -m a ramp's length is its
   * duration (k6's stages).
   */
  readonly durationMs: number;
  /** Open model: arrival rate stages in messages per second. */
  readonly rate: readonly StagePoint[] | null;
  /** Closed model: the number of active sessions over time. */
  readonly rampSessions: readonly StagePoint[] | null;
  /** Closed model: sessions start spread evenly over this long (JMeter's ramp-up). */
  readonly rampUpMs: number;
  /** Open model: how arrivals are spaced around the rate. */
  readonly arrivals: Arrivals;
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
export type RawLoadOptions = RawOf<typeof RUN_OPTIONS> & { seed?: unknown };

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
    throw new UsageError(
      "--messages-per-session",
      `"${text}" is not a range LOW-HIGH with 1 ≤ LOW ≤ HIGH`,
    );
  }
  return { min, max };
}

/**
 * When a ramp can deliver no more work: where its final run of 0 stages begins (the value holds
 * after the last stage). null when it ends above 0.
 */
export function rampZeroEndMs(points: readonly StagePoint[]): number | null {
  let i = points.length - 1;
  if (points[i].value !== 0) return null;
  while (i > 0 && points[i - 1].value === 0) i--;
  return points[i].atMs;
}

/** -d, cut where a ramp reaches 0 for good; without -d and -m, the ramp's own length. */
function runDuration(raw: RawLoadOptions, ramp: readonly StagePoint[] | null): number {
  const given = raw.duration === undefined ? 0 : parseDuration("--duration", raw.duration);
  if (raw.duration !== undefined && given <= 0) {
    throw new UsageError("--duration", "must be longer than 0");
  }
  if (!ramp) return given;
  const zeroEnd = rampZeroEndMs(ramp);
  if (zeroEnd !== null) return given > 0 ? Math.min(given, zeroEnd) : zeroEnd;
  if (given > 0 || raw.messages !== undefined) return given;
  return ramp[ramp.length - 1].atMs;
}

function parseRateStages(raw: RawLoadOptions): readonly StagePoint[] | null {
  if (raw.rate !== undefined && raw.ramp !== undefined) {
    throw new UsageError("--ramp", "give either --rate (constant) or --ramp (stages), not both");
  }
  if (raw.rate !== undefined) {
    const perSecond = parseRate("--rate", raw.rate);
    if (perSecond <= 0) throw new UsageError("--rate", "must be more than 0");
    return Object.freeze([{ atMs: 0, value: perSecond }]);
  }
  if (raw.ramp === undefined) return null;
  const rate = parseStages("--ramp", String(raw.ramp), (v) => parseRate("--ramp", v));
  if (rate.every((p) => p.value === 0)) {
    throw new UsageError("--ramp", "every stage has rate 0, so no message would be sent");
  }
  return rate;
}

function parseSessionStages(
  raw: RawLoadOptions,
  rate: readonly StagePoint[] | null,
  sessions: number,
): readonly StagePoint[] | null {
  if (raw.rampSessions === undefined) return null;
  if (rate) {
    throw new UsageError(
      "--ramp-sessions",
      "ramps sessions in the closed model; not with --rate/--ramp",
    );
  }
  const stages = parseStages("--ramp-sessions", String(raw.rampSessions), (v) =>
    parseCount("--ramp-sessions", v, 0, sessions),
  );
  if (stages.every((p) => p.value === 0)) {
    throw new UsageError(
      "--ramp-sessions",
      "every stage has 0 sessions, so no session would start; give e.g. 0s:1,30s:10",
    );
  }
  return stages;
}

/** --arrivals (constant or poisson) and the seed of its gaps; open model only. */
function parseArrivals(raw: RawLoadOptions, open: boolean): Arrivals {
  const text = String(raw.arrivals ?? DEFAULTS.arrivals);
  if (text !== "constant" && text !== "poisson") {
    throw new UsageError("--arrivals", `"${text}": give constant or poisson`);
  }
  if (text === "poisson" && !open && raw.arrivals !== undefined) {
    throw new UsageError("--arrivals", "spaces the open model's arrivals: add --rate or --ramp");
  }
  const seed =
    raw.seed === undefined ? DEFAULT_ARRIVALS_SEED : parseCount("--seed", raw.seed, 0, 2 ** 31 - 1);
  return Object.freeze({ kind: text, seed });
}

export function parseLoadModel(raw: RawLoadOptions, sessions: number): LoadModel {
  const rate = parseRateStages(raw);
  const rampSessions = parseSessionStages(raw, rate, sessions);
  const rampUpMs = raw.rampUp === undefined ? 0 : parseDuration("--ramp-up", raw.rampUp);
  if (rampUpMs > 0 && rampSessions) {
    throw new UsageError("--ramp-up", "give either --ramp-up or --ramp-sessions, not both");
  }
  if (raw.rampUp !== undefined && rate) {
    // The open model starts a message when it is due, on whichever session is free: there is
    // no start of sessions to spread.
    throw new UsageError(
      "--ramp-up",
      "starts sessions in the closed model; with --rate or --ramp the schedule sets the pace: ramp it with --ramp 0s:0,5s:RATE",
    );
  }
  const maxDelayMs = parseDuration("--max-delay", raw.maxDelay ?? DEFAULTS.maxDelay);
  if (maxDelayMs <= 0) {
    throw new UsageError(
      "--max-delay",
      "must be longer than 0: every arrival that found no free session at once would be dropped",
    );
  }
  return Object.freeze({
    kind: rate ? "open" : "closed",
    durationMs: runDuration(raw, rate ?? rampSessions),
    rate,
    rampSessions,
    rampUpMs,
    arrivals: parseArrivals(raw, rate !== null),
    maxDelayMs,
    maxQueue: parseCount("--max-queue", raw.maxQueue ?? DEFAULTS.maxQueue, 1, 10_000_000),
    graceMs: parseDuration("--grace", raw.grace ?? DEFAULTS.grace),
    messagesPerSession: Object.freeze(
      parseMessagesPerSession(raw.messagesPerSession ?? DEFAULTS.messagesPerSession),
    ),
  });
}
