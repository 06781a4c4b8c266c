/**
 * docs/result.md's field reference is generated from the Result's definition (the JSON Schema
 * the build writes from src/result/schema/): each figure's text is written once, in its
 * description. This fails when the block between the markers is not what the definition gives;
 * MAILVOLLEY_UPDATE_DOCS=1 rewrites the block (then review the diff).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { readSchema } from "./helpers/schema-fields.js";
import { type SchemaField, schemaFields } from "./helpers/schema-paths.js";

const DOC = fileURLToPath(new URL("../../docs/result.md", import.meta.url));
const BEGIN =
  "<!-- BEGIN generated from src/result/schema/ by test/result-doc.test.ts (MAILVOLLEY_UPDATE_DOCS=1); edit the descriptions there -->";
const END = "<!-- END generated field reference -->";

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

function typeOf(f: SchemaField): string {
  const scalar = !f.types.includes("object") && !f.types.includes("array");
  const kind = f.def && scalar ? f.def : f.types.filter((t) => t !== "null").join(" or ");
  return f.types.includes("null") ? `${kind} or null` : kind;
}

function fieldTable(): string {
  const rows = schemaFields(readSchema(), true).map((f) => {
    const same = f.sameAs ? ` Its fields as \`${f.sameAs}\`.` : "";
    return `| \`${f.path}\` | ${typeOf(f)} | ${cell(f.description ?? "")}${same} |`;
  });
  return ["| field | type | definition |", "| --- | --- | --- |", ...rows].join("\n");
}

test("docs/result.md's field reference is the definition's", () => {
  const doc = readFileSync(DOC, "utf8");
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  assert.ok(from >= 0 && to > from, `docs/result.md needs the markers ${BEGIN} … ${END}`);
  const block = `${BEGIN}\n${fieldTable()}\n${END}`;
  const fresh = doc.slice(0, from) + block + doc.slice(to + END.length);
  if (process.env.MAILVOLLEY_UPDATE_DOCS === "1") writeFileSync(DOC, fresh);
  assert.equal(
    doc,
    fresh,
    "stale: MAILVOLLEY_UPDATE_DOCS=1 node --test dist/test/result-doc.test.js",
  );
});
