/**
 * `mailvolley run [target]`: the yargs option table, argv → RunConfig, run, reports, exit code.
 * Options smtp-source users know keep their letters.
 */
import { closeSync, openSync, writeFileSync } from "node:fs";
import type { ArgumentsCamelCase, Argv } from "yargs";
import { ConfigError } from "../config/parse.js";
import {
  buildRunConfig,
  PHASE_NAMES,
  type RawRunOptions,
  type RunConfig,
  type Timeouts,
} from "../config/run-config.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { renderSummary } from "../report/terminal.js";
import { executeRun } from "../run/run.js";
import { breachedLive } from "../stats/thresholds.js";
import { sinkEmulation, sinkEmulationOptions } from "./compare-command.js";
import { applyPlan, locate, messageOptions, rawMessageOptions } from "./message-options.js";
import { progressPrinter } from "./progress.js";
import {
  applyThresholds,
  buildReportOptions,
  EXIT_THRESHOLDS,
  printBreaches,
  reportOptions,
} from "./report-command.js";

const TIMEOUT_PHASES: readonly (keyof Timeouts)[] = PHASE_NAMES;

/** TLS and AUTH, as `run` and `probe` take them (config/run-config.ts parseSecurity). */
export function securityOptions<T>(yargs: Argv<T>) {
  return yargs
    .option("starttls", {
      type: "boolean",
      describe: "STARTTLS after EHLO (RFC 3207); the handshake is timed as its own phase",
      group: "TLS and AUTH:",
    })
    .option("tls-on-connect", {
      type: "boolean",
      describe: "TLS from the first byte (implicit TLS, port 465 style)",
      group: "TLS and AUTH:",
    })
    .option("tls-verify", {
      type: "boolean",
      describe: "Check the server certificate and name [off: test certificates pass]",
      group: "TLS and AUTH:",
    })
    .option("tls-servername", {
      type: "string",
      describe: "SNI name (and the name checked with --tls-verify) [the target host]",
      group: "TLS and AUTH:",
    })
    .option("auth", {
      type: "string",
      describe: "AUTH as user:password after EHLO (and STARTTLS)",
      group: "TLS and AUTH:",
    })
    .option("auth-mechanism", {
      type: "string",
      describe: "plain or login [PLAIN when offered, else LOGIN]",
      group: "TLS and AUTH:",
    });
}

export function runOptions<T>(yargs: Argv<T>) {
  let y = yargs
    .option("sessions", {
      alias: "s",
      type: "string",
      describe: "Sessions (connections) at once [10]",
      group: "Run:",
    })
    .option("messages", {
      alias: "m",
      type: "string",
      describe: "Messages to send [10000]",
      group: "Run:",
    })
    .option("size", {
      alias: "l",
      type: "string",
      describe: "Body octets per message [1024]",
      group: "Run:",
    })
    .option("recipients", {
      alias: "r",
      type: "string",
      describe: "Recipients per message [1]",
      group: "Run:",
    })
    .option("from", {
      alias: "f",
      type: "string",
      describe: "Envelope sender [mailvolley@localhost]",
      group: "Run:",
    })
    .option("to", {
      alias: "t",
      type: "string",
      describe: "Recipient address [sink@localhost]",
      group: "Run:",
    })
    .option("subject", { alias: "S", type: "string", describe: "Subject header", group: "Run:" })
    .option("helo", { alias: "M", type: "string", describe: "EHLO/HELO host name", group: "Run:" })
    .option("unique-recipients", {
      alias: "N",
      type: "boolean",
      describe: "Prefix every recipient with a unique number, like smtp-source -N",
      group: "Run:",
    })
    .option("wait", {
      alias: "w",
      type: "string",
      describe: "Pause after each message in a session (2s, 250ms)",
      group: "Run:",
    })
    .option("random-wait", {
      alias: "R",
      type: "string",
      describe: "Pause a random time between 0 and this after each message",
      group: "Run:",
    })
    .option("mode", {
      type: "string",
      describe: "reuse: sessions stay open; per-message: one connection a message [reuse]",
      group: "Run:",
    })
    .option("messages-per-session", {
      type: "string",
      describe: "Reuse mode: reconnect after K messages, or a random K in LOW-HIGH [0 = no cap]",
      group: "Run:",
    })
    .option("pipelining", {
      type: "string",
      describe: "auto: pipeline when offered; off: lock-step [auto]",
      group: "Run:",
    })
    .option("reconnect-attempts", {
      type: "string",
      describe: "Reuse mode: failed connections in a row before a session slot gives up [5]",
      group: "Run:",
    })
    .option("reconnect-delay", {
      type: "string",
      describe: "First backoff after a failed session [100ms]",
      group: "Run:",
    })
    .option("duration", {
      alias: "d",
      type: "string",
      describe: "Run for this long (30s, 5m); with -m too, whichever ends first",
      group: "Load model:",
    })
    .option("rate", {
      type: "string",
      describe: "Open model: messages per second across the run (2000, 2000/s, 120/m)",
      group: "Load model:",
    })
    .option("ramp", {
      type: "string",
      describe: "Open model: rate stages TIME:RATE,… (0s:100,30s:1000,60s:1000)",
      group: "Load model:",
    })
    .option("ramp-sessions", {
      type: "string",
      describe: "Closed model: active sessions over time TIME:N,… (0s:1,30s:50)",
      group: "Load model:",
    })
    .option("ramp-up", {
      type: "string",
      describe: "Closed model: start the sessions evenly over this long (JMeter ramp-up)",
      group: "Load model:",
    })
    .option("max-delay", {
      type: "string",
      describe: "Open model: drop an arrival that waited this long for a session [1s]",
      group: "Load model:",
    })
    .option("max-queue", {
      type: "string",
      describe: "Open model: arrivals that may wait at once; more are dropped [10000]",
      group: "Load model:",
    })
    .option("grace", {
      type: "string",
      describe: "After Ctrl-C, how long messages in flight may take [5s]",
      group: "Load model:",
    })
    .option("interval", {
      type: "string",
      describe: "Resolution of the time series in the result (1s, 500ms, 10s) [1s]",
      group: "Run:",
    })
    .option("workers", {
      type: "string",
      describe: "Worker threads the sessions are spread over (1: main thread) [cores - 1]",
      group: "Run:",
    })
    .option("source", {
      type: "string",
      array: true,
      describe: "Local addresses to connect from, in turn per session (a,b or 127.0.0.2-127.0.0.9)",
      group: "Run:",
    })
    .option("lmtp", {
      type: "boolean",
      describe: "Speak LMTP (RFC 2033): LHLO, one reply per accepted recipient after the data",
      group: "Run:",
    })
    .option("chunking", {
      type: "boolean",
      describe:
        "Send with BDAT when CHUNKING and PIPELINING are offered: transactions back to back",
      group: "Run:",
    })
    .option("window", {
      type: "string",
      describe: "With --chunking: BDAT transactions in flight per session [8]",
      group: "Run:",
    })
    .option("json", {
      type: "string",
      describe: "Write the JSON result to FILE (- for stdout)",
      group: "Run:",
    })
    .option("verbose", {
      alias: "v",
      type: "boolean",
      describe: "Print the first session's SMTP conversation",
      group: "Run:",
    })
    .option("quiet", { alias: "q", type: "boolean", describe: "Print no summary", group: "Run:" });
  y = securityOptions(y);
  for (const phase of TIMEOUT_PHASES) {
    y = y.option(`timeout-${phase}`, {
      type: "string",
      describe: `Timeout of the ${phase} phase (e.g. 10s)`,
      group: "Timeouts:",
    });
  }
  y = messageOptions(y);
  return y;
}

type RunArgv = ArgumentsCamelCase<Record<string, unknown>>;

/**
 * argv (and a plan file, if given) → the checked RunConfig; `override` wins over both (compare
 * sets the mode of each of its runs).
 */
export function configFromArgv(argv: RunArgv, override: Partial<RawRunOptions> = {}): RunConfig {
  const { classes, where } = applyPlan(argv);
  const raw: RawRunOptions = { ...rawRunOptions(argv), ...rawMessageOptions(argv), ...override };
  if (classes.length > 0) raw.classes = classes;
  try {
    return buildRunConfig(raw);
  } catch (error) {
    throw locate(error, where);
  }
}

export function rawRunOptions(argv: RunArgv): RawRunOptions {
  const timeout: Partial<Record<keyof Timeouts, unknown>> = {};
  for (const phase of TIMEOUT_PHASES) {
    const value = argv[`timeout${phase[0].toUpperCase()}${phase.slice(1)}`];
    if (value !== undefined) timeout[phase] = value;
  }
  return {
    target: argv.target,
    mode: argv.mode,
    sessions: argv.sessions,
    messages: argv.messages,
    size: argv.size,
    recipients: argv.recipients,
    from: argv.from,
    to: argv.to,
    subject: argv.subject,
    helo: argv.helo,
    uniqueRecipients: argv.uniqueRecipients,
    wait: argv.wait,
    randomWait: argv.randomWait,
    messagesPerSession: argv.messagesPerSession,
    pipelining: argv.pipelining,
    reconnectAttempts: argv.reconnectAttempts,
    reconnectDelay: argv.reconnectDelay,
    workers: argv.workers,
    interval: argv.interval,
    source: argv.source,
    lmtp: argv.lmtp,
    chunking: argv.chunking,
    window: argv.window,
    starttls: argv.starttls,
    tlsOnConnect: argv.tlsOnConnect,
    tlsVerify: argv.tlsVerify,
    tlsServername: argv.tlsServername,
    auth: argv.auth,
    authMechanism: argv.authMechanism,
    duration: argv.duration,
    rate: argv.rate,
    ramp: argv.ramp,
    rampSessions: argv.rampSessions,
    rampUp: argv.rampUp,
    maxDelay: argv.maxDelay,
    maxQueue: argv.maxQueue,
    grace: argv.grace,
    verbose: argv.verbose,
    quiet: argv.quiet,
    json: argv.json,
    timeout,
  };
}

export const runCommand = {
  command: "run [target]",
  describe: "Send load to an SMTP server (no target: self-test against the built-in sink)",
  builder: (yargs: Argv) =>
    sinkEmulationOptions(reportOptions(runOptions(yargs))).positional("target", {
      type: "string",
      describe: "host:port, [ipv6]:port or unix:/path (port 25 when none)",
    }),
  handler: async (argv: RunArgv) => {
    applyPlan(argv);
    const config = configFromArgv(argv);
    if (config.json !== null && config.json !== "-") checkWritable("--json", config.json);
    const report = buildReportOptions(argv);
    if (report.html !== null) checkWritable("--html", report.html);
    let interrupted = false;
    let abortedFor: string[] = [];
    let stopRun: (() => void) | null = null;
    const trace = config.verbose ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
    const printer = progressPrinter(process.stderr, config.quiet || config.verbose);
    let onSigint: (() => void) | null = null;
    const outcome = await executeRun(
      config,
      {
        trace,
        progress: (p) => {
          printer.update(p);
          if (!report.abortOnFail || abortedFor.length > 0) return;
          abortedFor = breachedLive(report.thresholds, p);
          if (abortedFor.length > 0) stopRun?.();
        },
        onStart: (stop, drain) => {
          stopRun = stop;
          onSigint = () => {
            if (interrupted) {
              stop();
              return;
            }
            interrupted = true;
            const grace = (config.load.graceMs / 1000).toFixed(1);
            process.stderr.write(
              `\nmailvolley: stopping; messages in flight get ${grace}s (Ctrl-C again to cut them off)\n`,
            );
            drain();
          };
          process.on("SIGINT", onSigint);
        },
      },
      { sink: sinkEmulation(argv), apdexMs: report.apdexMs },
    );
    if (onSigint) process.off("SIGINT", onSigint);
    printer.finish();
    const breaches = applyThresholds(outcome.result, report.thresholds);
    const toStdout = config.json === "-";
    if (!config.quiet) {
      const stream = toStdout ? process.stderr : process.stdout;
      stream.write(renderSummary(outcome.result, { color: Boolean(stream.isTTY) }));
    }
    if (config.json !== null) {
      const text = renderJson(outcome.result);
      if (toStdout) process.stdout.write(text);
      else writeFileSync(config.json, text);
    }
    if (report.html !== null) writeFileSync(report.html, renderHtml([outcome.result]));
    if (abortedFor.length > 0) {
      process.stderr.write(
        `mailvolley: --abort-on-fail stopped the run: ${abortedFor.join("; ")}\n`,
      );
    }
    printBreaches(breaches);
    const breached = breaches.length > 0 || abortedFor.length > 0;
    process.exitCode = interrupted ? 130 : breached ? EXIT_THRESHOLDS : outcome.exitCode;
  },
};

/** Fails before the run, not after it, when the result file cannot be written. */
export function checkWritable(option: string, path: string): void {
  try {
    closeSync(openSync(path, "a"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(option, `cannot write "${path}" (${reason}); give a writable file path`);
  }
}
