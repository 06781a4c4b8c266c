/**
 * What `report` and `merge` accept as a saved result: the schema this version writes, and the
 * counts they add up as numbers. A hand-edited or foreign file (`"accepted": "200lots"`,
 * `schema: result@9`) is refused with one line, never rendered as garbage.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { UsageError } from "../usage/usage-error.js";

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

/** Throws a UsageError (option `result`) naming the file and the first field that is wrong. */
export function checkResultShape(value: unknown, path: string, schema: string): true {
  const bad = (why: string): never => {
    throw new UsageError("result", `"${path}" is not a mailvolley result: ${why}`);
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
  const validate = resultValidator();
  if (!validate(value)) return bad(describeSchemaError(validate.errors ?? []));
  return true;
}

let validator: ValidateFunction | null = null;

/**
 * The shipped JSON Schema (schema/result.schema.json), compiled once: every field a report
 * reads (latency, histograms, series, errors) is checked before any of it is rendered, so a
 * hand-edited file gets one line naming its field instead of a stack trace. ajv is loaded at
 * run time (a dependency), only by the commands that read results.
 */
function resultValidator(): ValidateFunction {
  if (validator !== null) return validator;
  const require = createRequire(import.meta.url);
  const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema(JSON.parse(readFileSync(schemaPath(), "utf8")), "result");
  const compiled = ajv.getSchema("result#/$defs/result");
  if (compiled === undefined) throw new Error("schema/result.schema.json has no $defs/result");
  validator = compiled;
  return validator;
}

/** schema/ at the package root: two levels up from dist/bundle/, three from dist/src/config/. */
function schemaPath(): string {
  for (const up of ["../../", "../../../"]) {
    const candidate = new URL(`${up}schema/result.schema.json`, import.meta.url);
    if (existsSync(candidate)) return fileURLToPath(candidate);
  }
  throw new Error("schema/result.schema.json is missing from this installation");
}

/** One line: the field as a dotted path and what is wrong with it. */
function describeSchemaError(errors: ErrorObject[]): string {
  const first = errors[0];
  if (first === undefined) return "it does not match the result schema";
  const field = first.instancePath.slice(1).replaceAll("/", ".") || "the document";
  const extra =
    first.keyword === "additionalProperties"
      ? ` (${(first.params as { additionalProperty: string }).additionalProperty})`
      : "";
  return `${field} ${first.message ?? "is not valid"}${extra}`;
}
