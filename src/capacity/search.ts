/**
 * The search for the highest rate a target sustains: double from a first rate until a step
 * fails (halve until one passes when the first fails), bisect between the highest passing and
 * the lowest failing rate down to the resolution, within the budget; then run the steps at
 * 80 %, 100 % and 120 % of the rate found, as SPECmail's rating shows them. A step mailvolley
 * itself could not offer (its generator verdict says generator) is not the target's failure:
 * the search stops there with "at least"; a step that reached nobody ends it too.
 */
import type { CapacityLimitedBy, CapacityStep } from "../result/capacity-result.js";
import type { StepPlan } from "./judge.js";

/** How the search runs a step, tells time and learns of a stop. */
export interface SearchIo {
  /** Runs one open-model step and judges it. */
  step(plan: SearchPlan): Promise<CapacityStep>;
  /** A short closed-model step whose accepted (or relayed) rate guesses a first rate. */
  estimate(): Promise<CapacityStep>;
  /** Milliseconds, monotonic. */
  now(): number;
  /** A signal asked the search to stop. */
  stopped(): boolean;
}

/** A step as the search plans it; how its arrivals are spaced is the runner's. */
export type SearchPlan = Omit<StepPlan, "arrivals">;

export interface SearchSettings {
  readonly fromRate: number | null;
  /** Fraction: bisect until hi ≤ lo · (1 + resolution). */
  readonly resolution: number;
  readonly budgetMs: number;
  readonly warmupMs: number;
  readonly stepMs: number;
}

export interface SearchOutcome {
  readonly steps: CapacityStep[];
  readonly sustainedPerSecond: number | null;
  readonly atLeast: boolean;
  readonly limitedBy: CapacityLimitedBy;
  readonly reason: string;
  /** Indices into steps of the 80, 100 and 120 % steps. */
  readonly levels: { percent: number; step: number }[];
}

/** The percentages of the rate found that are run again in full, as SPECmail reports them. */
export const LEVEL_PERCENTS = [80, 100, 120] as const;

/** Below this a search that keeps failing gives up: no rate passed. */
const FLOOR_PER_SECOND = 1;

/** A rate as a step offers it: whole messages/s from 100 up, finer below. */
export function roundRate(perSecond: number): number {
  const digits = perSecond >= 100 ? 0 : perSecond >= 10 ? 1 : 2;
  const f = 10 ** digits;
  return Math.round(perSecond * f) / f;
}

const perSecondText = (rate: number) => `${rate.toLocaleString("en-US")}/s`;

/** Where the search stands: the highest passing rate and the lowest failing one. */
interface Bounds {
  pass: number | null;
  fail: number | null;
  failed: CapacityStep | null;
}

/** The next rate to try, or null when the bounds are within the resolution. */
function nextRate(b: Bounds, last: number, resolution: number): number | null {
  if (b.fail === null) return roundRate(last * 2);
  if (b.pass === null) {
    const lower = roundRate(last / 2);
    return lower < FLOOR_PER_SECOND ? null : lower;
  }
  if (b.fail <= b.pass * (1 + resolution)) return null;
  const mid = roundRate((b.pass + b.fail) / 2);
  return mid <= b.pass || mid >= b.fail ? null : mid;
}

/** The first rate: --from-rate, or half what a short closed step carried. */
async function firstRate(
  io: SearchIo,
  settings: SearchSettings,
  steps: CapacityStep[],
): Promise<number | string> {
  if (settings.fromRate !== null) return settings.fromRate;
  const estimate = await io.estimate();
  steps.push(estimate);
  if (estimate.limitedBy === "nobody") return nobodyReason(estimate);
  // Through a gateway what it relays, not what it accepts, is what it can hold: the burst's
  // relay rate up to its last arrival (its first seconds only show the relaying start).
  const relayed = estimate.result.delivery?.relayedPerSecond ?? Number.POSITIVE_INFINITY;
  const carried = Math.min(estimate.acceptedPerSecond, relayed);
  if (carried <= 0) return "the first, closed-model step carried no message: read its errors";
  // Half of it: a closed step runs as fast as replies allow, past what the target can hold.
  return Math.max(FLOOR_PER_SECOND, roundRate(carried / 2));
}

function nobodyReason(step: CapacityStep): string {
  return `at ${perSecondText(step.ratePerSecond)} no connection reached the target, so nothing was measured: check its address and that it listens`;
}

function failedText(step: CapacityStep | null): string {
  return step === null ? "" : ` (${step.failed.join(", ")})`;
}

/** How the search part ended, before the level steps. */
interface Found {
  limitedBy: CapacityLimitedBy;
  reason: string;
  sustained: number | null;
  atLeast: boolean;
}

const found = (
  limitedBy: CapacityLimitedBy,
  reason: string,
  sustained: number | null,
  atLeast: boolean,
): Found => ({ limitedBy, reason, sustained, atLeast });

/**
 * A step that ends the search: it reached nobody, or it failed while mailvolley set its rate
 * (its own generator verdict): a failure that may be this machine's, not the target's. A step
 * that met every level was offered in full, whoever was busier, and counts as a pass.
 */
function endingStep(step: CapacityStep, b: Bounds): Found | null {
  const rate = step.ratePerSecond;
  if (step.limitedBy === "nobody") return found("nobody", nobodyReason(step), b.pass, false);
  if (step.limitedBy !== "generator" || step.pass) return null;
  const why = `at ${perSecondText(rate)} mailvolley, not the target, set the rate: this machine's ceiling; ${step.result.generator?.advice ?? "add --workers or shards"}`;
  return found("generator", why, b.pass, true);
}

/** Where the bounds ended: a rate bisected to the resolution, or none that passed. */
function converged(b: Bounds, steps: readonly CapacityStep[], resolution: number): Found {
  if (b.pass === null) {
    const lowest = steps[steps.length - 1].ratePerSecond;
    return found(
      "target",
      `every step failed, down to ${perSecondText(lowest)}${failedText(b.failed)}`,
      null,
      false,
    );
  }
  const why = `${perSecondText(b.pass)} passed and ${perSecondText(b.fail ?? 0)} failed${failedText(b.failed)}: within --resolution ${Math.round(resolution * 1000) / 10} %`;
  return found("target", why, b.pass, false);
}

/** Doubling (or halving) from the first rate, then bisection, within the budget. */
async function search(
  io: SearchIo,
  settings: SearchSettings,
  steps: CapacityStep[],
): Promise<Found> {
  const started = io.now();
  const first = await firstRate(io, settings, steps);
  if (typeof first === "string") {
    return found(steps[0]?.limitedBy === "nobody" ? "nobody" : "target", first, null, false);
  }
  const b: Bounds = { pass: null, fail: null, failed: null };
  const stepMs = settings.warmupMs + settings.stepMs;
  for (
    let rate: number | null = first;
    rate !== null;
    rate = nextRate(b, rate, settings.resolution)
  ) {
    if (io.stopped()) return found("target", "stopped by a signal", b.pass, b.fail === null);
    const searched = steps.some((s) => s.purpose === "search");
    if (searched && io.now() - started + stepMs > settings.budgetMs) {
      const why = `--budget ran out after ${steps.length} steps`;
      return found("target", why, b.pass, b.fail === null && b.pass !== null);
    }
    const step = await io.step({
      purpose: "search",
      percent: null,
      ratePerSecond: rate,
      warmupMs: settings.warmupMs,
      measuredMs: settings.stepMs,
    });
    steps.push(step);
    const ending = endingStep(step, b);
    if (ending) return ending;
    if (step.pass) b.pass = rate;
    else [b.fail, b.failed] = [rate, step];
  }
  return converged(b, steps, settings.resolution);
}

/** Runs the search and, when it ended on the target, the level steps. */
export async function searchCapacity(
  io: SearchIo,
  settings: SearchSettings,
): Promise<SearchOutcome> {
  const steps: CapacityStep[] = [];
  const end = await search(io, settings, steps);
  const levels: { percent: number; step: number }[] = [];
  if (end.sustained !== null && end.limitedBy === "target" && !end.atLeast) {
    for (const percent of LEVEL_PERCENTS) {
      if (io.stopped()) break;
      const step = await io.step({
        purpose: "level",
        percent,
        ratePerSecond: roundRate((end.sustained * percent) / 100),
        warmupMs: settings.warmupMs,
        measuredMs: settings.stepMs,
      });
      steps.push(step);
      levels.push({ percent, step: steps.length - 1 });
    }
  }
  const { sustained: sustainedPerSecond, atLeast, limitedBy, reason } = end;
  return { steps, sustainedPerSecond, atLeast, limitedBy, reason, levels };
}
