/**
 * `mailvolley probe TARGET --probe concurrency|connection-rate|message-rate`: where a gateway
 * starts refusing one client (see run/probe.ts). One probe per run: each uses up some of the
 * gateway's rate windows, which would skew the next.
 */
import type { ArgumentsCamelCase, Argv } from "yargs";
import { checkAddresses } from "../config/address-checks.js";
import { buildProbeConfig, PROBE_KINDS, type RawProbeOptions } from "../config/probe-config.js";
import { renderProbe } from "../report/probe.js";
import type { ProbeResult } from "../result/probe-result.js";
import { ProbeStop, runProbe } from "../run/probe.js";
import { EXIT, signalExitCode } from "./exit-codes.js";
import { securityOptions } from "./load-options.js";
import { readNamedInputs } from "./named-inputs.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { StopSignals } from "./signals.js";
import { warnPlaintextAuth } from "./start-warnings.js";

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
    await readNamedInputs("probe", argv);
    const config = buildProbeConfig(argv as RawProbeOptions);
    const exports = exportsOf<ProbeResult>([
      ["--json", argv.json, (probe) => `${JSON.stringify(probe, null, 2)}\n`],
    ]);
    checkWritable(exports);
    warnPlaintextAuth(config, config.target);
    await checkAddresses(config.target, [], config.replyTimeoutMs);
    const stop = new ProbeStop();
    const signals = new StopSignals((signal) => {
      const again = signal === "SIGINT" ? "Ctrl-C again" : "another signal";
      process.stderr.write(
        `\nmailvolley probe: ${signal}: stopping; open connections get their QUIT (${again} closes them)\n`,
      );
    });
    signals.attach(stop);
    try {
      const result = await runProbe(config, stop);
      const written = writeOutput(
        { quiet: Boolean(argv.quiet), summary: renderProbe, exports },
        result,
      );
      const code = signals.received === null ? EXIT.ok : signalExitCode(signals.received);
      process.exitCode = written || code !== EXIT.ok ? code : EXIT.failed;
    } finally {
      signals.release();
    }
  },
};
