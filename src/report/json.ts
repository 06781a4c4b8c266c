/** The JSON result: the versioned Result object as it is, pretty-printed. */
import type { CapacityDocument } from "../stats/capacity-result.js";
import { jsonPrintable } from "../stats/printable.js";
import type { Result } from "../stats/result.js";

/** No raw control character: a server's text in it may hold one (stats/printable.ts). */
export function renderJson(
  result: Result | { schema: string; runs: Result[] } | CapacityDocument,
): string {
  return `${jsonPrintable(JSON.stringify(result, null, 2))}\n`;
}
