/**
 * A run through a real relay (a private Postfix or Exim) to the run's own receiver, and the
 * relay's log once it has settled: what the through-the-gateway tests compare their figures with.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { mailvolley } from "./cli.js";
import { HOST } from "./peer.js";
import { tempDir } from "./tmp.js";

/** A relay the tests start: where it listens, its log so far, and how to stop it. */
export interface Relay {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

/** The relay's log once it has stopped growing for a second (at most 10 s). */
export async function settledLog(log: () => string): Promise<string> {
  let last = log();
  for (let waited = 0; waited < 10; waited++) {
    await sleep(1000);
    if (log() === last) break;
    last = log();
  }
  return last;
}

/**
 * `mailvolley run` through `relay` with `--receive` on `receiverPort` and `args` (each "DIR" in
 * them the run's scratch directory), quiet, draining up to 60 s; then stops the relay. The exit
 * code, stderr, the result's delivery section and the relay's settled log.
 */
export async function runThroughRelay<D>(
  relay: Relay,
  receiverPort: number,
  args: readonly string[],
): Promise<{ code: number | null; stderr: string; delivery: D; log: string }> {
  const dir = tempDir("mailvolley-relay-run-");
  const json = join(dir, "result.json");
  try {
    const out = await mailvolley(
      [
        "run",
        `${HOST}:${relay.port}`,
        "--receive",
        `${HOST}:${receiverPort}`,
        "--json",
        json,
        "-q",
        "--drain-timeout",
        "60s",
        ...args.map((a) => a.replace("DIR", dir)),
      ],
      150_000,
    );
    const delivery = JSON.parse(readFileSync(json, "utf8")).delivery as D;
    return { code: out.code, stderr: out.stderr, delivery, log: await settledLog(relay.log) };
  } finally {
    await relay.stop();
  }
}
