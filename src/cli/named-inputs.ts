/**
 * The files read where nothing can wait, read first, asynchronously: config/ reads --plan and
 * --auth-file synchronously while it checks a command's options, and the sink reads its
 * certificate before its signal handlers exist; a pipe read there would block the event loop,
 * or wait where no signal ends it (`--auth-file <(pass show smtp)`, a FIFO whose writer has not
 * come). Here a pipe waits for its writer off the event loop, and a SIGINT or SIGTERM meanwhile
 * ends the command at once: nothing has begun.
 */
import { PLAN_INPUT } from "../config/plan.js";
import { AUTH_FILE_INPUT } from "../config/security.js";
import { TLS_INPUTS } from "../sink/index.js";
import { type InputFile, prereadInputFile } from "../usage/input-file.js";
import { type StopSignal, signalExitCode } from "./exit-codes.js";

/** The options of run, compare and probe naming such a file (camelCase keys), as read. */
export const LOAD_INPUTS: Readonly<Record<string, InputFile>> = {
  plan: PLAN_INPUT,
  authFile: AUTH_FILE_INPUT,
};

/** The sink command's. */
export const SINK_INPUTS: Readonly<Record<string, InputFile>> = TLS_INPUTS;

const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

/** Reads ahead the files `values` name (see usage/input-file.ts prereadInputFile). */
export async function readNamedInputs(
  command: string,
  values: Readonly<Record<string, unknown>>,
  inputs = LOAD_INPUTS,
): Promise<void> {
  const named = Object.entries(inputs).filter(([key]) => typeof values[key] === "string");
  if (named.length === 0) return;
  const reading = new AbortController();
  let received: StopSignal | null = null;
  const stop = (signal: StopSignal) => {
    received ??= signal;
    reading.abort();
  };
  for (const signal of SIGNALS) process.on(signal, stop);
  try {
    for (const [key, input] of named) {
      await prereadInputFile(values[key] as string, { ...input, signal: reading.signal });
    }
  } catch (error) {
    if (received === null) throw error;
    process.stderr.write(
      `mailvolley ${command}: ${received}: stopped while reading its input files, before anything began\n`,
    );
    process.exit(signalExitCode(received));
  } finally {
    for (const signal of SIGNALS) process.off(signal, stop);
  }
}
