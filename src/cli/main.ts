/**
 * The mailvolley command line. Bad input is one line on stderr naming the option and the fix,
 * and exit code 2; never a stack trace.
 */
import yargs from "yargs";
import { hideBin } from "yargs/helpers";

import { toolVersion } from "../config/run-record.js";
import { mark } from "../stats/timeline.js";
import { UsageError } from "../usage/usage-error.js";
import { capacityCommand } from "./capacity-command.js";
import { compareCommand } from "./compare-command.js";
import { withSuggestions } from "./did-you-mean.js";
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
  process.stderr.write(`mailvolley: ${message}\n`);
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

const COMMANDS = ["run", "sink", "compare", "capacity", "report", "merge", "probe"];

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
    .demandCommand(
      1,
      "name a command: run, compare, capacity, probe, report, merge, sink or kubernetes (see --help)",
    )
    .strict()
    .option("color", {
      type: "boolean",
      describe: "Colour the summary (default: on a terminal, unless NO_COLOR is set)",
    })
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
