/**
 * Options that shape the messages (files, address lists, DSN, XVERP) and plan files, for both
 * `run` and `compare`.
 */
import type { Argv } from "yargs";
import { ConfigError } from "../config/parse.js";
import { type ClassSpec, camel, loadPlan, planFromSets } from "../config/plan.js";
import type { RawRunOptions } from "../config/run-config.js";

const GROUP = "Messages:";

export function messageOptions<T>(yargs: Argv<T>) {
  return yargs
    .option("plan", {
      type: "string",
      describe: "Plan file (YAML or JSON): options, vars, classes",
      group: "Plan:",
    })
    .option("set", {
      type: "string",
      array: true,
      describe: "Override a plan value or variable: --set rate=500 --set target=mx:25",
      group: "Plan:",
    })
    .option("file", {
      alias: "F",
      type: "string",
      describe: "Send this .eml file (bare LF normalised), like smtp-source -F",
      group: GROUP,
    })
    .option("eml", {
      type: "string",
      describe: "Send the *.eml files of this directory",
      group: GROUP,
    })
    .option("mbox", {
      type: "string",
      describe: "Replay the messages of this mbox file (mboxrd or mboxo)",
      group: GROUP,
    })
    .option("template", {
      type: "string",
      describe: "Message template with {{seq}} {{class}} {{timestamp}} {{epochMs}} {{token}}",
      group: GROUP,
    })
    .option("source-order", {
      type: "string",
      describe: "--eml/--mbox order: sequential or random [sequential]",
      group: GROUP,
    })
    .option("seed", {
      type: "string",
      describe: "Seed of the random order, to repeat a run",
      group: GROUP,
    })
    .option("from-file", {
      type: "string",
      describe: "Sender addresses, one a line, used in turn",
      group: GROUP,
    })
    .option("to-file", {
      type: "string",
      describe: "Recipient addresses, one a line, used in turn",
      group: GROUP,
    })
    .option("xverp", { type: "boolean", describe: "Ask for XVERP on MAIL (Postfix)", group: GROUP })
    .option("dsn-ret", {
      type: "string",
      describe: "DSN RET= on MAIL: full or hdrs (RFC 3461)",
      group: GROUP,
    })
    .option("dsn-notify", {
      type: "string",
      describe: "DSN NOTIFY= on RCPT: NEVER or SUCCESS,FAILURE,DELAY",
      group: GROUP,
    });
}

type Argv2 = Record<string, unknown>;

export function rawMessageOptions(argv: Argv2): Partial<RawRunOptions> {
  return {
    file: argv.file,
    eml: argv.eml,
    mbox: argv.mbox,
    template: argv.template,
    sourceOrder: argv.sourceOrder,
    seed: argv.seed,
    fromFile: argv.fromFile,
    toFile: argv.toFile,
    xverp: argv.xverp,
    dsnRet: argv.dsnRet,
    dsnNotify: argv.dsnNotify,
  };
}

/** Option keys a plan may set at the top level (camelCase or kebab-case). */
const PLAN_KEYS = new Set([
  "target",
  "mode",
  "sessions",
  "messages",
  "size",
  "recipients",
  "from",
  "to",
  "subject",
  "helo",
  "uniqueRecipients",
  "wait",
  "randomWait",
  "messagesPerSession",
  "pipelining",
  "reconnectAttempts",
  "reconnectDelay",
  "workers",
  "interval",
  "source",
  "lmtp",
  "chunking",
  "window",
  "starttls",
  "tlsOnConnect",
  "tlsVerify",
  "tlsServername",
  "auth",
  "authMechanism",
  "duration",
  "rate",
  "ramp",
  "rampSessions",
  "rampUp",
  "maxDelay",
  "maxQueue",
  "grace",
  "timeout",
  "json",
  "file",
  "eml",
  "mbox",
  "template",
  "sourceOrder",
  "seed",
  "fromFile",
  "toFile",
  "xverp",
  "dsnRet",
  "dsnNotify",
]);

/** Options of `run` and `compare` beyond the RunConfig that a plan may also hold. */
const PLAN_REPORT_KEYS = new Set([
  "html",
  "threshold",
  "apdex",
  "abortOnFail",
  "sinkMaxConnections",
  "sinkMaxConnectionRate",
  "sinkMaxMessageRate",
  "order",
  "pause",
]);

export interface AppliedPlan {
  /** Classes from the plan (empty: none). */
  readonly classes: readonly ClassSpec[];
  /** Where each value taken from the plan stands, for error messages. */
  readonly where: Record<string, string>;
}

const applied = new WeakMap<object, AppliedPlan>();

/**
 * Merges a plan (and `--set`) under the command line, in place: an option given on the command
 * line wins, then `--set`, then the plan. Every later reader of argv (run options, report
 * options, sink emulation) sees the merged values. Idempotent per argv.
 */
export function applyPlan(argv: Argv2): AppliedPlan {
  const done = applied.get(argv);
  if (done) return done;
  const sets = (argv.set as string[] | undefined) ?? [];
  let result: AppliedPlan = { classes: [], where: {} };
  if (argv.plan !== undefined || sets.length > 0) {
    const plan = argv.plan === undefined ? planFromSets(sets) : loadPlan(String(argv.plan), sets);
    const where: Record<string, string> = {};
    for (const [key, value] of Object.entries(plan.options)) {
      if (!PLAN_KEYS.has(key) && !PLAN_REPORT_KEYS.has(key)) {
        const at = plan.where[key] ?? "--set";
        throw new ConfigError(
          "--plan",
          `${at}: "${key}" is not a run option; see mailvolley run --help`,
        );
      }
      if (argv[key] !== undefined) continue; // the command line wins
      argv[key] = value;
      if (plan.where[key]) where[key] = plan.where[key];
    }
    result = { classes: plan.classes, where };
  }
  applied.set(argv, result);
  return result;
}

/** Points a ConfigError about an option that came from the plan at the plan's line. */
export function locate(error: unknown, where: Record<string, string>): unknown {
  if (!(error instanceof ConfigError)) return error;
  const key = camel(error.option.replace(/^--/, ""));
  const at = where[key];
  return at
    ? new ConfigError(error.option, `${error.message.slice(error.option.length + 2)} (from ${at})`)
    : error;
}
