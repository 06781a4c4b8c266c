/**
 * `--repeat N` and its `--pause`, checked: how many times `run` or `compare` runs its load, and
 * how long it waits between runs.
 */

import { pickOptions } from "./option-rows.js";
import { DEFAULTS, REPEAT_OPTIONS } from "./option-table.js";
import { parseCount, parseDuration } from "./parse.js";

export interface RepeatOptions {
  /** Runs of the load (1: no repeat). */
  readonly count: number;
  /** Pause between two runs, ms. */
  readonly pauseMs: number;
}

/** Enough runs for any diff; more is a mistake in the number, not a plan. */
const MOST_RUNS = 1000;

export function buildRepeatOptions(values: Readonly<Record<string, unknown>>): RepeatOptions {
  const given = pickOptions(REPEAT_OPTIONS, values);
  return Object.freeze({
    count: parseCount("--repeat", given.repeat ?? REPEAT_OPTIONS.repeat.default, 1, MOST_RUNS),
    pauseMs: parseDuration("--pause", given.pause ?? DEFAULTS.pause),
  });
}
