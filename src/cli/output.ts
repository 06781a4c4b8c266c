/**
 * The one writer of what a command outputs: a summary for the terminal and a list of exports
 * (JSON, HTML), each written by one function from the command's value (hyperfine's
 * ExportManager). `-` as a path means stdout; the summary then goes to stderr so the export can
 * be piped. Renderers stay pure: they get the colour decision and return text.
 */

import { closeSync, openSync, writeFileSync } from "node:fs";
import { ConfigError } from "../config/parse.js";
import { colorWanted } from "./color.js";

/** Text for the value, or null when there is nothing to write (a compare cut short). */
type Render<T> = (value: T) => string | null;

export interface Export<T> {
  /** The option that asked for it, for error messages: "--json". */
  readonly option: string;
  /** A file path, or "-" for stdout. */
  readonly path: string;
  readonly render: Render<T>;
}

export interface Output<T> {
  /** The terminal summary; not printed when quiet or when it returns null. */
  readonly summary: (value: T, options: { color: boolean }) => string | null;
  readonly quiet: boolean;
  readonly exports: readonly Export<T>[];
}

/** The exports whose path was given (null or undefined: not asked for). */
export function exportsOf<T>(
  wanted: readonly (readonly [option: string, path: unknown, render: Render<T>])[],
): Export<T>[] {
  return wanted
    .filter(([, path]) => path !== undefined && path !== null)
    .map(([option, path, render]) => ({ option, path: String(path), render }));
}

/** Fails before a run, not after it, when an export's file cannot be written. */
export function checkWritable<T>(exports: readonly Export<T>[]): void {
  for (const { option, path } of exports) {
    if (path === "-") continue;
    try {
      closeSync(openSync(path, "a"));
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new ConfigError(
        option,
        `cannot write "${path}" (${reason}); give a writable file path`,
      );
    }
  }
}

/** Prints the summary (unless quiet), then writes every export of `value`. */
export function writeOutput<T>(output: Output<T>, value: T): void {
  const toStdout = output.exports.some((e) => e.path === "-");
  if (!output.quiet) {
    const stream = toStdout ? process.stderr : process.stdout;
    const summary = output.summary(value, { color: colorWanted(stream) });
    if (summary !== null) stream.write(summary);
  }
  for (const { path, render } of output.exports) {
    const text = render(value);
    if (text === null) continue;
    if (path === "-") process.stdout.write(text);
    else writeFileSync(path, text);
  }
}
