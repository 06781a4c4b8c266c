#!/usr/bin/env node
/**
 * Rooms that say what they hold: moves the delivery join's files into src/delivery/, the
 * Result's definition, assembly, merge and verdicts into src/result/, and the input grammar out
 * of stats/, leaving stats/ the leaf of histograms, counters, series and clocks. Every relative
 * import in src/, test/, bench/ and scripts/ follows its file, and so do the paths the tests,
 * scripts and docs name ("src/stats/result-schema/", "stats/delivery-join.ts").
 *
 * Run from the repository root after every branch of the round is merged:
 *
 *   node scripts/rooms.mjs            # moves with git mv, rewrites, prints what it did
 *   node scripts/rooms.mjs --dry-run  # prints the moves only
 *
 * Driven by a table (MOVES) and rules (RULES) for files that come later, so it copes with files
 * other branches added to src/stats/; a file of src/stats/ neither names is left where it is and
 * printed. Running it again is harmless: a file already moved is not found at its old path, and
 * every rewrite is of a path that no longer exists to one that does.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";

const root = process.cwd();
const dryRun = process.argv.includes("--dry-run");
if (!existsSync(join(root, "src/stats")) || !existsSync(join(root, "package.json"))) {
  console.error("rooms.mjs: run from the repository root (src/stats/ not found)");
  process.exit(2);
}

/** Named moves, src-relative. A folder (ending in /) moves with everything under it. */
const MOVES = {
  // delivery/: through the gateway
  "stats/accept-ledger.ts": "delivery/accept-ledger.ts",
  "stats/arrival-store.ts": "delivery/arrival-store.ts",
  "stats/arrivals-file.ts": "delivery/arrivals-file.ts",
  "stats/delivery.ts": "delivery/verdict.ts",
  "stats/delivery-join.ts": "delivery/join.ts",
  "stats/delivery-tally.ts": "delivery/tally.ts",
  "stats/delivery-timeline.ts": "delivery/relay-timeline.ts",
  "stats/delivery-result.ts": "delivery/records.ts",
  "stats/delivery-thresholds.ts": "delivery/threshold-metrics.ts",
  "stats/in-flight-table.ts": "delivery/in-flight-table.ts",
  "stats/backlog-trend.ts": "delivery/backlog-trend.ts",
  "sink/receive.ts": "delivery/receiver.ts",
  "run/receive.ts": "delivery/gateway-run.ts",
  // result/: the Result's definition, its types, assembly, merge, verdicts
  "stats/result-schema/": "result/schema/",
  "stats/result.ts": "result/result.ts",
  "stats/summarise.ts": "result/summarise.ts",
  "stats/accounting.ts": "result/accounting.ts",
  "stats/knee.ts": "result/knee.ts",
  "stats/merge-rules.ts": "result/merge-rules.ts",
  "stats/merge-results.ts": "result/merge-results.ts",
  "stats/merge-snapshots.ts": "result/merge-snapshots.ts",
  "stats/generator-merge.ts": "result/generator-merge.ts",
  "stats/generator-verdict.ts": "result/generator-verdict.ts",
  "stats/outcome-verdict.ts": "result/outcome-verdict.ts",
  "stats/thresholds.ts": "result/threshold-verdicts.ts",
  "stats/shipped-schema.ts": "result/shipped-schema.ts",
  "stats/shard-check.ts": "result/shard-check.ts",
  "stats/shard-header.ts": "result/shard-header.ts",
  "stats/generator-result.ts": "result/generator-result.ts",
  "stats/tls-result.ts": "result/tls-result.ts",
  "stats/latency-summary.ts": "result/latency-summary.ts",
  "stats/result-context.ts": "result/result-context.ts",
  "stats/probe-result.ts": "result/probe-result.ts",
  "stats/capacity-result.ts": "result/capacity-result.ts",
};

/** The leaf that stays: known, so that only a newcomer is reported as unclassified. */
const STAYS = new Set(
  [
    "clock",
    "collector",
    "counts",
    "errors",
    "first-errors",
    "generator-load",
    "hdr-codec",
    "histogram",
    "number-format",
    "printable",
    "series",
    "start-lateness",
    "timeline",
    "tls-tally",
    "typed-room",
    "warnings",
  ].map((name) => `stats/${name}.ts`),
);

/** Rules for a src/stats/ file the table does not name, first match wins. */
const RULES = [
  [/^stats\/delivery-(.+\.ts)$/, "delivery/$1"],
  [/^stats\/((?:backlog|arrival|in-flight|accept)[-\w]*\.ts)$/, "delivery/$1"],
  [/^stats\/([-\w]+-(?:result|verdict)\.ts)$/, "result/$1"],
  [/^stats\/((?:merge|shard|result)-[-\w]*\.ts)$/, "result/$1"],
];

/**
 * The input grammar (units.ts) belongs to config/, which turns raw input into a checked config.
 * sink/ may not import config/; while a sink file still parses units itself, the grammar goes to
 * usage/, the leaf of what the user typed that config/ and sink/ share.
 */
function unitsHome() {
  const sinkUses = listFiles("src/sink").some((f) =>
    /from\s+["']\.\.\/(stats|config|usage)\/units\.js["']/.test(readFileSync(join(root, f), "utf8")),
  );
  return sinkUses ? "usage/units.ts" : "config/units.ts";
}

function listFiles(dir) {
  const out = [];
  const abs = join(root, dir);
  if (!existsSync(abs)) return out;
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist") out.push(...listFiles(path));
    } else out.push(path);
  }
  return out.sort();
}

/** Where a src-relative path goes by table or rule; null: it stays. */
function targetOf(srcPath, units) {
  if (srcPath === "stats/units.ts") return units;
  if (MOVES[srcPath]) return MOVES[srcPath];
  for (const [from, to] of Object.entries(MOVES))
    if (from.endsWith("/") && srcPath.startsWith(from)) return to + srcPath.slice(from.length);
  if (STAYS.has(srcPath)) return null;
  for (const [pattern, to] of RULES) if (pattern.test(srcPath)) return srcPath.replace(pattern, to);
  return null;
}

// 1. The moves.
const units = unitsHome();
const moves = new Map(); // "src/stats/x.ts" → "src/delivery/y.ts", this run's
const unclassified = [];
const sources = [...listFiles("src/stats"), "src/sink/receive.ts", "src/run/receive.ts"].filter(
  (f) => existsSync(join(root, f)) && f.endsWith(".ts"),
);
for (const file of sources) {
  const to = targetOf(file.slice(4), units);
  if (to === null) {
    if (file.startsWith("src/stats/") && !STAYS.has(file.slice(4))) unclassified.push(file);
    continue;
  }
  if (existsSync(join(root, "src", to))) {
    console.error(`rooms.mjs: ${file} not moved: src/${to} exists already`);
    process.exitCode = 1;
    continue;
  }
  moves.set(file, `src/${to}`);
}
for (const [from, to] of moves) {
  console.log(`moved  ${from} → ${to}`);
  if (dryRun) continue;
  mkdirSync(dirname(join(root, to)), { recursive: true });
  execFileSync("git", ["mv", from, to], { cwd: root });
}
for (const file of unclassified) console.log(`left   ${file} (no rule names it: it stays in stats/)`);
if (dryRun) process.exit(0);

/**
 * Where an old src path lives now: this run's move, or (a run before this one, or a file merged
 * after it that still names the old path) the table's target when the old file is gone and the
 * target is there.
 */
function nowAt(path) {
  if (moves.has(path)) return moves.get(path);
  if (!path.startsWith("src/") || existsSync(join(root, path))) return path;
  const to = targetOf(path.slice(4), existsSync(join(root, "src/config/units.ts")) ? "config/units.ts" : "usage/units.ts");
  return to && existsSync(join(root, "src", to)) ? `src/${to}` : path;
}
const movedBack = new Map([...moves].map(([from, to]) => [to, from]));

// 2. The sink's own receiver interface: sink/ sits below delivery/, so it names what it calls.
const LISTENER = "src/sink/arrival-listener.ts";
const RECEIVER = "src/delivery/receiver.ts";
if (existsSync(join(root, RECEIVER)) && !existsSync(join(root, LISTENER))) {
  writeFileSync(
    join(root, LISTENER),
    `import type { Envelope } from "./envelope-log.js";

/**
 * What the sink tells a receiver of the messages it takes and refuses: the delivery join's
 * receiver (delivery/receiver.ts) implements it, so that the sink needs nothing above it.
 */
export interface ArrivalListener {
  /** A message was taken (its content as kept, and its envelope), at epoch ms atMs. */
  arrived(content: Buffer, envelope: Envelope | null, atMs: number): void;
  /** A message was refused by a fault, content null when refused before DATA. */
  refused(content: Buffer | null, envelope: Envelope | null, atMs: number): void;
}
`,
  );
  execFileSync("git", ["add", LISTENER], { cwd: root });
  console.log(`added  ${LISTENER} (the interface the sink calls; delivery/receiver.ts implements it)`);
}
if (existsSync(join(root, LISTENER))) {
  for (const file of listFiles("src/sink").filter((f) => f.endsWith(".ts"))) {
    const abs = join(root, file);
    const text = readFileSync(abs, "utf8");
    let next = text.replace(/^export \{ Receiver \} from "\.\/receive\.js";\n/m, "");
    if (/import type \{ Receiver \} from "\.\/receive\.js";/.test(next)) {
      next = next
        .replace(/import type \{ Receiver \} from "\.\/receive\.js";/, 'import type { ArrivalListener } from "./arrival-listener.js";')
        .replace(/\bReceiver\b/g, "ArrivalListener");
    }
    if (next !== text) {
      writeFileSync(abs, next);
      console.log(`edited ${file} (the sink's receiver is its ArrivalListener)`);
    }
  }
  const abs = join(root, RECEIVER);
  const text = readFileSync(abs, "utf8");
  if (!text.includes("implements ArrivalListener")) {
    const next = text
      .replace(/export class Receiver \{/, "export class Receiver implements ArrivalListener {")
      .replace(/^(import type \{ Envelope \} from [^\n]+\n)/m, `$1import type { ArrivalListener } from "../sink/arrival-listener.js";\n`);
    writeFileSync(abs, next);
    console.log(`edited ${RECEIVER} (implements the sink's ArrivalListener)`);
  }
}

// 3. Relative import specifiers, and paths named in strings and comments.
const SPECIFIER =
  /((?:\bfrom|\bimport|\bimport\s*\(|\bnew URL\(|\brequire\()\s*)(["'])(\.{1,2}\/[^"'\n]+)\2/g;
/** Old src-relative path → new, longest first, for paths named in text ("stats/delivery-join.ts"). */
const TEXT_MOVES = [...Object.entries(MOVES), ["stats/units.ts", units.replace(/^src\//, "")]]
  .filter(([from, to]) => existsSync(join(root, "src", to)) && !existsSync(join(root, "src", from)))
  .sort((a, b) => b[0].length - a[0].length);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const TEXT_PATTERNS = TEXT_MOVES.map(([from, to]) => {
  const stem = from.replace(/\.ts$/, "");
  const toStem = to.replace(/\.ts$/, "");
  // "stats/x.ts", "stats/x.js", "stats/x" as a word; "stats/result-schema/" as a folder.
  const re = from.endsWith("/")
    ? new RegExp(`(?<![\\w.-])${escape(from)}`, "g")
    : new RegExp(`(?<![\\w.-])${escape(stem)}(?=\\.ts|\\.js|(?![\\w-]))`, "g");
  return [re, from.endsWith("/") ? to : toStem];
});
// A folder named without its slash: "src/stats/result-schema" in a sentence.
TEXT_PATTERNS.push([/(?<![\w.-])stats\/result-schema(?![\w-])/g, "result/schema"]);

/** Files whose text names paths literally and must not be rewritten (fixtures of a checker). */
const TEXT_KEEP = new Set(["test/layers.test.ts", "scripts/rooms.mjs"]);

const CODE = /\.(ts|mts|mjs|js|cjs)$/;
const scanned = ["src", "test", "bench", "scripts"].flatMap(listFiles).filter((f) => CODE.test(f));
const docs = ["docs", "."]
  .flatMap((d) => (d === "." ? readdirSync(root).filter((f) => f.endsWith(".md")) : listFiles(d)))
  .filter((f) => f.endsWith(".md"));

let rewritten = 0;
for (const file of scanned) {
  const abs = join(root, file);
  const text = readFileSync(abs, "utf8");
  const was = movedBack.get(file) ?? file; // where the file stood when its imports were written
  let next = text.replace(SPECIFIER, (whole, lead, quote, spec) => {
    const target = posix.normalize(posix.join(posix.dirname(was), spec));
    const ts = target.replace(/\.js$/, ".ts");
    const moved = nowAt(ts);
    const now = moved !== ts ? moved.replace(/\.ts$/, target.endsWith(".js") ? ".js" : ".ts") : target;
    if (now === target && was === file) return whole;
    let rel = posix.relative(posix.dirname(file), now);
    if (!rel.startsWith(".")) rel = `./${rel}`;
    return `${lead}${quote}${rel}${quote}`;
  });
  if (!TEXT_KEEP.has(file)) for (const [re, to] of TEXT_PATTERNS) next = next.replace(re, to);
  if (next !== text) {
    writeFileSync(abs, next);
    rewritten++;
  }
}
for (const file of docs) {
  if (file === "docs/development.md") continue; // drawn below
  const abs = join(root, file);
  const text = readFileSync(abs, "utf8");
  let next = text;
  for (const [re, to] of TEXT_PATTERNS) next = next.replace(re, to);
  if (next !== text) {
    writeFileSync(abs, next);
    rewritten++;
  }
}

// 4. A `Receiver` imported through sink/index.js comes from delivery/ now.
for (const file of scanned.filter((f) => f.endsWith(".ts"))) {
  const abs = join(root, file);
  const text = readFileSync(abs, "utf8");
  const next = text.replace(
    /import \{([^}]*)\} from "((?:\.\.?\/)+(?:src\/)?sink\/index\.js)";/g,
    (whole, names, spec) => {
      const list = names.split(",").map((n) => n.trim()).filter(Boolean);
      if (!list.includes("Receiver")) return whole;
      const rest = list.filter((n) => n !== "Receiver");
      let rel = posix.relative(posix.dirname(file), RECEIVER.replace(/\.ts$/, ".js"));
      if (!rel.startsWith(".")) rel = `./${rel}`;
      const receiver = `import { Receiver } from "${rel}";`;
      return rest.length ? `${receiver}\nimport { ${rest.join(", ")} } from "${spec}";` : receiver;
    },
  );
  if (next !== text) {
    writeFileSync(abs, next);
    console.log(`edited ${file} (Receiver from delivery/receiver.js)`);
  }
}
console.log(`rewrote paths in ${rewritten} files`);

// 5. The layer plan and the drawing of the house.
// PLAN
