/**
 * `run` and `compare`: the option values given on the command line, a plan file and `--set`
 * merged (the command line wins, then `--set`, then the plan) and checked into one frozen
 * config. What it is given is never changed; every value is parsed once.
 */

import type { Mode } from "../result/result.js";
import { PHASE_NAMES, type TimedPhase } from "../smtp/phases.js";
import { UsageError } from "../usage/usage-error.js";
import { checkOpenFiles } from "./open-files.js";
import { camel, pickOptions, planKeys } from "./option-rows.js";
import {
  COMPARE_OPTIONS,
  DEFAULTS,
  LOAD_OPTIONS,
  MESSAGE_OPTIONS,
  REPORT_OPTIONS,
  RUN_OPTIONS,
  SECURITY_OPTIONS,
  SINK_EMULATION_OPTIONS,
} from "./option-table.js";
import { parseDuration } from "./parse.js";
import { type ClassSpec, loadPlan, planFromSets } from "./plan.js";
import { buildReceiveConfig, RECEIVE_OPTIONS, type ReceiveConfig } from "./receive-options.js";
import { buildReportOptions, type ReportOptions } from "./report-options.js";
import {
  buildRunConfig,
  newRunId,
  type RawRunOptions,
  type RunConfig,
  withConfigHash,
} from "./run-config.js";
import { type SinkSettings, sinkSettingsOf } from "./sink-config.js";

/** Option values by camelCase key; undefined or absent: not given. */
export type OptionValues = Readonly<Record<string, unknown>>;

/**
 * Everything `mailvolley run` was given, checked: the one run it executes, how to report it, the
 * built-in sink's options and the receiving sink's. Only the run part reaches run/'s threads.
 */
export interface RunCommandConfig {
  readonly run: RunConfig;
  readonly report: ReportOptions;
  /** The built-in sink's options in a self-test (--sink-NAME), as the sink names them. */
  readonly sink: SinkSettings;
  /** Through the gateway (--receive): where the run's sink receives; null without. */
  readonly receive: ReceiveConfig | null;
}

/** Everything `mailvolley compare` was given, checked: one RunConfig per mode, run in turn. */
export interface CompareCommandConfig extends Omit<RunCommandConfig, "run"> {
  /** One run per mode, in the order they run. */
  readonly runs: readonly RunConfig[];
  /** Pause between the runs, ms. */
  readonly pauseMs: number;
}

export interface PlannedOptions {
  /** The command line's values over the plan's. */
  readonly values: OptionValues;
  /** Classes from the plan (empty: none). */
  readonly classes: readonly ClassSpec[];
  /** Where each value taken from the plan stands, for error messages: "plan.yaml:7". */
  readonly where: Readonly<Record<string, string>>;
}

/** The keys a plan may set at the top level: every row of `run` and `compare` but a few. */
export const PLAN_KEYS = planKeys(LOAD_OPTIONS, COMPARE_OPTIONS);

/** The values given, with a plan's (`plan`) and `--set`'s (`set`) under them. */
export function withPlan(given: OptionValues): PlannedOptions {
  const sets = (given.set as readonly string[] | undefined) ?? [];
  if (given.plan === undefined && sets.length === 0)
    return { values: given, classes: [], where: {} };
  const plan = given.plan === undefined ? planFromSets(sets) : loadPlan(String(given.plan), sets);
  const values: Record<string, unknown> = { ...given };
  const where: Record<string, string> = {};
  for (const [key, value] of Object.entries(plan.options)) {
    if (!PLAN_KEYS.has(key)) {
      const at = plan.where[key] ?? "--set";
      throw new UsageError(
        "--plan",
        `${at}: "${key}" is not a run option; see mailvolley run --help`,
      );
    }
    if (given[key] !== undefined) continue; // the command line wins
    values[key] = value;
    if (plan.where[key]) where[key] = plan.where[key];
  }
  return { values: Object.freeze(values), classes: plan.classes, where: Object.freeze(where) };
}

/** The run options among `values`, with the `--timeout-PHASE` values as one record. */
export function rawRunOptions(values: OptionValues): RawRunOptions {
  const timeout: Partial<Record<TimedPhase, unknown>> = {};
  for (const phase of PHASE_NAMES) {
    const value = values[camel(`timeout-${phase}`)];
    if (value !== undefined) timeout[phase] = value;
  }
  return {
    ...pickOptions(RUN_OPTIONS, values),
    ...pickOptions(SECURITY_OPTIONS, values),
    ...pickOptions(MESSAGE_OPTIONS, values),
    timeout,
    everyTimeout: values.timeout,
  };
}

/** `mailvolley run`'s config; `override` wins over the command line and the plan. */
export function buildRunCommandConfig(given: OptionValues, override: Partial<RawRunOptions> = {}) {
  const planned = withPlan(given);
  const config = fromPlanned(planned, override);
  // compare runs both modes, and there these options shape its reuse run.
  if (config.run.mode === "per-message") {
    try {
      refuseReuseOptions(planned.values);
    } catch (error) {
      throw locate(error, planned.where);
    }
  }
  return config;
}

/** The rows whose help says they shape reuse mode's sessions. */
const REUSE_ONLY = Object.entries(RUN_OPTIONS)
  .filter(([, spec]) => spec.describe.startsWith("Reuse mode:"))
  .map(([flag]) => flag);

/** A connection per message has no session to cap or to reconnect: such an option does nothing. */
function refuseReuseOptions(values: OptionValues): void {
  for (const flag of REUSE_ONLY) {
    if (values[camel(flag)] === undefined) continue;
    throw new UsageError(
      `--${flag}`,
      "shapes the sessions of --mode reuse, and --mode per-message opens a connection per message; drop one of them",
    );
  }
}

function fromPlanned(planned: PlannedOptions, override: Partial<RawRunOptions>): RunCommandConfig {
  const { values, classes, where } = planned;
  try {
    const raw = { ...rawRunOptions(values), ...override };
    const run = buildRunConfig(classes.length > 0 ? { ...raw, classes } : raw);
    checkOpenFiles(run.sessions, run.target === null);
    const receive = buildReceiveConfig(pickOptions(RECEIVE_OPTIONS, values), run.target);
    if (run.target !== null && (receive === null || receive.elsewhere)) {
      refuseSinkOptions(values, receive !== null);
    }
    return Object.freeze({
      run,
      report: buildReportOptions(pickOptions(REPORT_OPTIONS, values)),
      sink: sinkSettingsOf(values, "sink-"),
      receive,
    });
  } catch (error) {
    throw locate(error, where);
  }
}

/**
 * The built-in sink's options do nothing against a target without --receive ADDR: say so rather
 * than ignore them. With --receive elsewhere the receiving sink is the other host's.
 */
function refuseSinkOptions(values: Readonly<Record<string, unknown>>, elsewhere: boolean): void {
  for (const flag of Object.keys(SINK_EMULATION_OPTIONS)) {
    if (values[camel(flag)] === undefined) continue;
    throw new UsageError(
      `--${flag}`,
      elsewhere
        ? `sets the run's own receiving sink, and with --receive elsewhere the sink on the other host receives; give it there as \`mailvolley sink --${flag.replace(/^sink-/, "")}\``
        : "sets the built-in sink of a self-test or of --receive, and this run against a target starts none; drop the option, or add --receive ADDR",
    );
  }
}

const MODES: readonly Mode[] = ["per-message", "reuse"];

/**
 * `mailvolley compare`'s config: the same load in both modes. A plan's `mode` is overridden per
 * run; one on the command line is a mistake.
 */
export function buildCompareCommandConfig(given: OptionValues): CompareCommandConfig {
  if (given.mode !== undefined) {
    throw new UsageError("--mode", "compare runs both modes; choose their order with --order");
  }
  const planned = withPlan(given);
  try {
    const order = parseOrder(planned.values.order ?? DEFAULTS.order);
    const pauseMs = parseDuration("--pause", planned.values.pause ?? DEFAULTS.pause);
    const { run, report, sink, receive } = fromPlanned(planned, { mode: order[0] });
    // --start-at starts the first run; the second follows it after the pause.
    const second = withConfigHash({ ...run, mode: order[1], runId: newRunId(), startAt: null });
    const runs = Object.freeze(tlsRuns(run, second));
    return Object.freeze({ runs, pauseMs, report, sink, receive });
  } catch (error) {
    throw locate(error, planned.where);
  }
}

/**
 * With TLS and resumption on, the connection-per-message run is made twice, first with a full
 * handshake every time (--no-tls-resume) and then resuming sessions, so that the compare shows
 * what resumption buys beside what reuse buys.
 */
function tlsRuns(first: RunConfig, second: RunConfig): RunConfig[] {
  if (first.tls === "none" || !first.tlsResume) return [first, second];
  const full = (c: RunConfig) => withConfigHash({ ...c, tlsResume: false });
  const again = (c: RunConfig) => withConfigHash({ ...c, runId: newRunId(), startAt: null });
  if (first.mode === "per-message") return [full(first), again(first), second];
  return [first, full(second), again(second)];
}

function parseOrder(raw: unknown): Mode[] {
  const order = String(raw)
    .split(",")
    .map((s) => s.trim());
  const ok = order.length === 2 && MODES.every((m) => order.includes(m)) && order[0] !== order[1];
  if (!ok) {
    throw new UsageError("--order", `"${raw}": give per-message,reuse or reuse,per-message`);
  }
  return order as Mode[];
}

/** Points a UsageError about an option that came from the plan at the plan's line. */
export function locate(error: unknown, where: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof UsageError)) return error;
  const key = camel(error.option.replace(/^--/, ""));
  const at = where[key];
  if (!at || error.problem.endsWith(`(from ${at})`)) return error;
  return new UsageError(error.option, `${error.problem} (from ${at})`, error.value);
}
