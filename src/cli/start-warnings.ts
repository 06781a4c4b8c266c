/** Warnings a command prints once, on stderr, before any traffic. */

import { availableParallelism } from "node:os";
import type { Target } from "../config/parse.js";
import type { RunConfig } from "../config/run-config.js";
import { plaintextAuthWarning, type SecuritySettings } from "../config/security.js";

/** Says so when AUTH would cross the network unencrypted (config/security.ts). */
export function warnPlaintextAuth(settings: SecuritySettings, target: Target | null): void {
  const warning = plaintextAuthWarning(settings, target);
  if (warning !== null) process.stderr.write(`mailvolley: warning: ${warning}\n`);
}

/**
 * A constant --rate without -m or -d keeps the default message count, which at a low rate can
 * run for an hour: say so before the first message, with the time it will take.
 */
export function noteDefaultMessages(
  given: Readonly<Record<string, unknown>>,
  config: RunConfig,
): void {
  const { load } = config;
  if (given.messages !== undefined || load.kind !== "open" || load.durationMs > 0) return;
  const perSecond = load.rate?.[0]?.value ?? 0;
  if (perSecond <= 0) return;
  const seconds = Math.round(config.messages / perSecond);
  process.stderr.write(
    `mailvolley: note: --rate without -m or -d sends the default ${config.messages.toLocaleString("en-US")} messages (about ${seconds} s at ${perSecond}/s); give -m or -d to bound the run\n`,
  );
}

/**
 * Notes on options that are taken but do less than their words suggest, printed once before
 * the traffic: harmless, so not refused.
 */
function optionNotes(config: RunConfig): string[] {
  const notes: string[] = [];
  if (config.verbose && config.quiet) {
    notes.push("-v with -q prints the first session's conversation and nothing else");
  }
  const cores = availableParallelism();
  if (config.workers > cores) {
    notes.push(
      `--workers ${config.workers} on ${cores} cores: the threads beyond ${cores} share the cores and add no throughput`,
    );
  }
  return notes;
}

/** Options taken that do less than their words suggest, one note each. */
export function noteOptions(config: RunConfig): void {
  for (const note of optionNotes(config)) process.stderr.write(`mailvolley: note: ${note}\n`);
}
