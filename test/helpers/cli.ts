/** Runs the mailvolley command line as a child process, as a user would. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../../bin/mailvolley.js", import.meta.url));

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `mailvolley ARGS` (with `env` over this process's environment); `done` resolves when
 * it exits (killed after `timeoutMs`). `script` is the bin unless a test compares another entry.
 */
export function startMailvolley(
  args: string[],
  timeoutMs = 60_000,
  env: NodeJS.ProcessEnv = {},
  script = BIN,
): { child: ChildProcess; done: Promise<Outcome> } {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => {
    stdout += s;
  });
  child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  const done = new Promise<Outcome>((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done };
}

/** Runs `mailvolley ARGS` to completion. */
export function mailvolley(args: string[], timeoutMs?: number): Promise<Outcome> {
  return startMailvolley(args, timeoutMs).done;
}
