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
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";

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
  "stats/delivery.ts": "delivery/delivery-verdict.ts",
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
    /from\s+["']\.\.\/(stats|config|usage)\/units\.js["']/.test(
      readFileSync(join(root, f), "utf8"),
    ),
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
for (const file of unclassified)
  console.log(`left   ${file} (no rule names it: it stays in stats/)`);
if (dryRun) process.exit(0);

/**
 * Where an old src path lives now: this run's move, or (a run before this one, or a file merged
 * after it that still names the old path) the table's target when the old file is gone and the
 * target is there.
 */
function nowAt(path) {
  if (moves.has(path)) return moves.get(path);
  if (!path.startsWith("src/") || existsSync(join(root, path))) return path;
  const to = targetOf(
    path.slice(4),
    existsSync(join(root, "src/config/units.ts")) ? "config/units.ts" : "usage/units.ts",
  );
  return to && existsSync(join(root, "src", to)) ? `src/${to}` : path;
}
const movedBack = new Map([...moves].map(([from, to]) => [to, from]));

// 2. The sink's own receiver interface: sink/ sits below delivery/, so it names what it calls.
const LISTENER = "src/sink/arrival-listener.ts";
const RECEIVER = "src/delivery/receiver.ts";
/**
 * The interface is the receiver's own signatures of the methods the sink calls on it (read from
 * the receiver as it stands, so that a branch that changed them is followed), with their comments.
 */
function listenerText() {
  const receiver = readFileSync(join(root, RECEIVER), "utf8");
  const called = new Set();
  for (const file of listFiles("src/sink").filter((f) => f.endsWith(".ts")))
    for (const [, name] of readFileSync(join(root, file), "utf8").matchAll(
      /\breceiver[?!]?\.(\w+)\(/g,
    ))
      called.add(name);
  const members = [];
  const signatures = [];
  for (const name of [...called].sort()) {
    const at = receiver.search(new RegExp(`^ {2}${name}\\(`, "m"));
    if (at < 0) {
      console.log(`HAND   ${LISTENER}: the sink calls receiver.${name}, not found in ${RECEIVER}`);
      continue;
    }
    const end = receiver.indexOf(" {\n", at);
    const signature = receiver
      .slice(at, end)
      .replace(/\s*\n\s*/g, " ")
      .replace(/\(\s+/, "(")
      .replace(/,\s*\)/, ")")
      .trim();
    signatures.push(signature);
    // Its comment, when one ends right above it.
    const before = receiver.slice(0, at);
    const docAt = before.lastIndexOf("  /**");
    const doc = docAt >= 0 ? before.slice(docAt) : "";
    const ownDoc = doc.endsWith("*/\n") && doc.indexOf("*/") === doc.length - 3;
    members.push(`${ownDoc ? doc : ""}  ${signature};`);
  }
  const text = members.join("\n");
  const imports = [];
  if (/\bEnvelope\b/.test(text))
    imports.push('import type { Envelope } from "./envelope-log.js";\n\n');
  for (const type of new Set(signatures.join(" ").match(/\b[A-Z]\w+\b/g) ?? []))
    if (!["Buffer", "Envelope", "ReadonlyMap", "Map", "Set", "Readonly", "Record"].includes(type))
      console.log(`HAND   ${LISTENER}: ${type} in a signature: import it from sink/ or below`);
  return `${imports.join("")}/**
 * What the sink tells a receiver of the messages it takes and refuses: the delivery join's
 * receiver (delivery/receiver.ts) implements it, so that the sink needs nothing above it.
 */
export interface ArrivalListener {
${text}
}
`;
}
if (existsSync(join(root, RECEIVER)) && !existsSync(join(root, LISTENER))) {
  writeFileSync(join(root, LISTENER), listenerText());
  execFileSync("git", ["add", LISTENER], { cwd: root });
  console.log(
    `added  ${LISTENER} (the interface the sink calls; delivery/receiver.ts implements it)`,
  );
}
if (existsSync(join(root, LISTENER))) {
  for (const file of listFiles("src/sink").filter((f) => f.endsWith(".ts"))) {
    const abs = join(root, file);
    const text = readFileSync(abs, "utf8");
    let next = text.replace(/^export \{ Receiver \} from "\.\/receive\.js";\n/m, "");
    if (/import type \{ Receiver \} from "\.\/receive\.js";/.test(next)) {
      next = next
        .replace(
          /import type \{ Receiver \} from "\.\/receive\.js";/,
          'import type { ArrivalListener } from "./arrival-listener.js";',
        )
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
      .replace(
        /^(import type \{ Envelope \} from [^\n]+\n)/m,
        `$1import type { ArrivalListener } from "../sink/arrival-listener.js";\n`,
      );
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
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const TEXT_PATTERNS = TEXT_MOVES.map(([from, to]) => {
  const stem = from.replace(/\.ts$/, "");
  const toStem = to.replace(/\.ts$/, "");
  // "stats/x.ts", "stats/x.js", "stats/x" as a word; "stats/result-schema/" as a folder.
  const re = from.endsWith("/")
    ? new RegExp(`(?<![\\w.-])${escapeRe(from)}`, "g")
    : new RegExp(`(?<![\\w.-])${escapeRe(stem)}(?=\\.ts|\\.js|(?![\\w-]))`, "g");
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
/** Every file this run wrote, for biome to sort imports and format at the end. */
const touched = new Set([...moves.values()]);
for (const file of scanned) {
  const abs = join(root, file);
  const text = readFileSync(abs, "utf8");
  const was = movedBack.get(file) ?? file; // where the file stood when its imports were written
  let next = text.replace(SPECIFIER, (whole, lead, quote, spec) => {
    const target = posix.normalize(posix.join(posix.dirname(was), spec));
    const ts = target.replace(/\.js$/, ".ts");
    const moved = nowAt(ts);
    const now =
      moved !== ts ? moved.replace(/\.ts$/, target.endsWith(".js") ? ".js" : ".ts") : target;
    if (now === target && was === file) return whole;
    let rel = posix.relative(posix.dirname(file), now);
    if (!rel.startsWith(".")) rel = `./${rel}`;
    return `${lead}${quote}${rel}${quote}`;
  });
  if (!TEXT_KEEP.has(file)) for (const [re, to] of TEXT_PATTERNS) next = next.replace(re, to);
  if (next !== text) {
    writeFileSync(abs, next);
    touched.add(file);
    rewritten++;
  }
}
for (const file of docs) {
  const abs = join(root, file);
  const text = readFileSync(abs, "utf8");
  let next = text;
  for (const [re, to] of TEXT_PATTERNS) next = next.replace(re, to);
  if (next !== text) {
    writeFileSync(abs, next);
    touched.add(file);
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
      const list = names
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean);
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
    touched.add(file);
    console.log(`edited ${file} (Receiver from delivery/receiver.js)`);
  }
}
console.log(`rewrote paths in ${rewritten} files`);

// 5. The layer plan and the drawing of the house.
// 5. The layer plan (test/layers.test.ts) and the drawing of the house (docs/development.md).
/** Each room's imports beyond what it had: added to its LAYERS row, so rows others grew stay. */
const PLAN_ADD = {
  cli: ["delivery", "result"],
  config: ["result"],
  run: ["delivery"],
  client: ["result:types"],
  sink: ["result:types"],
  report: ["delivery", "result"],
  diff: ["result"],
};
/** The new rooms' rows, inserted before stats/. */
const PLAN_NEW = {
  delivery: ["sink", "config", "messages:types", "result", "stats", "usage"],
  result: ["stats"],
};
/**
 * Imports still against the plan after the move: each is a seam for the next round, not a
 * permission. The thread's counters (stats/collector.ts) keep the accept ledger and merge it
 * with the thread snapshots; the leaf's recorders fill values of the Result's types; the Result's
 * delivery section names the join's records; a run through a gateway reports its progress.
 */
const DEBT = [
  "src/delivery/gateway-run.ts → src/run/progress.ts (types): runs up: run/ is above delivery/",
  "src/result/merge-snapshots.ts → src/delivery/accept-ledger.ts: runs up: delivery/ is above result/",
  "src/result/result.ts → src/delivery/records.ts (types): runs up: delivery/ is above result/",
  "src/result/threshold-verdicts.ts → src/delivery/threshold-metrics.ts: runs up: delivery/ is above result/",
  "src/stats/collector.ts → src/delivery/accept-ledger.ts: runs up: delivery/ is above stats/",
  "src/stats/collector.ts → src/result/result.ts (types): runs up: result/ is above stats/",
  "src/stats/collector.ts → src/result/schema/names.ts: runs up: result/ is above stats/",
  // its import and its re-export of the histogram names
  "src/stats/collector.ts → src/result/schema/names.ts: runs up: result/ is above stats/",
  "src/stats/generator-load.ts → src/result/schema/generator.ts (types): runs up: result/ is above stats/",
  "src/stats/histogram.ts → src/result/result.ts (types): runs up: result/ is above stats/",
  "src/stats/start-lateness.ts → src/result/result.ts (types): runs up: result/ is above stats/",
  "src/stats/tls-tally.ts → src/result/tls-result.ts (types): runs up: result/ is above stats/",
  "src/stats/tls-tally.ts → src/result/tls-result.ts (types): runs up: result/ is above stats/",
];

function statePlan() {
  const layers = join(root, "test/layers.test.ts");
  let text = readFileSync(layers, "utf8");
  const start = text.indexOf("export const LAYERS");
  const end = text.indexOf("\n};\n", start);
  if (start < 0 || end < 0) {
    console.log("HAND   test/layers.test.ts: LAYERS not found; state the plan by hand");
    return;
  }
  const rows = text.slice(start, end).split("\n");
  const quoteList = (list) => `[${list.map((r) => JSON.stringify(r)).join(", ")}]`;
  const out = rows.map((line) => {
    const m = /^ {2}(\w+): \[(.*)\],$/.exec(line);
    if (!m) return line;
    const [, key, body] = m;
    const list = body ? body.split(",").map((r) => JSON.parse(r.trim())) : [];
    let add = PLAN_ADD[key] ?? [];
    // A room of another branch that could import all of stats/ could import the Result there.
    if (!PLAN_ADD[key] && !PLAN_NEW[key] && key !== "stats" && list.includes("stats"))
      add = ["result"];
    for (const rule of add) if (!list.includes(rule)) list.push(rule);
    return `  ${key}: ${quoteList(list)},`;
  });
  const statsAt = out.findIndex((line) => line.startsWith("  stats: "));
  for (const [key, list] of Object.entries(PLAN_NEW))
    if (!out.some((line) => line.startsWith(`  ${key}: `)))
      out.splice(statsAt, 0, `  ${key}: ${quoteList(list)},`);
  text = text.slice(0, start) + out.join("\n") + text.slice(end);
  const why = ` * delivery/ is the run through a gateway: the accept ledger, the receiver (which implements
 * sink/'s ArrivalListener, so that sink/ knows nothing above it), the streaming join, its tally,
 * timeline and verdict, the arrivals file and the drain. It runs a sink and reads the Result's
 * types and config/'s; run/ drives it, report/ and cli/ read its verdict and arrivals.
 *
 * result/ is the Result: its TypeBox definition (result/schema/), the types read from it, the
 * assembly from a run's counters, the merge of threads and shards, and the verdicts and threshold
 * judging on it. It sits over stats/, whose counters and histograms it summarises; config/ reads
 * it (threshold metrics, the Result's fields) and so do report/ and diff/.
 *
`;
  if (!text.includes(" * delivery/ is the run through a gateway"))
    text = text.replace(
      " * client/ reads one module of stats/",
      `${why} * client/ reads one module of stats/`,
    );
  text = text.replace(
    /\/\*\* Imports against the plan, without line numbers:[^\n]*\nconst LAYER_DEBT: string\[\] = \[[^\]]*\];/,
    `/**
 * Imports against the plan, without line numbers: what the move of the delivery join and the
 * Result out of stats/ left (the counters keep the accept ledger; the leaf's recorders fill the
 * Result's types). A new one fails; one removed must leave this list.
 */
const LAYER_DEBT: string[] = ${JSON.stringify(DEBT, null, 2).replace(/\n\]$/, ",\n]")};`,
  );
  text = text.replace("over stats/' Result", "over result/'s Result");
  writeFileSync(layers, text);
  console.log("edited test/layers.test.ts (LAYERS: delivery/ and result/; LAYER_DEBT)");
  drawHouse(units);
}

/** docs/development.md: the layout's rooms and the imports drawn from the plan just stated. */
function drawHouse(units) {
  const path = join(root, "docs/development.md");
  let text = readFileSync(path, "utf8");
  const rooms = `src/delivery/ a run through a gateway (--receive): the accept ledger the threads keep, the
              receiver (delivery/receiver.ts, the sink's ArrivalListener), the streaming join
              (join.ts: in-flight table, tally, relay timeline), the delivery verdict, the
              arrivals file, the run's drain (gateway-run.ts), the delivery threshold metrics
src/result/   the Result: its TypeBox definition (result/schema/, written to schema/ by the
              build) and the types read from it, the assembly from the run's counters
              (summarise.ts), the merge of threads and shards (merge-*.ts, shard-check.ts) and
              its rules, the verdicts (generator, outcome, thresholds), the shipped schema
src/stats/    the leaf of counting: histograms (hdr-histogram-js), the thread's counters
              (collector.ts), error classes, time series, clocks, the generator's own load
`;
  const block = /^src\/stats\/ {4}[^\n]*\n(?: {14}[^\n]*\n)*/m;
  if (!text.includes("src/delivery/ ") && block.test(text)) text = text.replace(block, rooms);
  else if (!text.includes("src/delivery/ "))
    console.log("HAND   docs/development.md: the layout's src/stats/ entry not found");
  const plan = readFileSync(join(root, "test/layers.test.ts"), "utf8");
  const rows = [...plan.matchAll(/^ {2}(\w+): \[(.*)\],$/gm)].map(([, key, body]) => [
    key,
    body ? body.split(",").map((r) => JSON.parse(r.trim())) : [],
  ]);
  const width = Math.max(...rows.map(([key]) => key.length));
  const drawn = rows
    .map(([key, list]) => `${key.padEnd(width)} → ${list.length ? list.join(", ") : "(a leaf)"}`)
    .join("\n");
  const imports = `Imports run one way. Each room and what it may import besides itself (test/layers.test.ts
\`LAYERS\`; "x:types" is x for types only, "x/file" that one file of x; what a listed room imports
is allowed too):

\`\`\`
${drawn}
\`\`\`

In a line: \`cli → run → client → config → messages → result → stats → smtp\`, with
\`delivery\` under \`run\` (over \`sink\`, \`result\` and \`stats\`, reading config/'s and
messages/' types), \`report\` (over \`diff\` and \`delivery\`) and \`deploy\` under \`cli\`, and
\`sink\` under \`run\` and \`delivery\` (over \`smtp\` and \`stats\`). config/ sits below run/
because a run executes a RunConfig, and over result/ because it checks thresholds and Result
fields against the Result's vocabulary; client/ may read config/'s, stats/' and result/'s types
and stats/' clock (\`src/stats/clock.ts\`). sink/ knows nothing above it: the receiver it feeds
is its own ArrivalListener (\`src/sink/arrival-listener.ts\`), which delivery/'s Receiver
implements. stats/ is the leaf of counting; what it still imports of result/ (the Result's types,
\`result/schema/names.ts\`) and of delivery/ (the accept ledger the counters keep), and the
imports of delivery/ that result/ makes, are listed in the test as debt. The input grammar
(\`units.ts\`) is in \`src/${units}\`: config/ while sink/ takes only parsed options, usage/
while a sink file still parses units itself. usage/ sits below all of them.`;
  const paragraph = /Imports run one way:[\s\S]*?usage\/ sits below all of them\./;
  if (!text.includes("what it still imports of result/") && paragraph.test(text))
    text = text.replace(paragraph, imports);
  else if (!text.includes("what it still imports of result/"))
    console.log(
      'HAND   docs/development.md: "Imports run one way" paragraph not found; draw the rooms by hand',
    );
  writeFileSync(path, text);
  console.log("edited docs/development.md (the rooms and their imports)");
}

statePlan();

// 6. Imports sorted and formatted as the house's biome wants them, in the files this run wrote.
const formatted = [...touched, "test/layers.test.ts", LISTENER]
  .filter((f) => CODE.test(f) && existsSync(join(root, f)))
  .concat(
    existsSync(join(root, "src/sink"))
      ? listFiles("src/sink").filter((f) => f.endsWith(".ts"))
      : [],
  )
  .concat(existsSync(join(root, RECEIVER)) ? [RECEIVER] : []);
if (formatted.length > 0) {
  try {
    execFileSync(
      "npx",
      ["biome", "check", "--write", "--no-errors-on-unmatched", ...new Set(formatted)],
      {
        cwd: root,
        stdio: "inherit",
      },
    );
  } catch {
    console.log("HAND   biome check --write reported what it could not fix: run npm run lint");
  }
}
