/**
 * The import graph of src/ holds the layer plan (STYLE.md "Shape of the code"):
 * imports run down, never up, and no files import each other in a circle. Read from the import
 * statements themselves (the TypeScript parser), so a new file or a moved one is checked too.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ImportEdge, importsOf, readSources } from "./helpers/source-tree.js";

/**
 * The shape of the house: what each layer (a folder of src/) may import besides itself, as a
 * folder ("smtp"), one file of it ("smtp/phases"), or a folder for types only ("stats:types",
 * erased at run time). What a listed layer may import is allowed too (skipping a layer is still
 * downward). Nothing may import cli/. In a line: cli → run → client → config → messages →
 * result → stats → smtp, with the rooms below placed on it.
 *
 * config/ sits below run/ (and client/ may read its types), over result/ and stats/. A run
 * executes a RunConfig and a probe a ProbeConfig, so run/ needs their types; config/ checks
 * thresholds, error classes and Result fields against result/'s and stats/' vocabulary. It holds
 * the input grammar: durations and rates (config/units.ts), `--fault` rules
 * (config/fault-rules.ts). stats/ and smtp/ import nothing of config/.
 *
 * sink/ sits beside client/, over smtp/; its counters build on stats/' histograms and know
 * nothing of the Result (run/ puts the sink's count in it). It takes its options parsed:
 * config/ makes them (config/sink-config.ts), reading sink/'s types and its list of fault
 * commands (sink/faults), and sink/ imports nothing of config/.
 *
 * usage/ is a leaf of its own: the one bad-input error (UsageError) that config/, sink/ and
 * messages/ throw and cli/ prints as one line with exit 2, and the one reader of a file the
 * user names (usage/input-file.ts). stats/ and smtp/ are about counting and the wire, not about
 * what the user typed.
 *
 * stats/ is the leaf of counting: histograms, counters, series, clocks, the generator's own
 * load. It defines the plain shapes it produces (a latency summary, a thread's load, an error
 * row, the names of its histograms, the accept records a snapshot carries) and knows nothing of
 * the Result; result/ checks its TypeBox types against those shapes at compile time
 * (result/leaf-shape.ts). The counters hold the accept ledger as stats/' AcceptRecorder: run/
 * makes delivery/'s ledger and hands it to them.
 *
 * result/ is the Result: its TypeBox definition (result/schema/), the types read from it, the
 * assembly from a run's counters, the merge of threads and shards, the verdicts and threshold
 * judging on it (the delivery metrics too: they read only the Result's delivery section). It sits
 * over stats/, whose counters and histograms it summarises; config/ reads it (threshold
 * metrics, the Result's fields) and so do report/ and diff/.
 *
 * delivery/ is the run through a gateway: the accept ledger, the receiver (which implements
 * sink/'s ArrivalListener, so that sink/ knows nothing above it), the streaming join, its tally,
 * timeline and verdict, the arrivals file and the drain. It runs a sink and reads the Result's
 * types and config/'s; run/ drives it (the drain reads a progress report through a shape of its
 * own, GatewayProgress), report/ and cli/ read its verdict and arrivals.
 *
 * diff/ is the capability of comparing sets of runs (`--repeat`'s spread, `mailvolley diff`):
 * statistics, the comparison and the --fail-if gate, over result/'s Result and config/'s notion
 * of a load; report/ renders what it computes, cli/ reads the files and sets the exit code.
 *
 * client/ reads one module of stats/ beyond its types: stats/clock, the thread's clock, which
 * imports nothing of mailvolley; the session and the stats it feeds read the same clock.
 */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  cli: [
    "capacity",
    "config",
    "run",
    "report",
    "deploy",
    "diff",
    "sink/index",
    "usage",
    "delivery",
    "result",
  ],
  // A capability above what it uses: the capacity search drives runs (run/) and judges them.
  capacity: ["run", "config", "report", "stats", "result"],
  deploy: ["config", "usage"],
  config: [
    "smtp/phases",
    "stats",
    "messages:types",
    "sink:types",
    "sink/faults",
    "usage",
    "result",
  ],
  run: ["client", "messages", "sink", "stats", "config", "delivery"],
  messages: ["smtp", "usage"],
  client: ["smtp", "stats:types", "stats/clock", "config:types", "result:types"],
  sink: ["smtp", "stats", "usage"],
  report: ["diff", "stats", "delivery", "result"],
  diff: ["config", "stats", "usage", "result"],
  result: ["stats"],
  delivery: ["sink", "config", "messages:types", "result", "stats", "usage"],
  stats: ["smtp/phases"],
  smtp: [],
  usage: [],
};

const layerOf = (path: string) => path.split("/")[1];
const folderOf = (rule: string) => rule.split(/[/:]/)[0];

/** Whether `to` lies below `from`: reachable through the listed imports. */
function below(from: string, to: string, seen = new Set<string>()): boolean {
  for (const rule of LAYERS[from] ?? []) {
    const next = folderOf(rule);
    if (next === to) return true;
    if (!seen.has(next)) {
      seen.add(next);
      if (below(next, to, seen)) return true;
    }
  }
  return false;
}

/**
 * Why an import breaks the shape, or null. A layer may import what it lists, and what lies
 * below that (skipping a layer is still downward); where it lists part of a folder (one file,
 * or types only), that part is all it may import of it.
 */
function verdict(edge: ImportEdge): string | null {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (from === to) return null;
  if (!(from in LAYERS)) return `src/${from}/ is not a layer of the plan`;
  if (!(to in LAYERS)) return `src/${to}/ is not a layer of the plan`;
  const listed = LAYERS[from].filter((rule) => folderOf(rule) === to);
  if (listed.length > 0) {
    const file = edge.to.replace(/^src\//, "").replace(/\.ts$/, "");
    const ok = listed.some(
      (rule) => rule === to || rule === file || (edge.typeOnly && rule === `${to}:types`),
    );
    return ok ? null : `${from}/ may import only ${listed.join(", ")} of ${to}/`;
  }
  if (below(from, to)) return null;
  if (below(to, from)) return `runs up: ${to}/ is above ${from}/`;
  return `sideways: ${to}/ is not below ${from}/`;
}

/** Each import that breaks the layer plan, as "from:line → to: why". */
export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const edge of edges) {
    const why = verdict(edge);
    if (why)
      out.push(`${edge.from}:${edge.line} → ${edge.to}${edge.typeOnly ? " (types)" : ""}: ${why}`);
  }
  return out;
}

/**
 * The import cycles among files (type-only imports included: a circle of types is still two
 * files that cannot be understood apart), each as "a → b → … → a", found with Tarjan's
 * strongly connected components.
 */
export function importCycles(edges: readonly ImportEdge[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)?.add(to);
    if (!next.has(to)) next.set(to, new Set());
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  let counter = 0;
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)?.has(v)) cycles.push(describeCycle(component, next));
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v);
  return cycles.sort();
}

/** The shortest circle through a strongly connected component, from its first file by name. */
function describeCycle(component: string[], next: Map<string, Set<string>>): string {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const parent = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    for (const w of [...(next.get(v) ?? [])].sort()) {
      if (w === start) {
        const path: string[] = [];
        for (let u = v; u !== start; u = parent.get(u) ?? start) path.unshift(u);
        const extra = component.length > path.length + 1 ? ` (${component.length} files)` : "";
        return `${[start, ...path, start].join(" → ")}${extra}`;
      }
      if (members.has(w) && !parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(", ");
}

/**
 * Imports against the plan, without line numbers: none left. A new one fails; a debt taken on
 * knowingly is listed here with the reason beside it.
 */
const LAYER_DEBT: string[] = [];
/** Import cycles not yet removed: none left (errors.ts takes Phase from smtp/phases). */
const CYCLE_DEBT: string[] = [];

/** "src/a.ts:12 → …" → "src/a.ts → …": the debt list survives edits that move lines. */
export const withoutLines = (text: string) => text.replace(/\.ts:\d+ /, ".ts ");

describe("import layers", () => {
  const edges = readSources("src").flatMap(importsOf);

  test("the reader sees the imports (a checker that reads nothing passes everything)", () => {
    assert.ok(edges.length > 100, `${edges.length} imports`);
    assert.ok(edges.some((e) => e.from.startsWith("src/cli/") && e.to.startsWith("src/run/")));
    assert.ok(edges.some((e) => e.typeOnly) && edges.some((e) => !e.typeOnly));
  });

  test("every import in src/ runs down the layer plan", () => {
    const violations = layerViolations(edges).map(withoutLines);
    assert.deepEqual(violations, LAYER_DEBT, `${violations.length} imports against the plan`);
  });

  test("no import cycles among the files of src/", () => {
    const cycles = importCycles(edges);
    assert.deepEqual(cycles, CYCLE_DEBT, `${cycles.length} cycles`);
  });

  test("the checker flags imports up, sideways, of a part not listed, to a stray folder, and a cycle", () => {
    const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({
      from,
      to,
      typeOnly,
      line: 1,
    });
    const fake = [
      edge("src/cli/main.ts", "src/sink/index.ts"),
      edge("src/cli/main.ts", "src/sink/server.ts"),
      edge("src/client/session.ts", "src/stats/result.ts", true),
      edge("src/client/session.ts", "src/stats/collector.ts"),
      edge("src/smtp/a.ts", "src/stats/result.ts"),
      edge("src/stats/a.ts", "src/smtp/phases.ts"),
      edge("src/stats/a.ts", "src/smtp/message.ts", true),
      edge("src/run/a.ts", "src/elsewhere/x.ts"),
      edge("src/run/a.ts", "src/smtp/message.ts"),
      edge("src/cli/a.ts", "src/stats/result.ts"),
      edge("src/sink/a.ts", "src/client/m.ts", true),
      edge("src/report/a.ts", "src/run/probe.ts", true),
      edge("src/run/a.ts", "src/run/b.ts"),
      edge("src/run/b.ts", "src/run/c.ts", true),
      edge("src/run/c.ts", "src/run/a.ts"),
    ];
    assert.deepEqual(layerViolations(fake), [
      "src/cli/main.ts:1 → src/sink/server.ts: cli/ may import only sink/index of sink/",
      "src/client/session.ts:1 → src/stats/collector.ts: client/ may import only stats:types, stats/clock of stats/",
      "src/smtp/a.ts:1 → src/stats/result.ts: runs up: stats/ is above smtp/",
      "src/stats/a.ts:1 → src/smtp/message.ts (types): stats/ may import only smtp/phases of smtp/",
      "src/run/a.ts:1 → src/elsewhere/x.ts: src/elsewhere/ is not a layer of the plan",
      "src/sink/a.ts:1 → src/client/m.ts (types): runs up: client/ is above sink/",
      "src/report/a.ts:1 → src/run/probe.ts (types): sideways: run/ is not below report/",
    ]);
    assert.deepEqual(importCycles(fake), [
      "src/run/a.ts → src/run/b.ts → src/run/c.ts → src/run/a.ts",
    ]);
  });
});

/**
 * A file name used in two rooms names the same thing as each room sees it: result/schema/X.ts
 * defines the section X, report/X.ts renders it, X/X.ts (or stats/X.ts) computes it, cli/X.ts
 * prints it; index.ts is a room's public face. Any other repeat is two things under one name
 * (as a client session and a sink session once were): give one of them its own name.
 */
const SAME_THING: Readonly<Record<string, string>> = {
  "accounting.ts": "the accounting of messages: result/ computes it, report/ renders it",
  "capacity.ts":
    "the capacity search: capacity/ runs it, result/schema/ defines it, report/ renders it",
  "counts.ts": "the run's counts: stats/ tallies them, result/schema/ defines them",
  "delivery.ts": "the delivery section: result/schema/ defines it, report/ renders it",
  "diff.ts": "the diff of runs: diff/ computes it, result/schema/ defines it, report/ renders it",
  "errors.ts": "the error rows: stats/ classes them, result/schema/ defines them",
  "index.ts": "a room's public face (sink/, messages/)",
  "probe.ts": "the probe: run/ runs it, report/ renders it",
  "progress.ts": "the run's progress: run/ makes the snapshots, cli/ prints them",
  "repeat.ts":
    "--repeat's spread: diff/ computes it, result/schema/ defines it, report/ renders it",
  "result.ts": "the Result: result/schema/ defines it, result/result.ts names its types",
  "series.ts": "the time series: stats/ records it, result/schema/ defines it",
  "shard.ts": "a shard: config/ parses --shard, result/schema/ defines the shard section",
  "warnings.ts": "reply warnings: stats/ records them, result/schema/ defines them",
};

describe("file names", () => {
  test("a name repeats across rooms only for the same thing", () => {
    const rooms = new Map<string, string[]>();
    for (const { path } of readSources("src")) {
      const name = path.split("/").pop() ?? path;
      rooms.set(name, [...(rooms.get(name) ?? []), path]);
    }
    const repeated = [...rooms].filter(([, paths]) => paths.length > 1).map(([name]) => name);
    assert.ok(rooms.size > 100, `${rooms.size} names read`);
    assert.deepEqual(repeated.sort(), Object.keys(SAME_THING).sort());
  });
});
