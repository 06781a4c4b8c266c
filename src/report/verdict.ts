/**
 * Whose numbers these are: the generator verdict (Result.generator) in words, for the first
 * lines of every report, and the generator's own figures as a table. Terminal, HTML and
 * compare all read these, so the verdict reads the same everywhere.
 */
import { sinkAgrees } from "../stats/accounting.js";
import type { ThreadLoad } from "../stats/generator-load.js";
import type { GeneratorResult, LimitedBy, Result } from "../stats/result.js";
import { fmt, ms, runLabel } from "./figures.js";

/** How each verdict opens its sentence. */
export const LIMITED_BY_TEXT: Record<LimitedBy, string> = {
  generator: "limited by the generator",
  target: "limited by the target",
  schedule: "paced by the schedule",
  nobody: "nobody set the rate",
  undetermined: "limiter undetermined",
};

/**
 * The verdict with what to do, then its reasons one a line, indented: "Limited by the
 * generator: this rate measures mailvolley, not the target: add --workers…", "  main thread
 * 97% busy: …". Empty for a result saved before the generator section existed.
 */
export function verdictLines(result: Result, who = ""): string[] {
  const g = result.generator;
  if (!g) return [];
  const ceiling = ceilingLine(result);
  if (ceiling !== null) {
    return [who ? `${who}: ${ceiling}` : ceiling, ...g.reasons.map((reason) => `  ${reason}`)];
  }
  const head = who
    ? `${who}: ${LIMITED_BY_TEXT[g.limitedBy]}`
    : capital(LIMITED_BY_TEXT[g.limitedBy]);
  return [`${head}: ${g.advice}.`, ...g.reasons.map((reason) => `  ${reason}`)];
}

/**
 * A self-test exists to measure the generator, so its limit is the result, not a fault:
 * "Generator ceiling on this machine: 41,200 messages/s (reuse), set by the main thread; the
 * sink counted 10,000 accepted, as the client did." null unless a self-test the generator set.
 */
export function ceilingLine(result: Result): string | null {
  const g = result.generator;
  if (!isSelfTest(result) || g?.limitedBy !== "generator" || !result.sink) return null;
  const busiest = g.threads.reduce<ThreadLoad | null>(
    (a, t) => (a === null || t.cpuUtilisation > a.cpuUtilisation ? t : a),
    null,
  );
  const thread = busiest
    ? `, set by the ${busiest.name === "main" ? "main thread" : busiest.name}`
    : "";
  const counted = result.sink.messagesAccepted;
  const client = `the client ${fmt(result.messages.accepted)}`;
  const unconfirmed = fmt(result.messages.unconfirmed ?? 0);
  const agrees =
    counted === result.messages.accepted
      ? "as the client did"
      : sinkAgrees(result)
        ? `${client} and ${unconfirmed} unconfirmed`
        : `${client}: they differ`;
  return `Generator ceiling on this machine: ${fmt(result.throughput.messagesPerSecond, 1)} messages/s (${result.mode})${thread}; the sink counted ${fmt(counted)} accepted, ${agrees}.`;
}

/** "default 200 accepted, 0 rejected; bulk …": the sink's own count per class, or null. */
export function sinkClassesText(result: Result): string | null {
  const classes = Object.entries(result.sink?.classes ?? {});
  if (classes.length === 0) return null;
  return classes
    .map(([name, c]) => `${name} ${fmt(c.accepted)} accepted, ${fmt(c.rejected)} rejected`)
    .join("; ");
}

/** A run against the built-in sink with no emulated gateway refusing anything. */
export function isSelfTest(result: Result): boolean {
  return result.target === "embedded-sink" && !(result.sink?.connectionsRefused ?? 0);
}

/**
 * Whether a run's figures are the target's, from its recorded limitedBy: "measured the
 * target", or "did not measure the target" and who set the rate instead. null for a result
 * saved before the generator section existed.
 */
export function measuredLine(result: Result): { text: string; measured: boolean } | null {
  const g = result.generator;
  if (!g) return null;
  if (ceilingLine(result) !== null) {
    return {
      text: "This run measured the generator, not a target: a self-test against the built-in sink.",
      measured: false,
    };
  }
  const not = "This run did not measure the target";
  switch (g.limitedBy) {
    case "target":
      return { text: "This run measured the target: it set the rate.", measured: true };
    case "generator":
      return {
        text: `${not}: the generator set the rate (mailvolley's own limit).`,
        measured: false,
      };
    case "schedule":
      return {
        text: `${not}: the schedule (--rate, --ramp) set the rate, and the target kept up with it.`,
        measured: false,
      };
    case "nobody":
      return {
        text: `${not}: nobody set the rate (no connection reached it, or no message got an answer).`,
        measured: false,
      };
    default:
      return {
        text: "This run may not have measured the target: the limiter is undetermined.",
        measured: false,
      };
  }
}

/**
 * The first lines of a compare: each run's verdict and whether it measured the target, then
 * whether the reuse / per-message ratios measure the target at all.
 */
export function compareVerdictLines(runs: readonly Result[]): VerdictLine[] {
  const lines: VerdictLine[] = runs.flatMap((r) => {
    const alarm = r.generator?.limitedBy === "generator" && ceilingLine(r) === null;
    const measured = measuredLine(r);
    const verdict = verdictLines(r, `${runLabel(r, runs)} run`).map((text) => ({ text, alarm }));
    if (!measured) return verdict;
    return [...verdict, { text: `  ${measured.text}`, alarm }];
  });
  const ratios = ratioVerdict(runs);
  return ratios ? [...lines, ratios] : lines;
}

/** Whether a compare's ratios are the target's: null when no run was judged. */
export function ratioVerdict(runs: readonly Result[]): VerdictLine | null {
  const judged = runs.filter((r) => r.generator);
  if (judged.length === 0) return null;
  if (runs.every((r) => ceilingLine(r) !== null)) {
    return {
      text: `${everyRun(runs)} are self-tests: the ratios below compare the generator's ceilings ${runs.length > 2 ? "per mode and handshake" : "per mode"} on this machine.`,
      alarm: false,
    };
  }
  const bound = judged.filter((r) => r.generator?.limitedBy === "generator");
  if (bound.length > 0) {
    const which = bound.map((r) => `the ${runLabel(r, runs)} run`).join(" and ");
    return {
      text: `The ratios below measure mailvolley, not the target: ${which} ran at the generator's limit.`,
      alarm: true,
    };
  }
  if (judged.length === runs.length && judged.every((r) => r.generator?.limitedBy === "target")) {
    return {
      text: `${everyRun(runs)} were limited by the target: the ratios below are the target's.`,
      alarm: false,
    };
  }
  return null;
}

/** "Both runs", or with compare --starttls's three, "All three runs". */
function everyRun(runs: readonly Result[]): string {
  if (runs.length === 2) return "Both runs";
  return `All ${runs.length === 3 ? "three" : runs.length} runs`;
}

/** A line of the verdict, and whether it warns that the figures are mailvolley's own. */
export interface VerdictLine {
  text: string;
  alarm: boolean;
}

/** The run's verdict for a --fail-on-generator-bound gate: a line when it trips, else null. */
export function generatorBoundLine(result: Result): string | null {
  if (result.generator?.limitedBy !== "generator") return null;
  return `the generator set the rate of the ${result.mode} run (${result.generator.reasons.join("; ")})`;
}

const pct = (fraction: number) => `${Math.round(fraction * 100)}%`;

/** The per-thread rows of the generator table: name, CPU s, CPU %, ELU %, loop delay. */
export function threadRows(g: GeneratorResult): string[][] {
  return g.threads.map((t: ThreadLoad) => [
    t.name,
    t.cpuSeconds.toFixed(3),
    `${pct(t.cpuUtilisation)}${t.cpuScope === "process" ? " (process)" : ""}`,
    t.waitSeconds === null ? "-" : t.waitSeconds.toFixed(3),
    pct(t.eventLoopUtilisation),
    `${ms(t.eventLoopDelay.p50Ms)} / ${ms(t.eventLoopDelay.p99Ms)} / ${ms(t.eventLoopDelay.maxMs)}`,
  ]);
}

export const THREAD_COLUMNS = [
  "Generator thread",
  "CPU s",
  "CPU",
  "waiting s",
  "event loop busy",
  "loop delay p50 / p99 / max ms",
];

/** Open model: "start lateness p50 0.9 / p99 85.8 / max 95.8 ms; 155 of 2,000 started late". */
export function latenessLine(g: GeneratorResult): string | null {
  const l = g.lateness;
  if (!l) return null;
  return `start lateness p50 ${ms(l.startMs.p50)} / p99 ${ms(l.startMs.p99)} / max ${ms(l.startMs.max)} ms; ${fmt(l.late)} of ${fmt(l.started)} arrivals started more than ${fmt(l.toleranceMs, 1)} ms late`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
