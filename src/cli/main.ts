/**
 * The mailvolley command line. Bad input is one line on stderr naming the option and the fix,
 * and exit code 2; never a stack trace.
 */
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { givenTwice, type OptionSpec, type OptionTable } from "../config/option-rows.js";
import { LOAD_OPTIONS } from "../config/option-table.js";
import { toolVersion } from "../config/run-record.js";
import { printable } from "../stats/printable.js";
import { mark } from "../stats/timeline.js";
import { UsageError } from "../usage/usage-error.js";
import { capacityCommand } from "./capacity-command.js";
import { compareCommand } from "./compare-command.js";
import { withSuggestions } from "./did-you-mean.js";
import { diffCommand } from "./diff-command.js";
import { takeEarlySignals } from "./early-signals.js";
import { EXIT, signalExitCode } from "./exit-codes.js";
import { skipHelpCache } from "./help-cache.js";
import { kubernetesCommand } from "./kubernetes-command.js";
import { mergeCommand } from "./merge-command.js";
import { probeCommand } from "./probe-command.js";
import { reportCommand } from "./report-command.js";
import { runCommand } from "./run-command.js";
import { sinkCommand } from "./sink-command.js";

function usageError(message: string): never {
  // One line, no raw control byte: the message may quote a file's content or a server's text.
  process.stderr.write(`mailvolley: ${printable(message)}\n`);
  process.exit(EXIT.usage);
}

/**
 * yargs reads a lone "-" as a positional argument; `--json -` means stdout, as in most tools, so
 * the pair is joined before parsing. A value that starts with a minus and a digit (`-d -5s`)
 * would be read as short options ("Unknown argument: 5"): it is joined too, so the option's own
 * check names it.
 */
function joinDashValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const option = arg.startsWith("-") && !arg.includes("=") && !/^-\d/.test(arg);
    const next = args[i + 1];
    const dashValue = next === "-" ? arg.startsWith("--") : /^-\d/.test(next ?? "");
    if (option && dashValue) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

const COMMANDS = ["run", "sink", "compare", "capacity", "report", "merge", "probe", "diff"];

/** Options a command takes more than once without declaring them arrays (cli/arrivals.ts). */
const REPEATABLE = new Set(["arrivals"]);

interface YargsOptions {
  key: Record<string, unknown>;
  array: string[];
  boolean: string[];
  alias: Record<string, string[]>;
}

/**
 * A one-value option given twice gets one answer in every command, before the command checks
 * its values: the letters that set it (yargs' aliases), and a row's hint or secrecy where the
 * option table has them (`-s` as ab's timeout; --auth never repeated back).
 */
function refuseRepeats(argv: Record<string, unknown>, cli: unknown): void {
  const options = (cli as { getOptions(): YargsOptions }).getOptions();
  for (const name of Object.keys(options.key)) {
    const value = argv[name];
    if (!Array.isArray(value) || REPEATABLE.has(name)) continue;
    if (options.array.includes(name) || options.boolean.includes(name)) continue;
    const row: OptionSpec | undefined = (LOAD_OPTIONS as OptionTable)[name];
    const alias = (options.alias[name] ?? []).filter((a) => a.length === 1);
    throw givenTwice(name, { alias, twice: row?.twice, secret: row?.secret }, value);
  }
}

/** The options the instance knows (yargs 17 has getOptions at run time, not in its types). */
function optionsOf(cli: unknown): Record<string, unknown> {
  return (cli as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
}

export async function main(args: string[]): Promise<void> {
  const cli = yargs(joinDashValues(args))
    .scriptName("mailvolley")
    // Values stay as typed ("010", "1e3"): config/ parses them, and names the option when wrong.
    .parserConfiguration({ "parse-numbers": false })
    .usage("$0 <command> [options]")
    .command(runCommand)
    .command(sinkCommand)
    .command(compareCommand)
    .command(capacityCommand)
    .command(reportCommand)
    .command(mergeCommand)
    .command(probeCommand)
    .command(kubernetesCommand)
    .command(diffCommand)
    .demandCommand(
      1,
      "name a command: run, compare, capacity, probe, report, merge, sink or kubernetes (see --help)",
    )
    .strict()
    .option("color", {
      type: "boolean",
      describe: "Colour the summary (default: on a terminal, unless NO_COLOR is set)",
    })
    .middleware((argv): void => refuseRepeats(argv, cli), true)
    .middleware((argv) => {
      // One place decides colour (cli/color.ts); the flags speak through its variables.
      if (argv.color === false) process.env.NO_COLOR = "1";
      if (argv.color === true) {
        delete process.env.NO_COLOR;
        process.env.FORCE_COLOR = "1";
      }
    })
    .version(toolVersion())
    .help()
    .alias("help", "h")
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((message, error) => {
      if (error instanceof UsageError) usageError(error.message);
      // yargs' own parse errors ("Not enough arguments following: m") are usage errors too.
      if (error && error.name !== "YError") throw error;
      // After a command's builder ran, the instance knows that command's options.
      const command = COMMANDS.includes(args[0]) ? args[0] : null;
      const line = withSuggestions(message.split("\n")[0], {
        commands: COMMANDS,
        options: Object.keys(optionsOf(cli)),
        commandGiven: command !== null,
      });
      usageError(`${line} (see mailvolley ${command ? `${command} ` : ""}--help)`);
    });
  skipHelpCache(cli);
  try {
    await cli.parseAsync();
  } catch (error) {
    if (error instanceof UsageError) usageError(error.message);
    throw error;
  }
}

mark("modules loaded");
await main(hideBin(process.argv));
// A command that installs no handlers of its own ran to its end; a signal held meanwhile still
// sets the exit code it promises.
const unhandled = takeEarlySignals();
if (unhandled.length > 0) process.exitCode = signalExitCode(unhandled[0]);
mark("command done");
