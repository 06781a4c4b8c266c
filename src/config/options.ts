/**
 * How an option table is written and what is derived from it. Each option of `run`, `compare`
 * and `probe` is one row (config/option-table.ts); from the rows come the yargs builder
 * (cli/load-options.ts), the keys a plan may set, the raw option types, and the defaults: the
 * value the help shows is the value the config falls back to.
 */

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
  /** False: a plan file may not set it (the plan options themselves, output verbosity). */
  readonly plan?: false;
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

/**
 * The help line of an option: its description, what kind of value it takes when its default
 * says (`[number]`, `[duration]`), and in brackets its default.
 */
export function helpText(spec: OptionSpec): string {
  const shown = spec.shown ?? spec.default;
  if (shown === undefined) return spec.describe;
  const kind =
    spec.kind !== "text"
      ? ""
      : typeof spec.default === "number"
        ? " [number]"
        : /^\d+(ms|s|m|h)$/.test(String(spec.default))
          ? " [duration]"
          : "";
  return `${spec.describe}${kind} [default: ${shown}]`;
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
