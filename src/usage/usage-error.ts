/**
 * Bad input: what the user gave cannot be used. Every layer that judges input (config/ for the
 * options of `run`, `compare` and the rest, sink/ for what only the sink can judge, messages/ for
 * message files) throws this one type, and the CLI prints its message as one line and exits 2.
 * It lives in a folder of its own, below every layer, because config/ and sink/ may not import
 * each other and both must throw the same thing.
 */
export class UsageError extends Error {
  /**
   * @param option what the user wrote: a flag as given (`--rate`, `--sink-fault`) or a file
   * @param problem what is wrong with it and the fix, in words
   * @param value the offending value, when the line should quote it after the option
   */
  constructor(
    readonly option: string,
    readonly problem: string,
    readonly value?: string,
  ) {
    super(`${option}${value === undefined ? "" : ` ${value}`}: ${problem}`);
    this.name = "UsageError";
  }
}
