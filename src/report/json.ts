/** The JSON result: the versioned Result object as it is, pretty-printed. */
import type { CapacityDocument } from "../result/capacity-result.js";
import type { Result } from "../result/result.js";
import { jsonPrintable } from "../stats/printable.js";

/** No raw control character: a server's text in it may hold one (stats/printable.ts). */
export function renderJson(
  result: Result | { schema: string; runs: Result[] } | CapacityDocument,
): string {
  return `${jsonPrintable(JSON.stringify(result, null, 2))}\n`;
}
