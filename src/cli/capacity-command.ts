/**
 * `mailvolley capacity [target]`: the highest rate the target sustains within its service
 * levels (src/capacity/), with the load options of `run`; its progress, signals, reports and
 * exit code (0: a rate found; 1: no step passed; 99: below --min; 2: bad input).
 */
import type { Argv } from "yargs";
import { findCapacity } from "../capacity/capacity.js";
import type { StepPlan } from "../capacity/judge.js";
import {
  buildCapacityCommandConfig,
  CAPACITY_OPTIONS,
  type CapacityCommandConfig,
} from "../config/capacity-options.js";
import { pickOptions } from "../config/option-rows.js";
import { LOAD_OPTIONS, RUN_OPTIONS } from "../config/option-table.js";
import type { RunConfig } from "../config/run-config.js";
import { rateText, renderCapacity } from "../report/capacity.js";
import { renderCapacityHtml } from "../report/html-capacity.js";
import { renderJson } from "../report/json.js";
import {
  CAPACITY_SCHEMA,
  type Capacity,
  type CapacityDocument,
  type CapacityStep,
} from "../result/capacity-result.js";
import type { RunIo } from "../run/run.js";
import { EXIT, type ExitCode, signalExitCode } from "./exit-codes.js";
import { type CommandArgv, tableOptions } from "./load-options.js";
import { checkWritable, exportsOf, writeOutput } from "./output.js";
import { pauseCountdown, progressPrinter } from "./progress.js";
import { announceStop, drainPrinter } from "./run-command.js";
import { StopSignals } from "./signals.js";
import { warnPlaintextAuth } from "./start-warnings.js";

/** Options of `run` whose job the search does (config/capacity-options.ts refuses them). */
const HIDDEN = [
  "rate",
  "ramp",
  "ramp-sessions",
  "ramp-up",
  "duration",
  "messages",
  "threshold",
  "abort-on-fail",
  "out",
  "fail-on-generator-bound",
  "shard",
  "start-at",
];

export const capacityCommand = {
  command: "capacity [target]",
  describe: "Find the highest rate the target sustains within its service levels",
  builder: (yargs: Argv) => {
    let y = tableOptions(tableOptions(yargs, LOAD_OPTIONS), CAPACITY_OPTIONS)
      .positional("target", {
        type: "string",
        describe: `${RUN_OPTIONS.target.describe} (none: the built-in sink)`,
      })
      .example([
        ["$0 capacity 127.0.0.1:2525 -s 20", "the rate it sustains, reuse mode"],
        ["$0 capacity gw:25 --receive 0.0.0.0:2526", "through the gateway: relayed in time"],
        ["$0 capacity gw:25 --mode both", "per-message and reuse side by side"],
        ["$0 capacity gw:25 --min 150/s --step 1m", "a CI gate: exit 99 below 150/s"],
      ]);
    for (const flag of HIDDEN) y = y.hide(flag);
    return y;
  },
  handler: async (argv: CommandArgv) => {
    const given = pickOptions({ ...LOAD_OPTIONS, ...CAPACITY_OPTIONS }, argv);
    const config = buildCapacityCommandConfig(given);
    const base = config.runs[0];
    warnPlaintextAuth(base, base.target);
    const exports = exportsOf<CapacityDocument>([
      ["--json", base.json, renderJson],
      ["--html", config.report.html, renderCapacityHtml],
    ]);
    checkWritable(exports);
    const signals = new StopSignals((signal, running) => {
      if (running) announceStop(signal, base.load.graceMs);
      else process.stderr.write(`\nmailvolley capacity: ${signal}: stopping; no further step\n`);
    });
    try {
      const sections: Capacity[] = [];
      for (const run of config.runs) {
        if (signals.received !== null) break;
        sections.push(await search(run, config, signals));
      }
      if (sections.length === 0) {
        process.exitCode = signalExitCode(signals.received ?? "SIGINT");
        return;
      }
      const doc = documentOf(sections);
      const written = writeOutput({ quiet: base.quiet, summary: renderCapacity, exports }, doc);
      const code = capacityExitCode(sections, config.search.minRate, signals);
      process.exitCode = written || code !== EXIT.ok ? code : EXIT.failed;
    } finally {
      signals.release();
    }
  },
};

/** With --mode both, per-message ran first; the document's `capacity` is reuse's. */
function documentOf(sections: readonly Capacity[]): CapacityDocument {
  const reuse = sections.find((s) => s.mode === "reuse");
  const perMessage = sections.find((s) => s.mode === "per-message");
  if (reuse && perMessage) return { schema: CAPACITY_SCHEMA, capacity: reuse, perMessage };
  return { schema: CAPACITY_SCHEMA, capacity: sections[0] };
}

/** 0: a sustained rate found; 1: no step passed; 99: below --min; a signal's own code. */
export function capacityExitCode(
  sections: readonly Capacity[],
  minRate: number | null,
  signals: StopSignals,
): ExitCode {
  if (signals.received !== null) return signalExitCode(signals.received);
  if (sections.some((s) => s.sustainedPerSecond === null)) return EXIT.failed;
  for (const s of sections) {
    if (minRate !== null && (s.sustainedPerSecond ?? 0) < minRate) {
      process.stderr.write(
        `mailvolley capacity: ${s.mode}: ${rateText(s.sustainedPerSecond ?? 0)} is below --min ${rateText(minRate)}\n`,
      );
      return EXIT.thresholds;
    }
  }
  return EXIT.ok;
}

/** One mode's search, its progress on stderr: which step, and what it waits for. */
async function search(
  base: RunConfig,
  config: CapacityCommandConfig,
  signals: StopSignals,
): Promise<Capacity> {
  const quiet = base.quiet;
  const say = (line: string) => {
    if (!quiet) process.stderr.write(`mailvolley capacity: ${line}\n`);
  };
  let stepNumber = 0;
  let finish = () => {};
  return findCapacity(
    base,
    config.search,
    {
      sink: config.sink,
      apdexMs: config.report.apdexMs,
      receive: config.receive,
      onDrain: quiet ? undefined : drainPrinter(process.stderr),
    },
    {
      io: (run: RunConfig, plan: StepPlan): RunIo => {
        stepNumber++;
        say(`${base.mode} step ${stepNumber} (${stepWhat(plan)}): ${stepLoad(run, plan)}…`);
        const printer = progressPrinter(process.stderr, quiet || base.verbose, {
          messages: Number.POSITIVE_INFINITY,
          durationMs: run.load.durationMs,
        });
        finish = () => printer.finish();
        return {
          onStart: (stop, drain) => signals.attach({ stop, drain }),
          progress: (progress) => printer.update(progress),
        };
      },
      done: (step: CapacityStep) => {
        signals.attach(null);
        finish();
        say(`  ${stepVerdict(step)}`);
      },
      stopped: () => signals.received !== null,
      pause: async (ms) => {
        say(`pausing ${(ms / 1000).toFixed(1)}s so the target empties its queues`);
        const clear = quiet ? () => {} : pauseCountdown(process.stderr, ms, "the next step");
        await signals.pause(ms).finally(clear);
      },
      now: () => performance.now(),
    },
  );
}

function stepWhat(plan: StepPlan): string {
  if (plan.purpose === "level") return `${plan.percent} % of the rate found`;
  return plan.purpose;
}

function stepLoad(run: RunConfig, plan: StepPlan): string {
  const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))}s`;
  if (plan.purpose === "estimate") {
    return `${run.sessions} sessions as fast as replies allow for ${seconds(plan.measuredMs)}`;
  }
  return `${rateText(plan.ratePerSecond)}, ${seconds(plan.warmupMs)} warm-up + ${seconds(plan.measuredMs)} measured`;
}

function stepVerdict(step: CapacityStep): string {
  const carried = `accepted ${rateText(step.acceptedPerSecond)}${
    step.deliveredPerSecond === null ? "" : `, delivered ${rateText(step.deliveredPerSecond)}`
  }`;
  if (step.purpose === "estimate") return `${carried}: the search starts near half of it`;
  const verdict = step.pass ? "pass" : `fail (${step.failed.join(", ")})`;
  return `${rateText(step.ratePerSecond)}: ${carried}; ${verdict}; generator: ${step.limitedBy}`;
}
