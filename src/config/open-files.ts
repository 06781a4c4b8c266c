/**
 * Whether this process may open the files a run needs: every session holds a socket, and in a
 * self-test the built-in sink holds the other end in the same process. Past the soft
 * RLIMIT_NOFILE (`ulimit -n`) connects fail with EMFILE in the middle of the run, so the run is
 * refused before any traffic instead.
 */
import { readFileSync } from "node:fs";
import { UsageError } from "../usage/usage-error.js";

/** Descriptors Node, its worker threads and the run's files use besides the sessions' sockets. */
export const OPEN_FILES_MARGIN = 32;

/**
 * The soft limit on open files from /proc/self/limits (Linux); null where it cannot be read or
 * is unlimited.
 */
export function openFilesLimit(limits = "/proc/self/limits"): number | null {
  let text: string;
  try {
    text = readFileSync(limits, "utf8");
  } catch {
    return null;
  }
  const line = /^Max open files\s+(\S+)/m.exec(text);
  if (!line || !/^\d+$/.test(line[1])) return null;
  return Number(line[1]);
}

/** Descriptors a run of `sessions` needs at once: two per session when the sink is in-process. */
export function openFilesNeeded(sessions: number, selfTest: boolean): number {
  return sessions * (selfTest ? 2 : 1) + OPEN_FILES_MARGIN;
}

/** Refuses a run whose sessions would not fit under `ulimit -n`, naming the limit and the fix. */
export function checkOpenFiles(
  sessions: number,
  selfTest: boolean,
  limit: number | null = openFilesLimit(),
): void {
  if (limit === null) return;
  const needed = openFilesNeeded(sessions, selfTest);
  if (needed <= limit) return;
  const per = selfTest ? " (a socket each side: the built-in sink runs in this process)" : "";
  throw new UsageError(
    "--sessions",
    `${sessions} sessions need about ${needed} open files${per}, but ulimit -n is ${limit}; ` +
      `raise it (ulimit -n ${Math.max(needed, 1024)}) or give fewer sessions`,
  );
}
