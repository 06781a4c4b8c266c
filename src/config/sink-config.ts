/**
 * The sink's options from the values a command line or plan gave, by the rows of
 * config/sink-option-table.ts: `mailvolley sink` reads `--NAME`, a self-test reads
 * `--sink-NAME`. Numbers, durations and rates are checked here and named as the user wrote
 * them; what the sink reads itself (addresses, rates, fault specs, the subject regex) goes
 * over as text and is checked once, by sink/options.ts.
 */

import { UsageError } from "../usage/usage-error.js";
import { camel } from "./options.js";
import { parseDuration } from "./parse.js";
import {
  embeddedSinkOptions,
  SINK_OPTIONS,
  type SinkOptionSpec,
  type SinkOptionTable,
} from "./sink-option-table.js";

/**
 * The sink's options by their sink/options.ts names (SinkOptions), only those given: the sink
 * fills the rest with its defaults.
 */
export type SinkSettings = Readonly<Record<string, unknown>>;

/**
 * The sink's options from `values` (camelCase keys, as yargs and config hand them over):
 * `prefix` "" for `mailvolley sink`, "sink-" for the sink a self-test starts. Throws
 * UsageError naming the option as written.
 */
export function sinkSettingsOf(
  values: Readonly<Record<string, unknown>>,
  prefix: "" | "sink-",
  table: SinkOptionTable = SINK_OPTIONS,
): SinkSettings {
  const rows: SinkOptionTable = prefix === "" ? table : embeddedSinkOptions(table);
  const out: Record<string, unknown> = {};
  for (const [option, spec] of Object.entries(rows)) {
    const raw = values[camel(option)];
    if (raw === undefined) continue;
    const flag = option.slice(prefix.length);
    out[spec.key ?? camel(flag)] = sinkValue(`--${option}`, spec, raw);
  }
  return Object.freeze(out);
}

function sinkValue(option: string, spec: SinkOptionSpec, raw: unknown): unknown {
  switch (spec.value) {
    case "count":
      return wholeNumber(option, raw);
    case "flag":
      return Boolean(raw);
    case "list":
      return [raw].flat().map(String);
    case "seconds":
      return parseDuration(option, raw) / 1000;
    case "ms":
      return parseDuration(option, raw);
    case "rate":
      // The sink reads its rates itself (sink/options.ts), in the words `sink` has always used;
      // a self-test's are checked the same way before its run (cli/load-options.ts).
      return String(raw);
    default:
      return String(raw);
  }
}

/** The sink's counts: 0 or more, 0 often meaning "no limit" (as in Postfix's settings). */
function wholeNumber(option: string, raw: unknown): number {
  const text = String(raw);
  if (!/^\d+$/.test(text))
    throw new UsageError(`${option} ${text}`, "give a whole number, 0 or more");
  return Number(text);
}
