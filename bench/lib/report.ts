/**
 * Verdict lines and the raw-results files under bench/results/. Every benchmark hands back its
 * raw runs and its verdicts; nothing is dropped when a target is missed.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { loadAverage } from "./proc.js";

export interface Verdict {
  /** What is measured, e.g. "reuse, 20 sessions, vs smtp-source -d". */
  target: string;
  /** The figure as printed, e.g. "2.41× (60,310 vs 25,020 msg/s)". */
  figure: string;
  value: number;
  /** The bound, and whether value must be at least or at most it. */
  bound: number;
  sense: ">=" | "<=";
  pass: boolean;
}

export function verdict(
  target: string,
  value: number,
  sense: ">=" | "<=",
  bound: number,
  figure: string,
): Verdict {
  const pass = sense === ">=" ? value >= bound : value <= bound;
  return { target, figure, value, bound, sense, pass };
}

export function verdictLine(v: Verdict): string {
  const bound = v.sense === ">=" ? `≥ ${v.bound}` : `≤ ${v.bound}`;
  return `${v.pass ? "PASS" : "MISS"}  ${v.target}: ${v.figure} (target ${bound})`;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

export function machine(): Record<string, unknown> {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model ?? "unknown",
    cores: cpu.length,
    memoryBytes: totalmem(),
    node: process.version,
    loadAverageAtStart: loadAverage(),
  };
}

/**
 * The commit the benchmarks ran on, with "-dirty" when tracked files differ from it (results
 * files aside, which every run rewrites); null outside a git checkout.
 */
export function commit(): string | null {
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: RESULTS,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  try {
    const head = git("rev-parse", "--short", "HEAD").trim();
    const changed = git(
      "status",
      "--porcelain",
      "--untracked-files=no",
      "--",
      ":(top)",
      ":(top,exclude)bench/results",
    );
    return changed.trim() === "" ? head : `${head}-dirty`;
  } catch {
    return null;
  }
}

const RESULTS = fileURLToPath(new URL("../../../bench/results/", import.meta.url));

/** Writes bench/results/NAME.json (the source tree, not dist/) and returns its path. */
export function writeResults(name: string, body: Record<string, unknown>): string {
  mkdirSync(RESULTS, { recursive: true });
  const path = `${RESULTS}${name}.json`;
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
  return path;
}
