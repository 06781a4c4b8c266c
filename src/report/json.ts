/** The JSON result: the versioned Result object as it is, pretty-printed. */
import type { CapacityDocument } from "../stats/capacity-result.js";
import type { Result } from "../stats/result.js";

export function renderJson(
  result: Result | { schema: string; runs: Result[] } | CapacityDocument,
): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
