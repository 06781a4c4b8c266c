/** Warnings a command prints once, on stderr, before any traffic. */
import type { Target } from "../config/parse.js";
import { plaintextAuthWarning, type SecuritySettings } from "../config/security.js";

/** Says so when AUTH would cross the network unencrypted (config/security.ts). */
export function warnPlaintextAuth(settings: SecuritySettings, target: Target | null): void {
  const warning = plaintextAuthWarning(settings, target);
  if (warning !== null) process.stderr.write(`mailvolley: warning: ${warning}\n`);
}
