/**
 * One mailvolley run in a process of its own, measured from inside: the same path as
 * `mailvolley run` (options → buildRunConfig → executeRun) without the CLI's reporters, with
 * the process's CPU time (every thread) over the run, its RSS, and the CPU of a watched peer
 * (the sink) over the same window. Prints one JSON line (a DriveOutcome) on stdout.
 *
 * `npm run build` bundles it as the users' CLI is bundled (scripts/bundle.mjs), into
 * dist/bench/bundle/drive.js, which bench/lib/contenders.ts runs:
 *
 *   node dist/bench/bundle/drive.js '{"options":{"target":"127.0.0.1:2525","sessions":20},"watchPid":123}'
 */

import { buildRunConfig, type RawRunOptions } from "../src/config/run-config.js";
import { MessageFactory } from "../src/messages/factory.js";
import { executeRun } from "../src/run/run.js";
import { procCpuSeconds } from "./lib/proc.js";

export interface DriveSpec {
  options: RawRunOptions;
  /** A process whose CPU time over the run is reported (the sink). */
  watchPid?: number;
  /**
   * Message counts at which to record RSS (messages handed to the wire). Works with one worker
   * only: the counter lives on this thread.
   */
  checkpoints?: number[];
}

export interface Checkpoint {
  messages: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** V8's reserved heap: grows in steps as the young and old generations resize. */
  heapTotalBytes: number;
  /** Memory outside the V8 heap held by JS objects (Buffers among it). */
  externalBytes: number;
}

export interface DriveOutcome {
  accepted: number;
  attempted: number;
  failed: number;
  rejected: number;
  connectionsOpened: number;
  elapsedSeconds: number;
  messagesPerSecond: number;
  transactionP50Ms: number;
  /** This process, from just before executeRun to just after: µs of user and system CPU. */
  cpuUserUs: number;
  cpuSystemUs: number;
  /** This process from its start to the end of the run (Node start-up and imports included). */
  cpuProcessUs: number;
  wallMs: number;
  /** CPU seconds the watched process used over the same window. */
  watchedCpuSeconds: number | null;
  rssEndBytes: number;
  maxRssBytes: number;
  checkpoints: Checkpoint[];
  /** The run's own verdict on who set its rate, and the figures beside it (Result.generator). */
  generator: {
    limitedBy: string;
    reasons: string[];
    /**
     * Per thread: CPU utilisation, event-loop utilisation, loop delay p99 over the run, and the
     * CPU seconds of each interval of the time series (bench/idle.ts reads the steady ones).
     */
    threads: {
      name: string;
      cpu: number;
      elu: number;
      delayP99Ms: number;
      cpuSecondsPerInterval: number[];
      intervalMs: number;
    }[];
  } | null;
}

const spec = JSON.parse(process.argv[2]) as DriveSpec;
const config = buildRunConfig({ ...spec.options, quiet: true });
const checkpoints: DriveOutcome["checkpoints"] = [];
if (spec.checkpoints && spec.checkpoints.length > 0) countMessages(spec.checkpoints);

const watchedBefore = spec.watchPid ? procCpuSeconds(spec.watchPid) : 0;
const cpuBefore = process.cpuUsage();
const start = performance.now();
const { result } = await executeRun(config);
const wallMs = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
const whole = process.cpuUsage();
const watchedAfter = spec.watchPid ? procCpuSeconds(spec.watchPid) : 0;

const outcome: DriveOutcome = {
  accepted: result.messages.accepted,
  attempted: result.messages.attempted,
  failed: result.messages.failed,
  rejected: result.messages.rejected,
  connectionsOpened: result.connections.opened,
  elapsedSeconds: result.elapsedSeconds,
  messagesPerSecond: result.throughput.messagesPerSecond,
  transactionP50Ms: result.latency.transactionMs.p50,
  cpuUserUs: cpu.user,
  cpuSystemUs: cpu.system,
  cpuProcessUs: whole.user + whole.system,
  wallMs,
  watchedCpuSeconds: spec.watchPid ? watchedAfter - watchedBefore : null,
  rssEndBytes: process.memoryUsage.rss(),
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
  checkpoints,
  generator: result.generator
    ? {
        limitedBy: result.generator.limitedBy,
        reasons: result.generator.reasons,
        threads: result.generator.threads.map((t) => ({
          name: t.name,
          cpu: t.cpuUtilisation,
          elu: t.eventLoopUtilisation,
          delayP99Ms: t.eventLoopDelay.p99Ms,
          cpuSecondsPerInterval: t.points.map((p) => p.cpuSeconds),
          intervalMs: t.intervalMs,
        })),
      }
    : null,
};
process.stdout.write(`${JSON.stringify(outcome)}\n`);

/**
 * Wraps MessageFactory.content (called once per message content written) to record RSS when the
 * count reaches each checkpoint. Bench-only instrumentation; one call and a compare per message.
 */
function countMessages(at: number[]): void {
  const marks = [...at].sort((a, b) => a - b);
  const original = MessageFactory.prototype.content;
  let sent = 0;
  let next = 0;
  MessageFactory.prototype.content = function (this: MessageFactory, ...args) {
    sent++;
    if (next < marks.length && sent === marks[next]) {
      const mem = process.memoryUsage();
      checkpoints.push({
        messages: sent,
        rssBytes: mem.rss,
        heapUsedBytes: mem.heapUsed,
        heapTotalBytes: mem.heapTotal,
        externalBytes: mem.external,
      });
      next++;
    }
    return original.apply(this, args);
  };
}
