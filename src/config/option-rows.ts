/**
 * How an option table is written and what is derived from it. Each option of `run`, `compare`
 * and `probe` is one row (config/option-table.ts); from the rows come the yargs builder
 * (cli/load-options.ts), the keys a plan may set, the raw option types, and the defaults: the
 * value the help shows is the value the config falls back to.
 */

import { UsageError } from "../usage/usage-error.js";

/** Help section an option is listed under. */
export type OptionGroup =
  | "Run:"
  | "Load model:"
  | "Several machines:"
  | "TLS and AUTH:"
  | "Timeouts:"
  | "Plan:"
  | "Messages:"
  | "Reports:"
  | "Built-in sink (no target):"
  | "Through the gateway:"
  | "Compare:"
  | "Repeat:"
  | "Capacity:"
  | "Sink:";

/**
 * What the command line hands over: text (checked in config/, so one message names the fix),
 * an on/off flag, a repeatable text, or the positional target.
 */
export type OptionKind = "text" | "flag" | "list" | "positional";

export interface OptionSpec {
  /**
   * One-letter alias, as smtp-source users know it; a list adds the letters of other tools
   * (ab's and HTTP tools' -n and -c) where they clash with none of smtp-source's.
   */
  readonly alias?: string | readonly string[];
  readonly group: OptionGroup;
  readonly describe: string;
  readonly kind: OptionKind;
  /** The value used when the option is not given; the help shows it. */
  readonly default?: string | number;
  /** What the help shows when the default is computed or not a plain value. */
  readonly shown?: string;
  /** What a text option takes, in the help's brackets ("address", "file"); see valueTag. */
  readonly takes?: string;
  /** False: a plan file may not set it (the plan options themselves, output verbosity). */
  readonly plan?: false;
  /** What a user who gave it twice probably meant, when another tool's letter explains it. */
  readonly twice?: string;
  /** Its value is a secret: an error never repeats it (--auth). */
  readonly secret?: true;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** `ramp-up` → `rampUp`: options are named in kebab-case on the command line, camelCase in code. */
export type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;

export const camel = (key: string) => key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The unchecked values of a table's options, by camelCase key (what yargs and a plan hand over). */
export type RawOf<T extends OptionTable> = { [K in keyof T & string as Camel<K>]?: unknown };

/** The defaults of a table's options, by camelCase key. */
export type DefaultsOf<T extends OptionTable> = {
  readonly [K in keyof T & string as T[K] extends { default: unknown }
    ? Camel<K>
    : never]: T[K] extends {
    default: infer V;
  }
    ? V
    : never;
};

export function defaultsOf<T extends OptionTable>(table: T): DefaultsOf<T> {
  const entries = Object.entries(table)
    .filter(([, spec]) => spec.default !== undefined)
    .map(([flag, spec]) => [camel(flag), spec.default]);
  return Object.freeze(Object.fromEntries(entries)) as DefaultsOf<T>;
}

/** A duration as the rows write their defaults: `30s`, `100ms`, `2m`. */
const DURATION = /^\d+(ms|s|m|h)$/;

/** The built-in sink's rows say how their value is read (sink-option-table.ts SinkValue). */
const SINK_VALUE_TAGS: Readonly<Record<string, string>> = {
  count: "number",
  seconds: "duration",
  ms: "duration",
  rate: "N/window",
};

/**
 * What a text option takes, for its help: `takes` when the row says, else what its default or
 * the sink's reading of it shows, else a string. Flags and lists have yargs' own tags
 * ([boolean], [array]), so every option names its type.
 */
export function valueTag(spec: OptionSpec): string | null {
  if (spec.kind !== "text") return null;
  if (spec.takes !== undefined) return spec.takes;
  if (typeof spec.default === "number") return "number";
  if (DURATION.test(String(spec.default))) return "duration";
  const sinkValue = (spec as { readonly value?: string }).value;
  if (sinkValue !== undefined && SINK_VALUE_TAGS[sinkValue]) return SINK_VALUE_TAGS[sinkValue];
  return /\bFILE\b/.test(spec.describe) ? "file" : "string";
}

/** A flag's default in one style, on or off, whatever the row wrote (true, offered). */
function shownDefault(spec: OptionSpec): string | number | undefined {
  const shown = spec.shown ?? spec.default;
  if (spec.kind !== "flag" || shown === undefined) return shown;
  if (["true", "on", "offered"].includes(String(shown))) return "on";
  if (["false", "off"].includes(String(shown))) return "off";
  return shown;
}

/** The help line of an option: its description, what it takes (`[number]`), and its default. */
export function helpText(spec: OptionSpec): string {
  const tag = valueTag(spec);
  const shown = shownDefault(spec);
  return `${spec.describe}${tag === null ? "" : ` [${tag}]`}${shown === undefined ? "" : ` [default: ${shown}]`}`;
}

/**
 * A one-value option given more than once (yargs collects the values): one answer for every
 * option, naming the letters that set it, since `-n 1000 -m 2000` is a clash of two tools'
 * habits more often than a typo.
 */
export function givenTwice(
  flag: string,
  spec: Pick<OptionSpec, "alias" | "twice" | "secret">,
  values: readonly unknown[],
): UsageError {
  const letters = [spec.alias ?? []].flat().map((a) => `-${a}`);
  const both = letters.length > 1 ? `${letters.join(" and ")} both set --${flag} here; ` : "";
  const shown = spec.secret ? "" : ` (${values.join(", ")})`;
  return new UsageError(
    `--${flag}`,
    `given twice${shown}: ${both}${spec.twice ?? `give --${flag} once`}`,
  );
}

/** camelCase keys a plan file may set at the top level, from the given tables. */
export function planKeys(...tables: OptionTable[]): ReadonlySet<string> {
  const keys = tables.flatMap((table) =>
    Object.entries(table)
      .filter(([, spec]) => spec.plan !== false)
      .map(([flag]) => camel(flag)),
  );
  return new Set(keys);
}

/** The values given for a table's options (undefined: not given), by camelCase key. */
export function pickOptions<T extends OptionTable>(
  table: T,
  values: Readonly<Record<string, unknown>>,
): RawOf<T> {
  const out: Record<string, unknown> = {};
  for (const flag of Object.keys(table)) {
    const key = camel(flag);
    if (values[key] !== undefined) out[key] = values[key];
  }
  return out as RawOf<T>;
}

/** `10000` → `10s`, `250` → `250ms`: a duration as a user writes it. */
export function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
