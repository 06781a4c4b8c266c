/** One .eml file (like smtp-source -F) or a directory of them. */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type PreparedContent, prepareContent, readSourceFile } from "./content.js";
import { MessageList } from "./list.js";
import { type MessageSource, SourceError, type SourceOrder } from "./source.js";

const EML = /\.eml$/i;
/** Files read at once while loading a directory: enough to hide latency, far below fd limits. */
const READ_CONCURRENCY = 32;

async function loadMessageFile(file: string): Promise<PreparedContent> {
  const raw = await readSourceFile(file, "message file");
  if (raw.length === 0) throw new SourceError(file, "is empty; give a message with a header block");
  return prepareContent(raw, file);
}

export async function loadEml(path: string): Promise<MessageSource> {
  return new MessageList("eml", [await loadMessageFile(path)]);
}

/**
 * Every `*.eml` file (any case) directly in `dir`, sorted by name in code-point order so the
 * sequence does not depend on the locale; subdirectories are not searched.
 */
export async function loadEmlDir(
  dir: string,
  order: SourceOrder = "sequential",
  seed?: number,
): Promise<MessageSource> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "no such directory; check the path"
        : code === "ENOTDIR"
          ? "is not a directory; give a directory of .eml files"
          : `cannot be listed (${(error as Error).message})`;
    throw new SourceError(dir, why);
  }
  const files = names
    .filter((name) => EML.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => join(dir, name));
  if (files.length === 0) {
    throw new SourceError(dir, "holds no *.eml files; put messages there as NAME.eml");
  }
  const prepared: PreparedContent[] = [];
  for (let i = 0; i < files.length; i += READ_CONCURRENCY) {
    const batch = files.slice(i, i + READ_CONCURRENCY);
    prepared.push(...(await Promise.all(batch.map(loadMessageFile))));
  }
  return new MessageList("eml-dir", prepared, order, seed);
}
