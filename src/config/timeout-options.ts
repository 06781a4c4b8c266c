/**
 * `--timeout-PHASE`: rows of the option table (config/option-table.ts) made from the phase list
 * of smtp/phases.ts, one per phase with its default timeout, so a new phase gets its option.
 */
import { PHASE_NAMES, PHASES, type Phase } from "../smtp/phases.js";
import { durationText, type OptionSpec } from "./options.js";

/** `--timeout-PHASE`, one per phase of smtp/phases.ts, with its default timeout. */
export const TIMEOUT_OPTIONS = Object.freeze(
  Object.fromEntries(
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
) as Readonly<Record<`timeout-${Phase}`, OptionSpec & { readonly default: string }>>;
