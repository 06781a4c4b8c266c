/**
 * Piecewise-linear stages over time as options give them: `--ramp 0s:100,30s:1000,60s:1000`
 * (arrival rates) or `--ramp-sessions 0s:1,30s:50` (sessions). run/schedule.ts follows them.
 */

import { UsageError } from "../usage/usage-error.js";
import { parseDuration } from "./parse.js";

export interface StagePoint {
  /** Milliseconds from the start of the run. */
  readonly atMs: number;
  readonly value: number;
}

/** Parses `0s:100,30s:1000,60s:1000`; times must increase, values be ≥ 0. */
export function parseStages(option: string, text: string, parseValue: (v: string) => number) {
  const points: StagePoint[] = [];
  for (const part of text.split(",")) {
    const colon = part.lastIndexOf(":");
    if (colon === -1) {
      throw new UsageError(option, `"${part}" is not TIME:VALUE; give e.g. 0s:100,30s:1000`);
    }
    const atMs = parseDuration(option, part.slice(0, colon));
    const value = parseValue(part.slice(colon + 1));
    const last = points.at(-1);
    if (last && atMs <= last.atMs) {
      throw new UsageError(option, `times must increase ("${part}" is not after the stage before)`);
    }
    points.push({ atMs, value });
  }
  if (points.length === 0) throw new UsageError(option, "give at least one TIME:VALUE stage");
  return Object.freeze(points);
}
