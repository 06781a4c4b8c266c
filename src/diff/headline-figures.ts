/**
 * A run's headline figures (result-schema/repeat.ts defines each, with which way is better)
 * read from its Result, and each figure's direction read from the shipped schema: the figure's
 * definition is the one place that says whether more is better.
 */
import type { Static } from "@sinclair/typebox";
import type { Result } from "../result/result.js";
import type { Better } from "../result/schema/define.js";
import { HEADLINE_FIGURES, type HeadlineFigure } from "../result/schema/names.js";
import type { HeadlineFigures as HeadlineSchema } from "../result/schema/repeat.js";
import { shippedResultSchema } from "../result/shipped-schema.js";

export { HEADLINE_FIGURES, type HeadlineFigure };
export type HeadlineFigures = Static<typeof HeadlineSchema>;
export type { Better };

/** A latency's percentile, or null when it has no sample. */
function percentile(summary: { count: number; p50: number; p95: number; p99: number } | undefined) {
  return (at: "p50" | "p95" | "p99") =>
    summary === undefined || summary.count === 0 ? null : summary[at];
}

/**
 * The generator's CPU milliseconds per message attempted. Rows with a per-thread clock add up;
 * a process-wide row (no per-thread clock) already counts every thread, so it counts once.
 */
function cpuMsPerMessage(r: Result): number | null {
  const threads = r.generator?.threads ?? [];
  if (threads.length === 0 || r.messages.attempted === 0) return null;
  const own = threads.filter((t) => t.cpuScope === "thread").reduce((s, t) => s + t.cpuSeconds, 0);
  const process = Math.max(
    0,
    ...threads.filter((t) => t.cpuScope === "process").map((t) => t.cpuSeconds),
  );
  return ((own + process) * 1000) / r.messages.attempted;
}

/** The headline figures of one run. */
export function headlineFigures(r: Result): HeadlineFigures {
  const transaction = percentile(r.latency.transactionMs);
  const delivery = r.delivery;
  return {
    throughput: r.throughput.messagesPerSecond,
    plateauThroughput: r.throughput.plateau?.messagesPerSecond ?? null,
    transactionP50Ms: transaction("p50"),
    transactionP99Ms: transaction("p99"),
    connectP99Ms: percentile(r.latency.connectMs)("p99"),
    errorPercent: r.allClasses.errorPercent,
    connectionsPerMessage: r.connections.perMessage,
    cpuMsPerMessage: cpuMsPerMessage(r),
    tlsHandshakeP50Ms: percentile(r.latency.tlsMs)("p50"),
    deliveryP95Ms: delivery ? percentile(delivery.endToEndMs)("p95") : null,
    relayedPerSecond: delivery?.relayedPerSecond ?? null,
    backlogMax: delivery?.backlogMax ?? null,
  };
}

let directions: Record<string, Better> | null = null;

/** Which way a headline figure is better: its definition's `better` keyword. */
export function betterOf(figure: HeadlineFigure): Better {
  if (directions === null) {
    const defs = (shippedResultSchema().$defs ?? {}) as Record<string, { properties?: object }>;
    const properties = (defs.headlineFigures?.properties ?? {}) as Record<
      string,
      { better?: Better }
    >;
    directions = Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => [name, schema.better ?? "higher"]),
    );
  }
  const direction = directions[figure];
  if (direction === undefined) throw new Error(`the shipped schema defines no headline ${figure}`);
  return direction;
}
