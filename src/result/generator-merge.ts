/**
 * The generator section of results merged from shards (or hand-split runs): every shard's
 * threads, named after their shard, judged again as if one generator had run them all, so a
 * generator-bound shard makes the merged run generator-bound, naming the shard.
 */
import { mergeThreadLoads } from "../stats/generator-load.js";
import { mergeStartLateness } from "../stats/start-lateness.js";
import type { ResultParts } from "./assemble.js";
import type { Result } from "./result.js";

/**
 * The generator part of the merged Result (assembleResult judges it) from the parts' sections,
 * each part's threads prefixed by its label ("shard 2/4" → "shard 2/4 main"). Undefined when
 * no part has a generator section.
 */
export function mergeGenerator(
  parts: readonly Result[],
  labels: readonly string[],
): ResultParts["generator"] {
  if (parts.every((r) => !r.generator)) return undefined;
  const threads = mergeThreadLoads(
    parts.map((r) => r.generator?.threads ?? []),
    labels,
  );
  const lateness = parts.flatMap((r) => (r.generator?.lateness ? [r.generator.lateness] : []));
  const open =
    lateness.length > 0
      ? {
          // Each part's interval is the whole run's, at its highest rate: the same, or the
          // tightest if the parts disagree.
          arrivalIntervalMs: Math.min(...lateness.map((l) => l.arrivalIntervalMs)),
          lateness: mergeStartLateness(lateness),
        }
      : null;
  return { threads, open };
}
