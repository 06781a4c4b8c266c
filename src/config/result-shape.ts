/**
 * What `report` and `merge` accept as a saved result: the schema this version writes, and the
 * counts they add up as numbers. A hand-edited or foreign file (`"accepted": "200lots"`,
 * `schema: result@9`) is refused with one line, never rendered as garbage.
 */
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv";
import { shippedResultSchema } from "../result/shipped-schema.js";
import { encodingProblem } from "../stats/hdr-codec.js";
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
  const m = value.messages as Record<string, unknown>;
  // Older results have no unconfirmed messages: the term is 0 there.
  const unconfirmed = m.unconfirmed ?? 0;
  if (!isCount(unconfirmed)) {
    return bad(`messages.unconfirmed is ${JSON.stringify(unconfirmed)}, not a whole number`);
  }
  const [attempted, accepted, rejected, failed] = COUNTS.messages.map((k) => m[k] as number);
  if (attempted !== accepted + rejected + failed + (unconfirmed as number)) {
    return bad("messages.attempted is not accepted + rejected + failed + unconfirmed");
  }
  if (typeof value.elapsedSeconds !== "number" || !(value.elapsedSeconds >= 0)) {
    return bad("elapsedSeconds is not a number");
  }
  if (!Array.isArray(value.errors)) return bad("errors is not a list");
  const validate = resultValidator();
  if (!validate(value)) return bad(describeSchemaError(validate.errors ?? []));
  const saved = value as unknown as SavedResult;
  const problem = histogramProblem(saved) ?? seriesProblem(saved);
  if (problem !== null) return bad(problem);
  return true;
}

/** The parts of a schema-checked result that hold encoded histograms. */
interface SavedResult {
  histograms: Record<string, string>;
  series: { intervalMs: number; points: { t: number; histogram: string }[] };
  generator?: { lateness: { histogram: string } | null };
}

/**
 * Every encoded histogram decoded, each distinct one once: the schema sees only base64, and a
 * corrupt histogram would otherwise pass, to crash a merge or skew a --granularity re-render.
 * Names the first field whose histogram does not decode.
 */
function histogramProblem(result: SavedResult): string | null {
  const fields: [string, string][] = [
    ...Object.entries(result.histograms).map(([key, h]): [string, string] => [
      `histograms.${key}`,
      h,
    ]),
    ...result.series.points.map((p, i): [string, string] => [
      `series.points.${i}.histogram`,
      p.histogram,
    ]),
  ];
  const lateness = result.generator?.lateness;
  if (lateness) fields.push(["generator.lateness.histogram", lateness.histogram]);
  const good = new Set<string>();
  for (const [field, encoded] of fields) {
    if (good.has(encoded)) continue;
    const problem = encodingProblem(encoded);
    if (problem !== null) return `${field} is not a histogram: ${problem}`;
    good.add(encoded);
  }
  return null;
}

/** The series' points start on a whole interval each, in time order, one per interval. */
function seriesProblem(result: { series: SavedResult["series"] }): string | null {
  const { intervalMs, points } = result.series;
  for (let i = 0; i < points.length; i++) {
    const { t } = points[i];
    if (t % intervalMs !== 0) {
      return `series.points.${i}.t ${t} is not a multiple of series.intervalMs ${intervalMs}`;
    }
    if (i > 0 && t <= points[i - 1].t) {
      return `series.points.${i}.t is not after series.points.${i - 1}.t`;
    }
  }
  return null;
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
  ajv.addSchema(shippedResultSchema(), "result");
  const compiled = ajv.getSchema("result#/$defs/result");
  if (compiled === undefined) throw new Error("schema/result.schema.json has no $defs/result");
  validator = compiled;
  return validator;
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
