/**
 * Whether two sets of runs ran one load: their recorded options compared key by key, less what
 * does not define the load (config/config-hash.ts NOT_LOAD_KEYS) and less the target's
 * address, since A and B are often two gateways, or one gateway on two ports.
 */
import { canonicalJson, NOT_LOAD_KEYS, withoutKeys } from "../config/config-hash.js";
import type { Result } from "../result/result.js";

/** Keys that differ between runs of one load, beyond NOT_LOAD_KEYS: where, and which run. */
const NOT_COMPARED = [...NOT_LOAD_KEYS, "target"];

function loadOf(r: Result): Record<string, unknown> {
  return { mode: r.mode, ...withoutKeys(r.run?.options ?? {}, NOT_COMPARED) };
}

/** Compact JSON of an option's value, cut short for one line. */
function shown(value: unknown): string {
  const text = value === undefined ? "unset" : canonicalJson(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * How the load of `b` differs from that of `a`, one "key: A vs B" each; empty when alike.
 * A result saved without its options (no `run`) compares on its mode only.
 */
export function loadDifferences(a: Result, b: Result): string[] {
  const left = loadOf(a);
  const right = loadOf(b);
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  return keys
    .filter((key) => canonicalJson(left[key] ?? null) !== canonicalJson(right[key] ?? null))
    .map((key) => `${key}: ${shown(left[key])} vs ${shown(right[key])}`);
}
