/**
 * The mailvolley command line. Bad input is one line on stderr naming the option and the fix,
 * and exit code 2; never a stack trace.
 */
import { readFileSync } from "node:fs";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { ConfigError } from "../config/parse.js";
import { SourceError } from "../messages/source.js";
import { compareCommand } from "./compare-command.js";
import { EXIT } from "./exit-codes.js";
import { mergeCommand } from "./merge-command.js";
import { probeCommand } from "./probe-command.js";
import { reportCommand } from "./report-command.js";
import { runCommand } from "./run-command.js";
import { sinkCommand } from "./sink-command.js";

function version(): string {
  const pkg = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}

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

export async function main(args: string[]): Promise<void> {
  const cli = yargs(joinDashValues(args))
    .scriptName("mailvolley")
    .usage("$0 <command> [options]")
    .command(runCommand)
    .command(sinkCommand)
    .command(compareCommand)
    .command(reportCommand)
    .command(mergeCommand)
    .command(probeCommand)
    .demandCommand(1, "name a command: run, compare, probe, report, merge or sink (see --help)")
    .strict()
    .version(version())
    .help()
    .alias("help", "h")
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((message, error) => {
      if (error instanceof ConfigError || error instanceof SourceError) usageError(error.message);
      if (error) throw error;
      usageError(`${message.split("\n")[0]} (see mailvolley --help)`);
    });
  try {
    await cli.parseAsync();
  } catch (error) {
    if (error instanceof ConfigError || error instanceof SourceError) usageError(error.message);
    throw error;
  }
}

await main(hideBin(process.argv));
