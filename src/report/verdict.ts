/**
 * Whose numbers these are: the generator verdict (Result.generator) in words, for the first
 * lines of every report, and the generator's own figures as a table. Terminal, HTML and
 * compare all read these, so the verdict reads the same everywhere.
 */
import { sinkAgrees } from "../result/accounting.js";
import type { GeneratorResult, LimitedBy, Result } from "../result/result.js";
import type { ThreadLoad } from "../stats/generator-load.js";
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
 * What a reader must know first, then who set the rate: through a gateway, mail lost, bounced
 * or doubled (deliveryAlarm), then the generator's verdict (rateVerdictLines).
 */
export function verdictLines(result: Result, who = ""): string[] {
  const alarm = deliveryAlarm(result);
  return [...(alarm ? [lead(who, alarm)] : []), ...rateVerdictLines(result, who)];
}

/**
 * Who set the rate, with what to do, then its reasons one a line, indented: "Limited by the
 * generator: this rate measures mailvolley, not the target: add --workers…", "  main thread
 * 97% busy: …". Empty for a result saved before the generator section existed.
 */
export function rateVerdictLines(result: Result, who = ""): string[] {
  const g = result.generator;
  if (!g) return [];
  const reasons = g.reasons.map((reason) => `  ${reason}`);
  const ceiling = ceilingLine(result);
  if (ceiling !== null) return [who ? `${who}: ${ceiling}` : ceiling, ...reasons];
  const verdict = `${LIMITED_BY_TEXT[g.limitedBy]}: ${g.advice}.`;
  const refused = selfTestRefusals(result);
  if (refused !== null) return [lead(who, `${refused}; ${verdict}`), ...reasons];
  return [lead(who, verdict), ...reasons];
}

/** "reuse run: text", or alone "Text". */
function lead(who: string, text: string): string {
  return who ? `${who}: ${text}` : capital(text);
}

/**
 * Through a gateway, mail that did not come out whole: "mail lost through the gateway: 100
 * lost of 2,000 accepted messages". null without --receive or when none was lost, bounced or
 * doubled.
 */
export function deliveryAlarm(result: Result): string | null {
  const d = result.delivery;
  if (!d) return null;
  const kinds = (
    [
      ["lost", d.lost],
      ["bounced", d.bounced],
      ["doubled", d.duplicated],
    ] as const
  ).filter(([, count]) => count > 0);
  if (kinds.length === 0) return null;
  const words = kinds.map(([word]) => word);
  const counts = kinds.map(([word, count]) => `${fmt(count)} ${word}`);
  return `mail ${inWords(words, "or")} through the gateway: ${inWords(counts, "and")} of ${fmt(d.accepted)} accepted messages (the delivery section names them)`;
}

/** "a", "a and b", "a, b and c". */
function inWords(parts: readonly string[], and: string): string {
  return parts.length < 2
    ? parts.join("")
    : `${parts.slice(0, -1).join(", ")} ${and} ${parts.at(-1)}`;
}

/** Messages a self-test's sink turned away or that failed, and connections it refused. */
function turnedAway(result: Result): number {
  return result.messages.rejected + result.messages.failed + result.connections.refused;
}

/**
 * A self-test whose sink refused or failed messages (its --sink-max-message-rate, --sink-fault,
 * an emulated gateway): those refusals are the result, not a generator ceiling. "refused by the
 * built-in sink, not a generator ceiling: 5,235 of 21,000 messages (24.9%) …"; null otherwise.
 */
export function selfTestRefusals(result: Result): string | null {
  // A sink that refused connections plays a gateway: the usual verdict applies (isSelfTest).
  if (!isSelfTest(result) || turnedAway(result) === 0) return null;
  const { messages, connections } = result;
  const away = messages.rejected + messages.failed;
  const share = messages.attempted > 0 ? ` (${fmt((100 * away) / messages.attempted, 1)}%)` : "";
  return `refused by the built-in sink, not a generator ceiling: ${fmt(away)} of ${fmt(messages.attempted)} messages${share} turned away by its limits or faults (${fmt(messages.rejected)} rejected, ${fmt(messages.failed)} failed, ${fmt(connections.refused)} connections refused)`;
}

/**
 * A self-test exists to measure the generator, so its limit is the result, not a fault:
 * "Generator ceiling on this machine: 41,200 messages/s (reuse), set by the main thread; the
 * sink counted 10,000 accepted, as the client did." null unless a self-test the generator set.
 */
export function ceilingLine(result: Result): string | null {
  const g = result.generator;
  if (!isSelfTest(result) || g?.limitedBy !== "generator" || !result.sink) return null;
  // Refusals or faults: what the sink did, not what the generator can, is the result.
  if (turnedAway(result) > 0) return null;
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
  if (selfTestRefusals(result) !== null) {
    return {
      text: "This run measured the built-in sink's refusals (its limits or faults), not the generator's ceiling.",
      measured: false,
    };
  }
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

/**
 * Open model: "start lateness p50 0.664 / p99 59.679 / max 158.591 ms; 30 of 2,000 arrivals
 * started more than 10.0 ms late; after the start-up p99 4.551 ms (start-up: 18 of its 200
 * late)": the figures the verdict judges, printed as it prints them.
 */
export function latenessLine(g: GeneratorResult): string | null {
  const l = g.lateness;
  if (!l) return null;
  const t = (value: number) => fmt(value, 3);
  const all = `start lateness p50 ${t(l.startMs.p50)} / p99 ${t(l.startMs.p99)} / max ${t(l.startMs.max)} ms; ${fmt(l.late)} of ${fmt(l.started)} arrivals started more than ${fmt(l.toleranceMs, 1)} ms late`;
  if (!l.startup?.started || !l.steadyStartMs) return all;
  return `${all}; after the start-up p99 ${t(l.steadyStartMs.p99)} ms (start-up: ${fmt(l.startup.late)} of its ${fmt(l.startup.started)} late)`;
}

/**
 * Lines wrapped at spaces to `width` columns (the terminal's), each continuation indented two
 * more than its line; unchanged without a width (not a terminal) or where a word is wider.
 */
export function wrapLines(lines: readonly string[], width: number | undefined): string[] {
  if (!width || width < 40) return [...lines];
  return lines.flatMap((line) => {
    const indent = line.length - line.trimStart().length;
    const more = " ".repeat(indent + 2);
    const out: string[] = [];
    let rest = line;
    let pad = "";
    while ((pad + rest).length > width) {
      const room = width - pad.length;
      const at = rest.lastIndexOf(" ", room);
      if (at <= rest.length - rest.trimStart().length) break;
      out.push(pad + rest.slice(0, at));
      rest = rest.slice(at + 1);
      pad = more;
    }
    out.push(pad + rest);
    return out;
  });
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
