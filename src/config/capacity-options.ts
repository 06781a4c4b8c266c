/**
 * `mailvolley capacity`: its own options (the search and the service levels) and the one
 * config it builds from them and the load options of `run`. The steps' load is the search's to
 * set, so the options that shape a run's load over time are refused.
 */
import type { Mode } from "../result/result.js";
import { UsageError } from "../usage/usage-error.js";
import {
  buildRunCommandConfig,
  type OptionValues,
  type RunCommandConfig,
} from "./command-config.js";
import { defaultsOf, type OptionTable, pickOptions } from "./option-rows.js";
import { parseDuration, parseRate } from "./parse.js";
import { newRunId, type RunConfig, withConfigHash } from "./run-config.js";
import { parseServiceLevels, type ServiceLevel } from "./service-levels.js";

export const CAPACITY_OPTIONS = {
  step: {
    kind: "text",
    group: "Capacity:",
    describe: "Measured window of each step, judged against the service levels",
    default: "30s",
  },
  warmup: {
    kind: "text",
    group: "Capacity:",
    describe: "Warm-up before each step's window: sent, and left out of the judgment",
    default: "5s",
  },
  "from-rate": {
    kind: "text",
    group: "Capacity:",
    describe: "First rate of the search (200/s); none: estimated from a short first step",
  },
  resolution: {
    kind: "text",
    group: "Capacity:",
    describe: "Bisect until the lowest failing rate is within this of the highest passing",
    default: "5%",
  },
  budget: {
    kind: "text",
    group: "Capacity:",
    describe: "Start no search step after this long (the 80/100/120 % steps follow)",
    default: "10m",
  },
  pause: {
    kind: "text",
    group: "Capacity:",
    describe: "Without --receive: pause between steps so the target empties its queues",
    default: "2s",
  },
  min: {
    kind: "text",
    group: "Capacity:",
    describe: "Exit 99 when the rate found is below this (a gateway's CI: 150/s)",
  },
  qos: {
    kind: "list",
    group: "Capacity:",
    describe:
      "Service level, repeatable, in --threshold's grammar: 'connect p95<5s', 'transaction p99<2s', 'errors<0.5%', 'delivery p95<30s' (default: SPECmail2001's)",
  },
} as const satisfies OptionTable;

export const CAPACITY_DEFAULTS = defaultsOf(CAPACITY_OPTIONS);

/** Options of `run` that set the load over time: each step's is the search's. */
const REFUSED: Readonly<Record<string, string>> = {
  rate: "each step's rate is the search's: give the first one with --from-rate",
  ramp: "each step's rate is the search's: give the first one with --from-rate",
  rampSessions: "capacity offers open-model steps; -s is the most sessions each uses",
  rampUp: "capacity offers open-model steps; --warmup leads into each",
  duration: "each step lasts --warmup + --step",
  messages: "each step lasts --warmup + --step; its rate sets how many messages it sends",
  threshold: "give service levels with --qos (the same grammar)",
  abortOnFail: "a step that fails ends by itself; the search goes on below it",
  out: "each step's series is in its Result (--json)",
  failOnGeneratorBound: 'a step the generator set ends the search with "at least"',
  shard: "a search decides each step from the one before; run it on one machine",
  startAt: "a search starts at once",
};

/** The search: how each step runs and is judged, and when the search stops. */
export interface CapacitySearchConfig {
  readonly stepMs: number;
  readonly warmupMs: number;
  /** The first rate, messages/s; null: estimated from a short closed-model step. */
  readonly fromRate: number | null;
  /** The bisection stops when the lowest failing rate is within this fraction of the passing. */
  readonly resolution: number;
  readonly budgetMs: number;
  /** Without --receive, between steps. */
  readonly pauseMs: number;
  /** --min: exit 99 below it; null: none. */
  readonly minRate: number | null;
  readonly levels: readonly ServiceLevel[];
}

export interface CapacityCommandConfig extends Omit<RunCommandConfig, "run"> {
  /** One RunConfig per mode searched (--mode both: per-message first, as compare runs). */
  readonly runs: readonly RunConfig[];
  readonly search: CapacitySearchConfig;
}

function parseShare(option: string, raw: unknown): number {
  const text = String(raw).trim();
  const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text);
  const percent = m ? Number(m[1]) : Number.NaN;
  if (!(percent > 0 && percent < 100)) {
    throw new UsageError(option, `"${text}" is not a share between 0 and 100 %; give e.g. 5%`);
  }
  return percent / 100;
}

function positiveDuration(option: string, raw: unknown): number {
  const ms = parseDuration(option, raw);
  if (ms <= 0) throw new UsageError(option, "must be longer than 0");
  return ms;
}

function optionalRate(option: string, raw: unknown): number | null {
  if (raw === undefined) return null;
  const rate = parseRate(option, raw);
  if (rate <= 0) throw new UsageError(option, "must be more than 0");
  return rate;
}

/** `capacity`'s config: the load options of `run` (a rate set per step), and the search's. */
export function buildCapacityCommandConfig(given: OptionValues): CapacityCommandConfig {
  for (const [key, why] of Object.entries(REFUSED)) {
    if (given[key] === undefined) continue;
    const flag = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new UsageError(`--${flag}`, `not an option of capacity: ${why}`);
  }
  const modeText = String(given.mode ?? "reuse");
  const modes: Mode[] =
    modeText === "both"
      ? ["per-message", "reuse"]
      : modeText === "reuse" || modeText === "per-message"
        ? [modeText]
        : [];
  if (modes.length === 0) {
    throw new UsageError("--mode", `"${modeText}": give reuse, per-message or both`);
  }
  // The steps are open-model runs: a placeholder rate here, each step's own set by the search.
  const { run, report, sink, receive } = buildRunCommandConfig(given, {
    mode: modes[0],
    rate: "1",
    arrivals: given.arrivals ?? "poisson",
  });
  if (receive?.elsewhere) {
    throw new UsageError(
      "--receive",
      "capacity judges delivery as each step ends: give the address the gateway relays to",
    );
  }
  const raw = pickOptions(CAPACITY_OPTIONS, given);
  const stepMs = positiveDuration("--step", raw.step ?? CAPACITY_DEFAULTS.step);
  const search: CapacitySearchConfig = Object.freeze({
    stepMs,
    warmupMs: parseDuration("--warmup", raw.warmup ?? CAPACITY_DEFAULTS.warmup),
    fromRate: optionalRate("--from-rate", raw.fromRate),
    resolution: parseShare("--resolution", raw.resolution ?? CAPACITY_DEFAULTS.resolution),
    budgetMs: positiveDuration("--budget", raw.budget ?? CAPACITY_DEFAULTS.budget),
    pauseMs: parseDuration("--pause", raw.pause ?? CAPACITY_DEFAULTS.pause),
    minRate: optionalRate("--min", raw.min),
    levels: Object.freeze(parseServiceLevels(raw.qos, receive !== null)),
  });
  const runs = modes.map((mode, i) =>
    i === 0 ? run : withConfigHash({ ...run, mode, runId: newRunId() }),
  );
  return Object.freeze({ runs: Object.freeze(runs), report, sink, receive, search });
}
