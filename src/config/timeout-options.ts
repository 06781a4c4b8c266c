/**
 * `--timeout` and the `--timeout-PHASE` rows of the option table (config/option-table.ts), one per phase of
 * smtp/phases.ts: derived from the phase table, not written by hand, so a new phase brings its
 * option with its default.
 */
import { PHASE_NAMES, PHASES, type Phase } from "../smtp/phases.js";
import { durationText, type OptionSpec } from "./option-rows.js";

/** `--timeout-PHASE`, one per phase of smtp/phases.ts, with its default timeout. */
export const TIMEOUT_OPTIONS = Object.freeze({
  timeout: {
    kind: "text",
    takes: "duration",
    group: "Timeouts:",
    describe: "Every phase's timeout at once; a --timeout-PHASE given too wins for its phase",
  },
  ...Object.fromEntries(
    PHASE_NAMES.map((phase) => [
      `timeout-${phase}`,
      {
        kind: "text",
        group: "Timeouts:",
        describe: `Timeout of ${PHASES[phase].covers}`,
        default: durationText(PHASES[phase].timeoutMs),
      },
    ]),
  ),
}) as { readonly timeout: OptionSpec } & Readonly<
  Record<`timeout-${Phase}`, OptionSpec & { readonly default: string }>
>;
