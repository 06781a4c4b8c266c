/**
 * `mailvolley capacity` for one mode: the search (search.ts) with each step run through
 * run/run.ts (steps.ts) and judged (judge.ts), assembled into the capacity section of the
 * JSON document (result/schema/capacity.ts), its headline in words included.
 */
import type { CapacitySearchConfig } from "../config/capacity-options.js";
import type { RunConfig } from "../config/run-config.js";
import { capacityHeadline } from "../report/capacity.js";
import type { Capacity } from "../result/capacity-result.js";
import type { RunExtras } from "../run/run.js";
import { judgeStep, type StepPlan } from "./judge.js";
import { type SearchIo, searchCapacity } from "./search.js";
import { ESTIMATE_MS, estimateConfig, runStep, type StepHooks, stepConfig } from "./steps.js";

/** What the command lends the search: stops, pauses and the clock. */
export interface CapacityHooks extends StepHooks {
  stopped(): boolean;
  /** Between steps, without --receive: the target empties its queues (a signal ends it). */
  pause(ms: number): Promise<void>;
  now(): number;
}

/** The search's way of running a step: a pause between steps, each run and judged. */
function searchIo(
  base: RunConfig,
  search: CapacitySearchConfig,
  extras: RunExtras,
  hooks: CapacityHooks,
): SearchIo {
  let stepsRun = 0;
  const between = async () => {
    // With --receive each step waited for the gateway to empty (its drain); without, a pause.
    if (stepsRun++ > 0 && !extras.receive && search.pauseMs > 0) await hooks.pause(search.pauseMs);
  };
  return {
    step: async (planned) => {
      await between();
      const plan = { ...planned, arrivals: base.load.arrivals };
      return runStep(stepConfig(base, plan), plan, search, extras, hooks);
    },
    estimate: async () => {
      await between();
      const plan: StepPlan = {
        purpose: "estimate",
        percent: null,
        ratePerSecond: 0,
        warmupMs: 0,
        measuredMs: ESTIMATE_MS,
        arrivals: null,
      };
      const { result } = await runStep(estimateConfig(base), plan, search, extras, {
        io: hooks.io,
      });
      // A closed step offers no rate: its rate is what it carried.
      const carried = judgeStep(result, plan, search.levels).acceptedPerSecond;
      const step = {
        ...judgeStep(result, { ...plan, ratePerSecond: carried }, search.levels),
        result,
      };
      hooks.done?.(step, base);
      return step;
    },
    now: hooks.now,
    stopped: hooks.stopped,
  };
}

/** The search for one mode, from the base config (its sessions, messages, TLS, …). */
export async function findCapacity(
  base: RunConfig,
  search: CapacitySearchConfig,
  extras: RunExtras,
  hooks: CapacityHooks,
): Promise<Capacity> {
  const started = hooks.now();
  const outcome = await searchCapacity(searchIo(base, search, extras, hooks), search);
  const steps = outcome.steps;
  const section: Capacity = {
    mode: base.mode,
    target: steps[0]?.result.target ?? "",
    throughGateway: Boolean(extras.receive),
    arrivals: base.load.arrivals.kind,
    sustainedPerSecond: outcome.sustainedPerSecond,
    atLeast: outcome.atLeast,
    limitedBy: outcome.limitedBy,
    reason: outcome.reason,
    headline: "",
    levelsJudged: search.levels.map((l) => l.expression),
    resolutionPercent: Math.round(search.resolution * 1000) / 10,
    elapsedMs: Math.round(hooks.now() - started),
    steps,
    levels: outcome.levels.map(({ percent, step }) => ({
      percent,
      ratePerSecond: steps[step].ratePerSecond,
      pass: steps[step].pass,
      step,
    })),
  };
  section.headline = capacityHeadline(section);
  return section;
}
