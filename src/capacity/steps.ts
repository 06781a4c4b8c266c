/**
 * One capacity step as a run: the search's rate over --warmup + --step, through the run
 * machinery every `mailvolley run` uses (run/run.ts executeRun), then judged.
 */
import type { CapacitySearchConfig } from "../config/capacity-options.js";
import { newRunId, type RunConfig, withConfigHash } from "../config/run-config.js";
import { runRecord } from "../config/run-record.js";
import type { CapacityStep } from "../result/capacity-result.js";
import type { Result } from "../result/result.js";
import { executeRun, type RunExtras, type RunIo } from "../run/run.js";
import { judgeStep, type StepPlan } from "./judge.js";

/** The estimate step's length: short, as it only guesses a first rate. */
export const ESTIMATE_MS = 3000;

/** An open-model run at `rate` for the step's warm-up and window: the base config's load. */
export function stepConfig(base: RunConfig, plan: StepPlan): RunConfig {
  return withConfigHash({
    ...base,
    runId: newRunId(),
    messages: Number.POSITIVE_INFINITY,
    load: Object.freeze({
      ...base.load,
      kind: "open",
      rate: Object.freeze([{ atMs: 0, value: plan.ratePerSecond }]),
      durationMs: plan.warmupMs + plan.measuredMs,
    }),
  });
}

/** The estimate: the base config's sessions as fast as replies allow, for ESTIMATE_MS. */
export function estimateConfig(base: RunConfig): RunConfig {
  return withConfigHash({
    ...base,
    runId: newRunId(),
    messages: Number.POSITIVE_INFINITY,
    load: Object.freeze({ ...base.load, kind: "closed", rate: null, durationMs: ESTIMATE_MS }),
  });
}

/** What the command gives each step: the run's io (progress, signals) and its extras. */
export interface StepHooks {
  io(config: RunConfig, plan: StepPlan): RunIo;
  /** Called with the step's Result as it ends (the command's progress line). */
  done?(step: CapacityStep, config: RunConfig): void;
}

/** Runs a step and judges it against the levels. */
export async function runStep(
  config: RunConfig,
  plan: StepPlan,
  search: CapacitySearchConfig,
  extras: RunExtras,
  hooks: StepHooks,
): Promise<CapacityStep> {
  const outcome = await executeRun(config, hooks.io(config, plan), {
    ...extras,
    run: () => runRecord(config),
  });
  const result: Result = outcome.result;
  const step = { ...judgeStep(result, plan, search.levels), result };
  hooks.done?.(step, config);
  return step;
}
