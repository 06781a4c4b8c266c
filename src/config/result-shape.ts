/**
 * What `report` and `merge` accept as a saved result: the schema this version writes, and the
 * counts they add up as numbers. A hand-edited or foreign file (`"accepted": "200lots"`,
 * `schema: result@9`) is refused with one line, never rendered as garbage.
 */
import { ConfigError } from "./parse.js";

/** The counts every report reads, as whole numbers ≥ 0. */
const COUNTS = {
  messages: ["attempted", "accepted", "rejected", "failed"],
  recipients: ["attempted", "accepted"],
} as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Throws a ConfigError (option `result`) naming the file and the first field that is wrong. */
export function checkResultShape(value: unknown, path: string, schema: string): true {
  const bad = (why: string): never => {
    throw new ConfigError("result", `"${path}" is not a mailvolley result: ${why}`);
  };
  if (!isRecord(value)) return bad("not a JSON object");
  if (typeof value.schema !== "string") return bad("no schema");
  if (value.schema !== schema) {
    return bad(`schema "${value.schema}"; this version reads "${schema}"`);
  }
  for (const [group, keys] of Object.entries(COUNTS)) {
    const counts = value[group];
    if (!isRecord(counts)) return bad(`no ${group} counts`);
    for (const key of keys) {
      if (!isCount(counts[key])) {
        return bad(`${group}.${key} is ${JSON.stringify(counts[key])}, not a whole number`);
      }
    }
  }
  const m = value.messages as Record<string, number>;
  if (m.attempted !== m.accepted + m.rejected + m.failed) {
    return bad("messages.attempted is not accepted + rejected + failed");
  }
  if (typeof value.elapsedSeconds !== "number" || !(value.elapsedSeconds >= 0)) {
    return bad("elapsedSeconds is not a number");
  }
  if (!Array.isArray(value.errors)) return bad("errors is not a list");
  return true;
}
