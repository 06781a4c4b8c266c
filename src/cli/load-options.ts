/**
 * The options `run` and `compare` share, as yargs options derived from the option table
 * (config/option-table.ts), and the values a command line gives for them.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { helpText, type OptionTable, pickOptions } from "../config/option-rows.js";
import {
  COMPARE_OPTIONS,
  LOAD_OPTIONS,
  REPEAT_OPTIONS,
  SECURITY_OPTIONS,
} from "../config/option-table.js";

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
