/**
 * How long after start a signal still kills mailvolley with no report: the time before the
 * bin's first line has run (its first lines hold SIGINT and SIGTERM), which no JavaScript can
 * shorten. Measured two ways, with `node dist/bench/signal-window.js [ROUNDS]`:
 *
 *   first line      spawn() in the parent to the first line of a script in the child, as the
 *                   child's clock reads it (performance.timeOrigin + performance.now(); parent
 *                   and child read the same clock): `node -e`, a CommonJS file, and an ES
 *                   module in a "type": "module" package, which is what bin/mailvolley.js is
 *                   (the probe is the bin's own first lines, the bundle's import replaced by
 *                   printing the time)
 *   signal sweep    the real bin (`run -m 100000 --json F`, `sink --json F`) sent SIGINT a
 *                   fixed delay after spawn(): caught (exit 130 for run, 0 for sink, the JSON
 *                   written) or killed by the signal with nothing written
 *
 * Not a test: the figures depend on the machine and its load (printed with them).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { loadAverage, median } from "./lib/proc.js";

const BIN = fileURLToPath(new URL("../../bin/mailvolley.js", import.meta.url));
const now = () => performance.timeOrigin + performance.now();

/** spawn() to the child's first line, ms, as the child prints it. */
async function firstLine(args: string[]): Promise<number> {
  const before = now();
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  await new Promise((resolve) => child.on("close", resolve));
  return Number(out) - before;
}

/** The bin's lines up to the bundle's import, then the time: the bin's start, nothing after. */
function binProbe(dir: string): string {
  const bin = readFileSync(BIN, "utf8");
  const head = bin.slice(0, bin.indexOf("await import("));
  const probe = join(dir, "probe.js");
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  writeFileSync(
    probe,
    `${head}process.stdout.write(String(performance.timeOrigin + performance.now()));\n`,
  );
  return probe;
}

type Outcome = "caught" | "killed" | "other";

/** The real bin, sent SIGINT `delayMs` after spawn(). */
async function signalAfter(command: "run" | "sink", delayMs: number, dir: string) {
  const json = join(dir, `${command}-${delayMs}.json`);
  rmSync(json, { force: true });
  const args =
    command === "run"
      ? ["run", "-m", "100000", "-q", "--json", json]
      : ["sink", "--listen", "127.0.0.1:0", "-q", "--json", json];
  const child = spawn(process.execPath, [BIN, ...args], { stdio: "ignore" });
  const exited = new Promise<[number | null, string | null]>((resolve) =>
    child.on("exit", (code, signal) => resolve([code, signal])),
  );
  await sleep(delayMs);
  child.kill("SIGINT");
  const [code, signal] = await exited;
  const written = existsSync(json);
  const caughtCode = command === "run" ? 130 : 0;
  const outcome: Outcome =
    code === caughtCode && written
      ? "caught"
      : signal === "SIGINT" && !written
        ? "killed"
        : "other";
  return outcome;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 20);
  const dir = mkdtempSync(join(tmpdir(), "mailvolley-signal-window-"));
  const print = "process.stdout.write(String(performance.timeOrigin + performance.now()))";
  const cjs = join(dir, "first.cjs");
  writeFileSync(cjs, `${print};\n`);
  const probe = binProbe(dir);
  const cases: [string, string[]][] = [
    ["node -e", ["-e", print]],
    ["CommonJS file", [cjs]],
    ["the bin's first lines (ES module)", [probe]],
  ];
  console.log(`load average ${loadAverage()} on ${(await import("node:os")).cpus().length} cores`);
  console.log(`spawn() to the first line, median of ${rounds} (min–max), ms:`);
  // Interleaved, so that a change in the machine's load falls on every case alike.
  const times: number[][] = cases.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [c, [, args]] of cases.entries()) times[c].push(await firstLine(args));
  }
  const fixed = (n: number) => n.toFixed(1);
  for (const [c, [name]] of cases.entries()) {
    const t = times[c];
    console.log(
      `  ${name.padEnd(36)} ${fixed(median(t))} (${fixed(Math.min(...t))}–${fixed(Math.max(...t))})`,
    );
  }
  const sweep = Math.max(4, Math.round(rounds / 4));
  for (const command of ["run", "sink"] as const) {
    console.log(`SIGINT after spawn(), ${command}, ${sweep} tries a delay: caught/killed/other`);
    for (const delay of [0, 25, 50, 75, 100, 150, 200, 300, 400, 600]) {
      const tally: Record<Outcome, number> = { caught: 0, killed: 0, other: 0 };
      for (let i = 0; i < sweep; i++) tally[await signalAfter(command, delay, dir)]++;
      console.log(
        `  ${String(delay).padStart(3)} ms  ${tally.caught}/${tally.killed}/${tally.other}`,
      );
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
