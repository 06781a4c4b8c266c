/**
 * Every field the shipped JSON Schema defines for a Result, as paths: "messages.accepted",
 * "classes[].apdex" (an item of a list), "sink.classes.*.accepted" (any key of a map). For the
 * tests that check a table keyed by those paths covers them all, and for docs/result.md's
 * generated field reference.
 */

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema read from disk.
type Node = any;

export interface SchemaField {
  path: string;
  /** The JSON types the field may hold (null included where it is nullable). */
  types: string[];
  description: string | undefined;
  /** The `$defs` name it refers to, when its schema is a shared definition. */
  def?: string;
  /** With `once`: the earlier field of the same definition, whose fields this one has too. */
  sameAs?: string;
}

function resolve(root: Node, node: Node): { at: Node; nullable: boolean; def?: string } {
  let at = node;
  let nullable = false;
  let def: string | undefined;
  for (let step = 0; step < 20; step++) {
    if (at.$ref !== undefined) {
      def ??= String(at.$ref).replace("#/$defs/", "");
      at = root.$defs[String(at.$ref).replace("#/$defs/", "")];
    } else if (at.oneOf !== undefined) {
      nullable ||= at.oneOf.some((alt: Node) => alt.type === "null");
      at = at.oneOf.find((alt: Node) => alt.type !== "null");
    } else return { at, nullable, def };
  }
  throw new Error("the schema's references run in a circle");
}

function description(root: Node, node: Node): string | undefined {
  if (node.description !== undefined) return node.description;
  if (node.$ref !== undefined) {
    return description(root, root.$defs[String(node.$ref).replace("#/$defs/", "")]);
  }
  return undefined;
}

/**
 * The fields under the Result, parents before their children. With `once`, the fields of a
 * shared definition (a latency summary, a class row) are listed under its first use only;
 * later uses name that one (`sameAs`).
 */
export function schemaFields(root: Node, once = false): SchemaField[] {
  const out: SchemaField[] = [];
  const expanded = new Map<string, string>();
  const walk = (node: Node, path: string, depth: number) => {
    if (depth > 12) return;
    const { at, nullable, def } = resolve(root, node);
    const hasFields = at.properties !== undefined || at.items !== undefined;
    const sameAs = once && def && hasFields ? expanded.get(def) : undefined;
    if (path !== "") {
      const types = [...[at.type ?? (at.enum ? "string" : "object")].flat()];
      if (nullable) types.push("null");
      const field: SchemaField = { path, types, description: description(root, node) };
      if (def) field.def = def;
      if (sameAs) field.sameAs = sameAs;
      out.push(field);
    }
    if (sameAs) return;
    if (def && hasFields) expanded.set(def, path);
    const prefix = path === "" ? "" : `${path}.`;
    if (at.properties) {
      for (const [key, child] of Object.entries(at.properties))
        walk(child, prefix + key, depth + 1);
    } else if (at.items) {
      walk(at.items, `${path}[]`, depth + 1);
    } else if (typeof at.additionalProperties === "object") {
      walk(at.additionalProperties, `${prefix}*`, depth + 1);
    }
  };
  walk(root.$defs.result, "", 0);
  return out;
}

/** The paths of the fields that hold numbers (or lists of numbers). */
export function numberPaths(root: Node): string[] {
  return schemaFields(root)
    .filter((f) => f.types.includes("number") || f.types.includes("integer"))
    .map((f) => f.path);
}
