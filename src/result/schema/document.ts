/**
 * The JSON Schema document mailvolley ships (schema/result.schema.json, written by
 * scripts/schema.mjs during `npm run build`) and that `report` and `merge` check saved results
 * against: a Result, or a comparison of two. Built from the definitions of this folder, with
 * the shared kinds in `$defs`, keys in a fixed order, so the file is byte-stable.
 */
import { type TSchema, Type } from "@sinclair/typebox";
import { CapacitySchema, CapacitySection } from "./capacity.js";
import { ClassResult } from "./classes.js";
import { Knee, RunRecord, ThresholdOutcome } from "./context.js";
import { def, defName, enumOf, nullable, recordOf, ref } from "./define.js";
import { DiffFigure, DiffSchema } from "./diff.js";
import { ErrorRow, FirstSeen } from "./errors.js";
import { EventLoopDelay, Generator, ThreadLoad, ThreadLoadPoint } from "./generator.js";
import {
  Count,
  EpochMs,
  ErrorClass,
  ErrorClassCounts,
  Fraction,
  Histogram,
  IsoTime,
  Latencies,
  LatencySummary,
  NonNegative,
  Phase,
  PositiveInteger,
  Seconds,
} from "./kinds.js";
import {
  CAPACITY_SCHEMA,
  COMPARE_SCHEMA,
  DIFF_SCHEMA,
  HEADLINE_FIGURES,
  MODES,
  RESULT_SCHEMA,
} from "./names.js";
import { HeadlineFigures, Spread } from "./repeat.js";
import { ResultSchema } from "./result.js";
import { SeriesPoint } from "./series.js";
import { ShardHeader } from "./shard.js";

export const ComparisonSchema = def(
  "comparison",
  Type.Object(
    {
      schema: Type.Literal(COMPARE_SCHEMA, { description: "This document's kind and version." }),
      runs: Type.Array(ref(ResultSchema), {
        description: "The runs, in the order they ran; each carries its `mode`.",
      }),
      notRun: Type.Optional(
        Type.Array(enumOf(MODES), {
          description: "Runs a signal kept from starting (during --pause); absent when both ran.",
        }),
      ),
      repeat: Type.Optional(
        Type.Object(
          {
            rounds: ref(PositiveInteger, "Rounds run: each runs every mode once, in --order."),
            ratios: recordOf(
              HEADLINE_FIGURES,
              (name) =>
                nullable(
                  ref(Spread),
                  `${name} of the reuse run / ${name} of the (first) per-message run, per round, and its spread over the rounds; null where no round has both, or a per-message figure is 0.`,
                ),
              "Each headline figure's ratio reuse / per-message with its 95 % confidence interval.",
            ),
          },
          {
            description:
              "`compare --repeat N`: N rounds. `runs` holds the last round, each run with its `repeat` section over its mode's rounds. Absent without --repeat.",
            additionalProperties: false,
          },
        ),
      ),
    },
    {
      description:
        "`mailvolley compare`: the two runs of the same load, in the order they ran; each carries its mode.",
      additionalProperties: false,
    },
  ),
);

/** The `$defs`, in the order the shipped file has always listed them. */
const DEFS: readonly TSchema[] = [
  ComparisonSchema,
  ResultSchema,
  Count,
  PositiveInteger,
  NonNegative,
  EpochMs,
  Seconds,
  Fraction,
  IsoTime,
  Histogram,
  Phase,
  ErrorClass,
  ErrorClassCounts,
  LatencySummary,
  Latencies,
  ErrorRow,
  ClassResult,
  SeriesPoint,
  ThresholdOutcome,
  FirstSeen,
  Knee,
  RunRecord,
  ShardHeader,
  Generator,
  EventLoopDelay,
  ThreadLoad,
  ThreadLoadPoint,
  HeadlineFigures,
  Spread,
  DiffSchema,
  DiffFigure,
  CapacitySchema,
  CapacitySection,
];

/** Keys of a schema object in this order; any other key after them, as written. */
const KEY_ORDER = [
  "$schema",
  "title",
  "description",
  "type",
  "const",
  "enum",
  "pattern",
  "minimum",
  "maximum",
  "additionalProperties",
  "propertyNames",
  "required",
  "properties",
  "items",
  "oneOf",
  "anyOf",
  "$ref",
  "if",
  "then",
  "else",
  "$defs",
];
/** Keys whose value is a map of names to schemas (the names keep their written order). */
const SCHEMA_MAPS = new Set(["properties", "$defs"]);
/** Keys whose value is one schema, or a list of them. */
const SCHEMA_VALUES = new Set([
  "additionalProperties",
  "propertyNames",
  "items",
  "oneOf",
  "anyOf",
  "if",
  "then",
  "else",
]);

function rank(key: string): number {
  const at = KEY_ORDER.indexOf(key);
  return at < 0 ? KEY_ORDER.length : at;
}

/** A plain JSON copy of `schema`: TypeBox's symbols gone, keys in KEY_ORDER. */
function plain(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plain);
  if (typeof schema !== "object" || schema === null) return schema;
  const source = schema as Record<string, unknown>;
  const keys = Object.keys(source).sort((a, b) => rank(a) - rank(b));
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = source[key];
    if (SCHEMA_MAPS.has(key)) {
      const map: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value as object)) map[name] = plain(child);
      out[key] = map;
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = plain(value);
    } else {
      out[key] = Array.isArray(value) ? [...value] : value;
    }
  }
  return out;
}

/** The whole document: a Result, or a comparison when `schema` says so. */
export function resultJsonSchema(): Record<string, unknown> {
  return plain({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: `mailvolley result (${RESULT_SCHEMA}), comparison (${COMPARE_SCHEMA}), diff (${DIFF_SCHEMA}) or capacity (${CAPACITY_SCHEMA})`,
    description: `What \`mailvolley run --json\`, \`compare --json\`, \`merge --json\`, \`diff --json\` and \`capacity --json\` write. A document whose \`schema\` is ${COMPARE_SCHEMA} is a Comparison, ${DIFF_SCHEMA} a Diff, ${CAPACITY_SCHEMA} a Capacity, any other a Result. Generated from src/result/schema/ (each figure's description is its definition); \`#/$defs/result\` alone validates one Result.`,
    type: "object",
    if: { type: "object", required: ["schema"], properties: { schema: { const: COMPARE_SCHEMA } } },
    // JSON Schema's own keyword, not a promise's: the document is never awaited.
    // biome-ignore lint/suspicious/noThenProperty: the if/then/else of JSON Schema.
    then: { $ref: "#/$defs/comparison" },
    else: {
      if: { type: "object", required: ["schema"], properties: { schema: { const: DIFF_SCHEMA } } },
      // biome-ignore lint/suspicious/noThenProperty: the if/then/else of JSON Schema.
      then: { $ref: "#/$defs/diff" },
      else: {
        if: {
          type: "object",
          required: ["schema"],
          properties: { schema: { const: CAPACITY_SCHEMA } },
        },
        // biome-ignore lint/suspicious/noThenProperty: the if/then/else of JSON Schema.
        then: { $ref: "#/$defs/capacity" },
        else: { $ref: "#/$defs/result" },
      },
    },
    $defs: Object.fromEntries(DEFS.map((schema) => [defName(schema), schema])),
  }) as Record<string, unknown>;
}

/** The document as the shipped file holds it: two-space JSON and a final newline. */
export function resultJsonSchemaText(): string {
  return `${JSON.stringify(resultJsonSchema(), null, 2)}\n`;
}
