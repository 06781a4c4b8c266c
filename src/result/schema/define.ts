/**
 * The few builders every section of the Result's definition uses, on top of TypeBox: a named
 * definition (`def`, one entry of the JSON Schema's `$defs`), a reference to one with the
 * figure's own description (`ref`), a value or null (`nullable`), a closed list of strings
 * (`enumOf`) and an object keyed by free names (`mapOf`). Each keeps the TypeScript type
 * (`Static`) exact while writing the JSON Schema the way the shipped file always had it, so
 * ajv's messages to a user stay the same.
 */
import { type Static, type TSchema, type TUnsafe, Type } from "@sinclair/typebox";

/** The `$defs` name of a definition; a symbol, so that it never shows in the JSON. */
const DEF_NAME = Symbol("mailvolley.def");

type Named = TSchema & { [DEF_NAME]?: string };

/** `schema` as the definition `name` of the document's `$defs`. */
export function def<T extends TSchema>(name: string, schema: T): T {
  (schema as Named)[DEF_NAME] = name;
  return schema;
}

/** The `$defs` name given by `def`; throws for a schema that is no definition. */
export function defName(schema: TSchema): string {
  const name = (schema as Named)[DEF_NAME];
  if (name === undefined) throw new Error("a $ref to a schema that def() did not name");
  return name;
}

/** A reference to a definition, typed as it; `description` says what this field means. */
export function ref<T extends TSchema>(target: T, description?: string): TUnsafe<Static<T>> {
  return Type.Unsafe<Static<T>>({
    ...(description === undefined ? {} : { description }),
    $ref: `#/$defs/${defName(target)}`,
  });
}

/** `schema` or null. oneOf rather than TypeBox's anyOf: the shipped schema's wording. */
export function nullable<T extends TSchema>(
  schema: T,
  description?: string,
): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({
    ...(description === undefined ? {} : { description }),
    oneOf: [{ type: "null" }, schema],
  });
}

/** One of `values`, as a JSON Schema `enum` (ajv: "must be equal to one of the allowed values"). */
export function enumOf<const V extends readonly string[]>(
  values: V,
  description?: string,
): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({
    ...(description === undefined ? {} : { description }),
    enum: [...values],
  });
}

/** An object of free keys (class names), each value `schema`. */
export function mapOf<T extends TSchema>(
  schema: T,
  description?: string,
): TUnsafe<Record<string, Static<T>>> {
  return Type.Unsafe<Record<string, Static<T>>>({
    ...(description === undefined ? {} : { description }),
    type: "object",
    additionalProperties: schema,
  });
}

/** A closed object with one property per key, each `schema`: counts by error class, say. */
export function recordOf<const K extends string, T extends TSchema>(
  keys: readonly K[],
  schema: (key: K) => T,
  description?: string,
): TUnsafe<Record<K, Static<T>>> {
  return Type.Unsafe<Record<K, Static<T>>>(
    Type.Object(Object.fromEntries(keys.map((key) => [key, schema(key)])), {
      ...(description === undefined ? {} : { description }),
      additionalProperties: false,
    }),
  );
}

/** Which way a figure is better: the keyword `better` a diff reads off the shipped schema. */
export type Better = "higher" | "lower";

/**
 * `schema` with the annotation `better`: whether more or less of the figure is the better run.
 * A keyword of the figure's own definition (JSON Schema lets a schema carry annotations beyond
 * its vocabulary), so that `mailvolley diff` reads it where the figure is defined.
 */
export function better<T extends TSchema>(direction: Better, schema: T): T {
  return { ...schema, better: direction } as T;
}
