/**
 * A figure's description, read from the Result's JSON Schema as shipped (built from
 * src/result/schema/), so the HTML's tooltip on a row says what the schema and
 * docs/result.md say, written once.
 */
import { shippedResultSchema } from "../result/shipped-schema.js";

// biome-ignore lint/suspicious/noExplicitAny: walking the schema's JSON.
type Node = any;

let schema: Node | null = null;
const known = new Map<string, string | undefined>();

function resolve(node: Node): Node {
  let at = node;
  for (let step = 0; step < 20 && (at.$ref || at.oneOf); step++) {
    at = at.$ref
      ? schema.$defs[String(at.$ref).replace("#/$defs/", "")]
      : at.oneOf.find((alt: Node) => alt.type !== "null");
  }
  return at;
}

/** The description of the field at a dotted path of a Result ("messages.accepted"); undefined if none. */
export function figureDescription(path: string): string | undefined {
  if (known.has(path)) return known.get(path);
  schema ??= shippedResultSchema();
  let at: Node = schema.$defs.result;
  let property: Node;
  for (const key of path.split(".")) {
    property = resolve(at).properties?.[key];
    if (property === undefined) break;
    at = property;
  }
  const text =
    property === undefined ? undefined : (property.description ?? resolve(property).description);
  known.set(path, text);
  return text;
}

/** ` title="…"` for an HTML element about the figure at `path` ("" when it has no description). */
export function titleOf(path: string, esc: (text: string) => string): string {
  const text = figureDescription(path);
  return text === undefined ? "" : ` title="${esc(text)}"`;
}
