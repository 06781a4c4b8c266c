/**
 * The files config/ reads while it checks a command's options (--plan, --auth-file), read
 * first, asynchronously: config/ reads synchronously, and a pipe read so would block the event
 * loop (`--auth-file <(pass show smtp)`, a FIFO whose writer has not come). Here a pipe waits
 * for its writer off the event loop, and a SIGINT or SIGTERM meanwhile ends the command at once:
 * nothing has been sent or written yet.
 */
import { PLAN_INPUT } from "../config/plan.js";
import { AUTH_FILE_INPUT } from "../config/security.js";
import { prereadInputFile } from "../usage/input-file.js";
import { type StopSignal, signalExitCode } from "./exit-codes.js";

/** The options naming such a file, by their camelCase key, with how config/ reads them. */
const NAMED = [
  ["plan", PLAN_INPUT],
  ["authFile", AUTH_FILE_INPUT],
] as const;

const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

/** Reads ahead the files `values` name (see usage/input-file.ts prereadInputFile). */
export async function readNamedInputs(
  command: string,
  values: Readonly<Record<string, unknown>>,
): Promise<void> {
  const named = NAMED.filter(([key]) => typeof values[key] === "string");
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
      `mailvolley ${command}: ${received}: stopped while reading its input files; nothing sent\n`,
    );
    process.exit(signalExitCode(received));
  } finally {
    for (const signal of SIGNALS) process.off(signal, stop);
  }
}
