/**
 * Plan files (`--plan FILE`, YAML or JSON): run options, variables and message classes with
 * exact shares. One plan serves the sink, a test gateway and production: `--set key=value`
 * overrides any top-level value or variable, and `${name}` in a string takes a variable.
 * Every error names the file, the line and the field.
 */

import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import type { Node, YAMLMap } from "yaml";
import { camel } from "./option-rows.js";
import { parseAddress, parseCount, parseLine } from "./parse.js";
import { parseSizes } from "./sizes.js";

/** A class and its source, as messages/ reads them: one definition, messages/spec.ts. */
export type {
  MessageClassSpec as ClassSpec,
  SourceSpec,
} from "../messages/spec.js";

import type { MessageClassSpec as ClassSpec } from "../messages/spec.js";
import { readInputFileSync } from "../usage/input-file.js";
import { UsageError } from "../usage/usage-error.js";

export interface Plan {
  /** Top-level run options as written (long names, camelCase), before validation. */
  readonly options: Record<string, unknown>;
  readonly classes: readonly ClassSpec[];
  /** Where each top-level option stands, for error messages: "plan.yaml:7". */
  readonly where: Record<string, string>;
}

/**
 * The yaml package (73 files) is loaded when a plan is read, not with every run: module loading
 * is most of a run's start. Its CommonJS build, the one `import` gets in Node too.
 */
let yamlModule: typeof Yaml | null = null;
const yaml = (): typeof Yaml => {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return yamlModule;
};

const CLASS_FIELDS = new Set([
  "name",
  "share",
  "subject",
  "headers",
  "size",
  "from",
  "to",
  "recipients",
  "eml",
  "emlDir",
  "mbox",
  "template",
  "order",
]);

/** The plan file as an input (usage/input-file.ts): read ahead by the CLI, then here. */
export const PLAN_INPUT = { option: "--plan", what: "YAML or JSON plan" } as const;

/** `--set` overrides alone, without a plan file: options only, no classes, no plan lines. */
export function planFromSets(sets: readonly string[]): Plan {
  const options = Object.fromEntries(parseSets(sets).map(([key, value]) => [camel(key), value]));
  return { options, classes: [], where: {} };
}

/** Reads and checks a plan; `sets` are the `--set key=value` overrides. */
export function loadPlan(path: string, sets: readonly string[]): Plan {
  const { root, lineOf } = readPlanFile(path);
  const overrides = parseSets(sets);
  const vars = planVars(root, lineOf, overrides);
  const interpolate = (value: unknown, where: string): unknown => {
    if (typeof value !== "string") return value;
    return value.replace(/\$\{([^}]*)\}/g, (_, name: string) => {
      if (!(name in vars))
        throw new UsageError(
          "--plan",
          `${where}: unknown variable \${${name}}; define it under vars or --set ${name}=…`,
        );
      return vars[name];
    });
  };
  const options: Record<string, unknown> = {};
  const where: Record<string, string> = {};
  let classesNode: Node | undefined;
  for (const pair of root.items) {
    const key = camel(String((pair.key as { value?: unknown }).value));
    const node = pair.value as Node | null;
    if (key === "vars") continue;
    if (key === "classes") {
      classesNode = node ?? undefined;
      continue;
    }
    where[key] = lineOf(node);
    const value = node && yaml().isScalar(node) ? node.value : node?.toJSON();
    options[key] = interpolate(value, where[key]);
  }
  for (const [key, value] of overrides) {
    if (key in vars) continue;
    options[camel(key)] = value;
    where[camel(key)] = `--set ${key}`;
  }
  const classes = classesNode ? parseClasses(classesNode, lineOf, interpolate) : [];
  return { options, classes, where };
}

type LineOf = (node: Node | null | undefined) => string;

/** The plan file parsed: its top-level mapping, and "file:line" of any node in it. */
function readPlanFile(path: string): { root: YAMLMap; lineOf: LineOf } {
  // Read while the config is checked, so synchronously: a pipe the command did not read ahead
  // (cli/named-inputs.ts) is refused, never waited on.
  const text = readInputFileSync(path, PLAN_INPUT).toString("utf8");
  const lines = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const at = e.linePos?.[0].line ?? 1;
    throw new UsageError("--plan", `${path}:${at}: ${e.message.split("\n")[0]}`);
  }
  const lineOf: LineOf = (node) =>
    node?.range ? `${path}:${lines.linePos(node.range[0]).line}` : path;
  const root = doc.contents;
  if (!yaml().isMap(root))
    throw new UsageError("--plan", `${path}: the plan must be a mapping of options`);
  return { root, lineOf };
}

/** The plan's `vars`, with `--set NAME=…` overriding those it names. */
function planVars(
  root: YAMLMap,
  lineOf: LineOf,
  overrides: readonly [string, string][],
): Record<string, string> {
  const vars: Record<string, string> = {};
  const varsNode = root.get("vars", true);
  if (varsNode !== undefined) {
    if (!yaml().isMap(varsNode))
      throw new UsageError("--plan", `${lineOf(varsNode as Node)}: vars must be a mapping`);
    for (const pair of varsNode.items)
      vars[String((pair.key as Node & { value: unknown }).value)] = String(
        (pair.value as { value?: unknown })?.value ?? "",
      );
  }
  for (const [key, value] of overrides) if (key in vars) vars[key] = value;
  return vars;
}

function parseSets(sets: readonly string[]): [string, string][] {
  return sets.map((set) => {
    const eq = set.indexOf("=");
    if (eq <= 0)
      throw new UsageError("--set", `"${set}" is not KEY=VALUE; give e.g. --set rate=500`);
    return [set.slice(0, eq), set.slice(eq + 1)];
  });
}

function parseClasses(
  node: Node,
  lineOf: (node: Node | null | undefined) => string,
  interpolate: (value: unknown, where: string) => unknown,
): ClassSpec[] {
  if (!yaml().isSeq(node))
    throw new UsageError("--plan", `${lineOf(node)}: classes must be a list`);
  const classes: ClassSpec[] = [];
  const names = new Set<string>();
  for (const item of node.items as Node[]) {
    const at = lineOf(item);
    if (!yaml().isMap(item)) throw new UsageError("--plan", `${at}: each class must be a mapping`);
    const raw: Record<string, unknown> = {};
    for (const pair of item.items) {
      const key = camel(String((pair.key as { value?: unknown }).value));
      if (!CLASS_FIELDS.has(key)) {
        throw new UsageError(
          "--plan",
          `${at}: class field "${key}" is unknown; use ${[...CLASS_FIELDS].join(", ")}`,
        );
      }
      raw[key] = interpolate((pair.value as Node | null)?.toJSON(), at);
    }
    const spec = classSpec(raw, at);
    if (names.has(spec.name))
      throw new UsageError("--plan", `${at}: class "${spec.name}" is named twice`);
    names.add(spec.name);
    classes.push(spec);
  }
  if (classes.length === 0) throw new UsageError("--plan", `${lineOf(node)}: classes is empty`);
  return classes;
}

function classSpec(raw: Record<string, unknown>, at: string): ClassSpec {
  const field = (name: string) => `${at}: ${name}`;
  const name = String(raw.name ?? "");
  if (!/^[A-Za-z0-9._-]+$/.test(name)) {
    throw new UsageError("--plan", `${field("name")} "${name}" must be letters, digits, . _ -`);
  }
  const share = Number(raw.share);
  if (!(share > 0) || Math.round(share * 100) !== share * 100) {
    throw new UsageError(
      "--plan",
      `${field("share")} of "${name}" must be a positive number with at most 2 decimals`,
    );
  }
  const headers: [string, string][] = [];
  if (raw.headers !== undefined) {
    if (typeof raw.headers !== "object" || raw.headers === null || Array.isArray(raw.headers)) {
      throw new UsageError("--plan", `${field("headers")} must be a mapping of header: value`);
    }
    for (const [k, v] of Object.entries(raw.headers)) {
      if (!/^[!-9;-~]+$/.test(k))
        throw new UsageError("--plan", `${field("headers")}: "${k}" is not a header name`);
      headers.push([k, parseLine(`${field("headers")} ${k}`, v)]);
    }
  }
  const sources = (["eml", "emlDir", "mbox", "template"] as const).filter(
    (k) => raw[k] !== undefined,
  );
  if (sources.length > 1)
    throw new UsageError("--plan", `${at}: give one of eml, emlDir, mbox, template`);
  const order = String(raw.order ?? "sequential") as "sequential" | "random";
  if (order !== "sequential" && order !== "random") {
    throw new UsageError("--plan", `${field("order")} must be sequential or random`);
  }
  const kinds = { eml: "eml", emlDir: "eml-dir", mbox: "mbox", template: "template" } as const;
  return Object.freeze({
    name,
    share,
    subject: raw.subject === undefined ? undefined : parseLine(field("subject"), raw.subject),
    headers,
    sizes: raw.size === undefined ? undefined : parseSizes(field("size"), String(raw.size)),
    from: raw.from === undefined ? undefined : parseAddress(field("from"), raw.from, true),
    to: raw.to === undefined ? undefined : parseAddress(field("to"), raw.to),
    recipients:
      raw.recipients === undefined
        ? undefined
        : parseCount(field("recipients"), raw.recipients, 1, 1000),
    source:
      sources.length === 0
        ? undefined
        : { kind: kinds[sources[0]], path: String(raw[sources[0]]), order },
  });
}
