/**
 * The options `run` and `compare` share, as yargs options derived from the option table
 * (config/option-table.ts), and the values a command line gives for them.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import {
  COMPARE_OPTIONS,
  LOAD_OPTIONS,
  REPEAT_OPTIONS,
  SECURITY_OPTIONS,
} from "../config/option-table.js";
import { helpText, type OptionTable, pickOptions } from "../config/options.js";
import type { SinkSettings } from "../config/sink-config.js";
import { fillSinkOptions, type SinkOptions } from "../sink/index.js";
import { UsageError } from "../usage/usage-error.js";

export type CommandArgv = ArgumentsCamelCase<Record<string, unknown>>;

/**
 * One yargs option per row, with its default in the help text but not in argv: an option not
 * given stays undefined, so a plan can fill it and config/ applies the same default.
 * Positional rows are declared by their command.
 */
export function tableOptions<T>(yargs: Argv<T>, table: OptionTable): Argv<T> {
  let y = yargs;
  for (const [flag, spec] of Object.entries(table)) {
    if (spec.kind === "positional") continue;
    y = y.option(flag, {
      ...(spec.alias === undefined ? {} : { alias: [spec.alias].flat() }),
      // Text rows get no yargs type, so the help does not call numbers strings; the parser
      // leaves them as typed (main.ts turns parse-numbers off) and config/ checks them.
      ...(spec.kind === "flag" ? { type: "boolean" as const } : {}),
      // A text option takes one value; given twice, main.ts refuses it (refuseRepeats).
      ...(spec.kind === "text" ? { requiresArg: true } : {}),
      ...(spec.kind === "list" ? { array: true } : {}),
      describe: helpText(spec),
      group: spec.group,
    });
  }
  return y;
}

/** Every option of `run`. */
export const loadOptions = <T>(yargs: Argv<T>) => tableOptions(yargs, LOAD_OPTIONS);

/** TLS and AUTH, as `run` and `probe` take them. */
export const securityOptions = <T>(yargs: Argv<T>) => tableOptions(yargs, SECURITY_OPTIONS);

/** The option values given on the command line (camelCase keys; aliases and yargs' own dropped). */
export function givenOptions(argv: CommandArgv): Readonly<Record<string, unknown>> {
  return pickOptions({ ...LOAD_OPTIONS, ...COMPARE_OPTIONS, ...REPEAT_OPTIONS }, argv);
}

/**
 * A self-test's --sink-NAME options checked as the sink will check them, before any run starts:
 * a bad fault spec or regex is bad input (exit 2, one line naming --sink-NAME), not a failed run.
 */
export function checkEmbeddedSink(sink: SinkSettings): void {
  try {
    fillSinkOptions({ ...(sink as Partial<SinkOptions>), listen: ["127.0.0.1:0"] });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // The sink names its own options (--fault); here the user wrote them as --sink-fault.
    throw new UsageError(error.option.replace(/^--/, "--sink-"), error.problem, error.value);
  }
}
