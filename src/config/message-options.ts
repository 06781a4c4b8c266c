/**
 * The message rows of the option table (config/option-table.ts): sources, address lists, DSN and
 * XVERP, and the plan file itself. A file of their own to keep the table's file readable.
 */
import type { OptionTable } from "./option-rows.js";

/** Message sources, address lists, DSN and XVERP, and the plan file itself. */
export const MESSAGE_OPTIONS = {
  plan: {
    kind: "text",
    takes: "file",
    group: "Plan:",
    describe: "Plan file (YAML or JSON): options, vars, classes",
    plan: false,
  },
  set: {
    kind: "list",
    group: "Plan:",
    describe: "Override a plan value or variable: --set rate=500 --set target=mx:25",
    plan: false,
  },
  file: {
    alias: "F",
    kind: "text",
    takes: "file",
    group: "Messages:",
    describe: "Send this .eml file (bare LF normalised), like smtp-source -F",
  },
  eml: {
    kind: "text",
    takes: "directory",
    group: "Messages:",
    describe: "Send the *.eml files of this directory",
  },
  mbox: {
    kind: "text",
    takes: "file",
    group: "Messages:",
    describe: "Replay the messages of this mbox file (mboxrd or mboxo)",
  },
  template: {
    kind: "text",
    takes: "file",
    group: "Messages:",
    describe: "Message template with {{seq}} {{class}} {{timestamp}} {{epochMs}} {{token}}",
  },
  "source-order": {
    kind: "text",
    takes: "sequential|random",
    group: "Messages:",
    describe: "--eml/--mbox order: sequential or random",
    default: "sequential",
  },
  seed: {
    kind: "text",
    takes: "number",
    group: "Messages:",
    describe: "Seed of the random order, to repeat a run",
  },
  "from-file": {
    kind: "text",
    takes: "file",
    group: "Messages:",
    describe: "Sender addresses, one a line, used in turn",
  },
  "to-file": {
    kind: "text",
    takes: "file",
    group: "Messages:",
    describe: "Recipient addresses, one a line, used in turn",
  },
  xverp: { kind: "flag", group: "Messages:", describe: "Ask for XVERP on MAIL (Postfix)" },
  "dsn-ret": {
    kind: "text",
    takes: "full|hdrs",
    group: "Messages:",
    describe: "DSN RET= on MAIL: full or hdrs (RFC 3461)",
  },
  "dsn-notify": {
    kind: "text",
    takes: "list",
    group: "Messages:",
    describe: "DSN NOTIFY= on RCPT: NEVER or SUCCESS,FAILURE,DELAY",
  },
} as const satisfies OptionTable;
