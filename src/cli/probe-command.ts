/**
 * `mailvolley probe TARGET --probe concurrency|connection-rate|message-rate`: where a gateway
 * starts refusing one client (see run/probe.ts). One probe per run: each uses up some of the
 * gateway's rate windows, which would skew the next.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { buildProbeConfig, PROBE_KINDS, type RawProbeOptions } from "../config/probe-config.js";
import { renderProbe } from "../report/probe.js";
import { runProbe } from "../run/probe.js";
import { securityOptions } from "./load-options.js";
import { exportsOf, writeOutput } from "./output.js";
import { warnPlaintextAuth } from "./warnings.js";

type ProbeArgv = ArgumentsCamelCase<Record<string, unknown>>;

export const probeCommand = {
  command: "probe [target]",
  describe:
    "Find where a gateway starts refusing: concurrent connections, connection rate or message rate",
  builder: (yargs: Argv) =>
    securityOptions(yargs)
      .positional("target", { type: "string", describe: "host:port, [ipv6]:port or unix:/path" })
      .option("probe", {
        type: "string",
        describe: `Which limit to look for: ${PROBE_KINDS.join(", ")}`,
      })
      .option("max", {
        type: "number",
        describe: "Stop after this many connections (or messages, for message-rate)",
        default: 1000,
      })
      .option("time-limit", { type: "string", describe: "Stop after this long", default: "2m" })
      .option("timeout", {
        type: "string",
        describe: "Wait this long for any one reply",
        default: "30s",
      })
      .option("helo", { alias: "M", type: "string", describe: "EHLO host name" })
      .option("from", { alias: "f", type: "string", describe: "MAIL FROM address (message-rate)" })
      .option("to", { alias: "t", type: "string", describe: "RCPT TO address (message-rate)" })
      .option("size", {
        alias: "l",
        type: "string",
        describe: "Body octets of message-rate's messages",
      })
      .option("json", {
        type: "string",
        describe: "Write the result as JSON to FILE (- for stdout)",
      })
      .option("quiet", { alias: "q", type: "boolean", describe: "Print no summary" }),
  handler: async (argv: ProbeArgv) => {
    const config = buildProbeConfig(argv as RawProbeOptions);
    warnPlaintextAuth(config, config.target);
    const result = await runProbe(config);
    writeOutput(
      {
        quiet: Boolean(argv.quiet),
        summary: renderProbe,
        exports: exportsOf<typeof result>([
          ["--json", argv.json, (probe) => `${JSON.stringify(probe, null, 2)}\n`],
        ]),
      },
      result,
    );
  },
};
