/**
 * Process plumbing for the benchmarks: CPU time from /proc, bounded child processes, medians.
 * Linux only (the benchmarks read /proc); every child is killed when its time bound passes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/** USER_HZ: the unit of utime/stime in /proc/PID/stat (100 on every Linux this runs on). */
const CLOCK_TICKS_PER_SECOND = 100;

/** user + system CPU seconds a process (all its threads) has used so far, from /proc/PID/stat. */
export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  // The command name (field 2) may hold spaces; the fields after its closing paren are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit, milliseconds. */
  wallMs: number;
  timedOut: boolean;
}

/**
 * Runs a command to completion and times it from outside; SIGKILL after `timeoutMs`.
 * `onSpawn` runs right after the spawn (to read a peer's CPU at the start).
 */
export function runTimed(
  command: string,
  args: readonly string[],
  timeoutMs: number,
  onSpawn?: (child: ChildProcess) => void,
): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      stdout += s;
    });
    child.stderr!.setEncoding("utf8").on("data", (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, wallMs: performance.now() - start, timedOut });
    });
  });
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The 1-minute load average, to record beside every figure (other work skews timings). */
export function loadAverage(): number {
  return Number(readFileSync("/proc/loadavg", "latin1").split(" ")[0]);
}
