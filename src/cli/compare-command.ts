/**
 * `mailvolley compare [target] [run options]`: the same load twice, with a connection per
 * message and with session reuse (in --order, --pause between), then both side by side.
 * Without a target each run gets a fresh built-in sink, which can play a gateway under limits
 * (--sink-max-connection-rate and friends) to show what reuse dodges.
 */
import { writeFileSync } from "node:fs";
import type { ArgumentsCamelCase, Argv } from "yargs";
import { ConfigError, parseDuration } from "../config/parse.js";
import { COMPARE_SCHEMA, type Comparison, renderCompare } from "../report/compare.js";
import { renderHtml } from "../report/html.js";
import { renderJson } from "../report/json.js";
import { executeRun, type RunExtras } from "../run/run.js";
import { fillSinkOptions, SinkOptionError, type SinkOptions } from "../sink/index.js";
import type { Mode, Result } from "../stats/result.js";
import { applyPlan } from "./message-options.js";
import {
  applyThresholds,
  buildReportOptions,
  EXIT_THRESHOLDS,
  printBreaches,
  reportOptions,
} from "./report-command.js";
import { checkWritable, configFromArgv, runOptions } from "./run-command.js";

type Argv2 = ArgumentsCamelCase<Record<string, unknown>>;

const MODES: readonly Mode[] = ["per-message", "reuse"];

/** Gateway emulation of the embedded sink, for self-tests: `--sink-…` options. */
export function sinkEmulationOptions<T>(yargs: Argv<T>) {
  const group = "Built-in sink (no target):";
  return yargs
    .option("sink-max-connections", {
      type: "string",
      describe: "Sessions the sink holds at once; more get 421 4.7.0 at the banner",
      group,
    })
    .option("sink-max-connection-rate", {
      type: "string",
      describe: "New connections per client per window (N/60s); more get 421 at the banner",
      group,
    })
    .option("sink-max-message-rate", {
      type: "string",
      describe: "MAIL commands per client per window (N/60s); more get 450 4.7.1",
      group,
    });
}

export function sinkEmulation(argv: Argv2): RunExtras["sink"] {
  const sink: Omit<Partial<SinkOptions>, "listen"> = {};
  if (argv.sinkMaxConnections !== undefined) {
    const n = Number(argv.sinkMaxConnections);
    if (!Number.isInteger(n) || n < 1) {
      throw new ConfigError("--sink-max-connections", "give a whole number, at least 1");
    }
    sink.maxConnections = n;
  }
  if (argv.sinkMaxConnectionRate !== undefined) {
    sink.maxConnectionRate = String(argv.sinkMaxConnectionRate);
  }
  if (argv.sinkMaxMessageRate !== undefined) sink.maxMessageRate = String(argv.sinkMaxMessageRate);
  try {
    fillSinkOptions({ ...sink, listen: ["127.0.0.1:0"] }); // checked now, not after a run
  } catch (error) {
    if (error instanceof SinkOptionError) {
      throw new ConfigError(`--sink-${error.option}`, error.message);
    }
    throw error;
  }
  return sink;
}

function parseOrder(raw: unknown): Mode[] {
  if (raw === undefined) return [...MODES];
  const order = String(raw)
    .split(",")
    .map((s) => s.trim());
  const ok = order.length === 2 && MODES.every((m) => order.includes(m)) && order[0] !== order[1];
  if (!ok)
    throw new ConfigError("--order", `"${raw}": give per-message,reuse or reuse,per-message`);
  return order as Mode[];
}

export const compareCommand = {
  command: "compare [target]",
  describe: "Run the same load per-message and with session reuse, and show them side by side",
  builder: (yargs: Argv) =>
    sinkEmulationOptions(reportOptions(runOptions(yargs)))
      .option("order", {
        type: "string",
        describe: "Which mode runs first [per-message,reuse]",
        group: "Compare:",
      })
      .option("pause", {
        type: "string",
        describe: "Pause between the two runs, so rate windows of the gateway drain [5s]",
        group: "Compare:",
      })
      .positional("target", {
        type: "string",
        describe: "host:port, [ipv6]:port or unix:/path (none: two built-in sinks)",
      }),
  handler: async (argv: Argv2) => {
    if (argv.mode !== undefined) {
      throw new ConfigError("--mode", "compare runs both modes; choose their order with --order");
    }
    applyPlan(argv); // after the check: a plan's own mode is overridden per run
    const order = parseOrder(argv.order);
    const pauseMs = parseDuration("--pause", argv.pause ?? "5s");
    const report = buildReportOptions(argv);
    const configs = order.map((mode) => configFromArgv(argv, { mode }));
    const { json, quiet } = configs[0];
    if (json !== null && json !== "-") checkWritable("--json", json);
    if (report.html !== null) checkWritable("--html", report.html);
    const extras: RunExtras = { sink: sinkEmulation(argv), apdexMs: report.apdexMs };
    const runs: Result[] = [];
    let interrupted = false;
    let stopCurrent: (() => void) | null = null;
    const onSigint = () => {
      interrupted = true;
      stopCurrent?.();
    };
    process.on("SIGINT", onSigint);
    try {
      for (const [i, config] of configs.entries()) {
        if (interrupted) break;
        if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        if (!quiet) process.stderr.write(`mailvolley compare: ${config.mode} run…\n`);
        const io = { onStart: (stop: () => void) => (stopCurrent = stop) };
        const outcome = await executeRun(config, io, extras);
        runs.push(outcome.result);
      }
    } finally {
      process.off("SIGINT", onSigint);
    }
    const breaches = runs.flatMap((r) =>
      applyThresholds(r, report.thresholds).map((line) => `${r.mode}: ${line}`),
    );
    const comparison: Comparison = { schema: COMPARE_SCHEMA, runs };
    const toStdout = json === "-";
    if (!quiet && runs.length === 2) {
      const stream = toStdout ? process.stderr : process.stdout;
      stream.write(renderCompare(runs, { color: Boolean(stream.isTTY) }));
    }
    if (json !== null) {
      if (toStdout) process.stdout.write(renderJson(comparison));
      else writeFileSync(json, renderJson(comparison));
    }
    if (report.html !== null && runs.length > 0) writeFileSync(report.html, renderHtml(runs));
    printBreaches(breaches);
    const sinkDiffers = runs.some(
      (r) => r.sink !== undefined && r.sink.messagesAccepted !== r.messages.accepted,
    );
    process.exitCode = interrupted ? 130 : breaches.length ? EXIT_THRESHOLDS : sinkDiffers ? 1 : 0;
  },
};
