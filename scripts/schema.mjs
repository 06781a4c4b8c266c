/**
 * A step of `npm run build`, after tsc: writes schema/result.schema.json from the Result's one
 * definition (src/result/schema/, compiled to dist/src/result/schema/). The file is
 * generated, not kept by hand (it is in .gitignore); `npm pack` ships it, since prepack builds.
 * Writes only when the text changed, so an unchanged build leaves the file's time alone.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const { resultJsonSchemaText } = await import(`${root}dist/src/result/schema/document.js`);

const file = `${root}schema/result.schema.json`;
const text = resultJsonSchemaText();
if (!existsSync(file) || readFileSync(file, "utf8") !== text) {
  mkdirSync(`${root}schema`, { recursive: true });
  writeFileSync(file, text);
}
