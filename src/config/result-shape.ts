/**
 * What `report` and `merge` accept as a saved result: the schema this version writes, and the
 * counts they add up as numbers; and what `report` accepts as a saved capacity search. A
 * hand-edited or foreign file (`"accepted": "200lots"`, `schema: result@9`) is refused with one
 * line, never rendered as garbage.
 */
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv";
import { RESULT_SCHEMA } from "../result/schema/names.js";
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
  const problem = resultProblem(value, schema);
  if (problem !== null) {
    throw new UsageError("result", `"${path}" is not a mailvolley result: ${problem}`);
  }
  return true;
}

/** The first thing wrong with a saved Result (its field first, where one is to blame), or null. */
function resultProblem(value: unknown, schema: string): string | null {
  if (!isRecord(value)) return "not a JSON object";
  if (typeof value.schema !== "string") return "no schema";
  if (value.schema !== schema) return `schema "${value.schema}"; this version reads "${schema}"`;
  for (const [group, keys] of Object.entries(COUNTS)) {
    const counts = value[group];
    if (!isRecord(counts)) return `no ${group} counts`;
    for (const key of keys) {
      if (!isCount(counts[key])) {
        return `${group}.${key} is ${JSON.stringify(counts[key])}, not a whole number`;
      }
    }
  }
  const m = value.messages as Record<string, unknown>;
  // Older results have no unconfirmed messages: the term is 0 there.
  const unconfirmed = m.unconfirmed ?? 0;
  if (!isCount(unconfirmed)) {
    return `messages.unconfirmed is ${JSON.stringify(unconfirmed)}, not a whole number`;
  }
  const [attempted, accepted, rejected, failed] = COUNTS.messages.map((k) => m[k] as number);
  if (attempted !== accepted + rejected + failed + (unconfirmed as number)) {
    return "messages.attempted is not accepted + rejected + failed + unconfirmed";
  }
  if (typeof value.elapsedSeconds !== "number" || !(value.elapsedSeconds >= 0)) {
    return "elapsedSeconds is not a number";
  }
  if (!Array.isArray(value.errors)) return "errors is not a list";
  const validate = validatorOf("result");
  if (!validate(value)) return describeSchemaError(validate.errors ?? []);
  const saved = value as unknown as SavedResult;
  return histogramProblem(saved) ?? seriesProblem(saved);
}

/** A capacity search's searches: reuse's (or the one mode's), and per-message's with both. */
const CAPACITY_SECTIONS = ["capacity", "perMessage"] as const;

/**
 * Throws a UsageError (option `result`) naming the file and the first field that is wrong in a
 * saved capacity search: the shipped schema, every step's Result checked as `report` checks a
 * run's, and the indexes the renderers follow (a level's step, a level step's checks, one per
 * service level judged) pointing where they must.
 */
export function checkCapacityShape(value: unknown, path: string, schema: string): true {
  const problem = capacityProblem(value, schema);
  if (problem !== null) {
    throw new UsageError("result", `"${path}" is not a mailvolley capacity search: ${problem}`);
  }
  return true;
}

function capacityProblem(value: unknown, schema: string): string | null {
  if (!isRecord(value)) return "not a JSON object";
  if (value.schema !== schema) return `schema "${value.schema}"; this version reads "${schema}"`;
  const validate = validatorOf("capacity");
  if (!validate(value)) return describeSchemaError(validate.errors ?? []);
  for (const name of CAPACITY_SECTIONS) {
    const section = value[name] as SavedCapacity | undefined;
    if (section === undefined) continue;
    for (const [i, step] of section.steps.entries()) {
      const problem = resultProblem(step.result, RESULT_SCHEMA);
      if (problem !== null) return `${name}.steps.${i}.result.${problem}`;
    }
    for (const [i, level] of section.levels.entries()) {
      const step = section.steps[level.step];
      if (step === undefined) {
        return `${name}.levels.${i}.step ${level.step} is not a step (${section.steps.length} steps)`;
      }
      if (step.checks.length !== section.levelsJudged.length) {
        return `${name}.steps.${level.step}.checks holds ${step.checks.length} checks for ${section.levelsJudged.length} levels judged`;
      }
    }
  }
  return null;
}

/** The parts of a schema-checked capacity search whose indexes the renderers follow. */
interface SavedCapacity {
  levelsJudged: string[];
  steps: { checks: unknown[]; result: unknown }[];
  levels: { step: number }[];
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

let ajv: import("ajv/dist/2020.js").Ajv2020 | null = null;

/**
 * One definition of the shipped JSON Schema (schema/result.schema.json), compiled once: every
 * field a report reads (latency, histograms, series, errors) is checked before any of it is
 * rendered, so a hand-edited file gets one line naming its field instead of a stack trace. ajv
 * is loaded at run time (a dependency), only by the commands that read results.
 */
function validatorOf(definition: "result" | "capacity"): ValidateFunction {
  if (ajv === null) {
    const require = createRequire(import.meta.url);
    const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    ajv = new Ajv2020({ strict: false });
    ajv.addSchema(shippedResultSchema(), "result");
  }
  const compiled = ajv.getSchema(`result#/$defs/${definition}`);
  if (compiled === undefined) {
    throw new Error(`schema/result.schema.json has no $defs/${definition}`);
  }
  return compiled;
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
