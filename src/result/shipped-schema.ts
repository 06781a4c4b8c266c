/**
 * The Result's JSON Schema as this installation ships it (schema/result.schema.json, which the
 * build writes from the definition in result/schema/), read once. Code that runs in the
 * bin reads the file rather than building the schema from the definition: the definition loads
 * TypeBox and every section's builders, work a run's start should not pay.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

let shipped: Record<string, unknown> | null = null;

export function shippedResultSchema(): Record<string, unknown> {
  shipped ??= JSON.parse(readFileSync(schemaPath(), "utf8")) as Record<string, unknown>;
  return shipped;
}

/** schema/ at the package root: two levels up from dist/bundle/, three from dist/src/stats/. */
function schemaPath(): string {
  for (const up of ["../../", "../../../"]) {
    const candidate = new URL(`${up}schema/result.schema.json`, import.meta.url);
    if (existsSync(candidate)) return fileURLToPath(candidate);
  }
  throw new Error("schema/result.schema.json is missing from this installation");
}
