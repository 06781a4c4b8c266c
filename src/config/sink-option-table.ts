/**
 * Options of `mailvolley sink` written as option-table rows (config/options.ts). The sink's
 * older options are still declared in cli/sink-command.ts; new ones are rows here.
 */
import type { OptionTable } from "./options.js";

export const SINK_OPTIONS = {
  backlog: {
    kind: "text",
    group: "Sink:",
    describe:
      "Listen backlog: connections the kernel queues until the sink accepts them (capped by net.core.somaxconn)",
    // sink/kernel.ts DEFAULT_BACKLOG, as Postfix smtp-sink's -b; Node's own default is 511.
    default: 4096,
  },
  "log-envelopes": {
    kind: "text",
    group: "Sink:",
    describe: "Append one JSON line per transaction to FILE: time, MAIL FROM, RCPT TOs, accepted",
  },
  xverp: {
    kind: "flag",
    group: "Sink:",
    describe: "Offer XVERP (Postfix); --no-xverp plays a server without it",
    shown: "offered",
  },
} as const satisfies OptionTable;
