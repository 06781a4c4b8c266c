/**
 * Walks a real document (a Result or a comparison) along the shipped JSON Schema and lists each
 * field it holds whose schema gives no description: a figure a reader of the schema could not
 * look up. A field the schema does not know at all is listed too (ajv says so as well).
 */
import { readFileSync } from "node:fs";

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema read from disk.
type Node = any;

export const SCHEMA_FILE = new URL("../../../schema/result.schema.json", import.meta.url);

export function readSchema(): Node {
  return JSON.parse(readFileSync(SCHEMA_FILE, "utf8"));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Follows `$ref`s, the root's if/then/else and a nullable oneOf to the schema that applies. */
function resolve(root: Node, node: Node, value: unknown): Node {
  let at = node;
  for (let step = 0; step < 20; step++) {
    if (at.$ref !== undefined) at = root.$defs[String(at.$ref).replace("#/$defs/", "")];
    else if (at.if !== undefined) {
      const compare = isObject(value) && value.schema === at.if.properties.schema.const;
      at = compare ? at.then : at.else;
    } else if (at.oneOf !== undefined) {
      at = value === null ? { type: "null" } : at.oneOf.find((alt: Node) => alt.type !== "null");
    } else return at;
  }
  throw new Error("the schema's references run in a circle");
}

/** The description a field's schema gives: its own, or that of the definition it refers to. */
function descriptionOf(root: Node, node: Node): string | undefined {
  if (node.description !== undefined) return node.description;
  if (node.$ref !== undefined) return descriptionOf(root, resolve(root, { $ref: node.$ref }, 0));
  return undefined;
}

/** What a document holds, by the schema: its fields (as paths) and the problems among them. */
export interface FieldReport {
  fields: Set<string>;
  /** "path: no description" or "path: not in the schema", sorted. */
  problems: string[];
}

function walk(root: Node, node: Node, value: unknown, path: string, out: FieldReport): void {
  const at = resolve(root, node, value);
  if (Array.isArray(value)) {
    for (const item of value) if (at.items) walk(root, at.items, item, `${path}[]`, out);
    return;
  }
  // An open object (run.options, the checked options as given) holds data, not figures.
  if (!isObject(value) || (at.properties === undefined && !isObject(at.additionalProperties))) {
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    const property = at.properties?.[key];
    const field = path === "" ? key : `${path}.${key}`;
    if (property !== undefined) {
      out.fields.add(field);
      if (!descriptionOf(root, property)) out.problems.push(`${field}: no description`);
      walk(root, property, child, field, out);
    } else if (isObject(at.additionalProperties)) {
      // A map keyed by free names (classes, histograms): the entries are data, not fields.
      walk(root, at.additionalProperties, child, `${path}{}`, out);
    } else {
      out.problems.push(`${field}: not in the schema`);
    }
  }
}

/** Every field of `doc`, and those whose schema lacks a description (or that it lacks). */
export function schemaFields(schema: Node, doc: unknown): FieldReport {
  const out: FieldReport = { fields: new Set(), problems: [] };
  walk(schema, schema, doc, "", out);
  out.problems = [...new Set(out.problems)].sort();
  return out;
}
