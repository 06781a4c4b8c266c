/**
 * How `merge` combines each number of a Result across the shards of one run, keyed by the
 * figure's path (the paths of report/figure-table.ts and of the JSON Schema: "messages.accepted",
 * "classes[].apdex", "sink.classes.*.accepted"). A rule covers its path and everything under it,
 * so a section merged by one mechanism (the time series, the generator's threads) is one row.
 *
 * The rows do not drive the merge (result/merge-results.ts rebuilds the Result from the shards'
 * counters and histograms, as one generator would have); they say what it does, so that a figure
 * added to the definition without a decision here fails test/merge-rules.test.ts, which also
 * checks every `sum` row against a real merge.
 */

/**
 * sum: the shards' values added. span: the earliest start to the latest end. histogram:
 * recomputed from the shards' HDR histograms added together. derived: recomputed from the
 * merged counts (a rate, a ratio, the plateau, the knee). same: equal in every shard (a setting).
 * earliest: the first occurrence over all shards. perShard: each shard's rows kept, named after
 * their shard. absent: not in a merged result, with the reason in the row's note.
 */
export type Combine =
  | "sum"
  | "span"
  | "histogram"
  | "derived"
  | "same"
  | "earliest"
  | "perShard"
  | "absent";

export interface MergeRule {
  path: string;
  combine: Combine;
  /** Why, where the kind alone does not say. */
  note?: string;
}

const rule = (path: string, combine: Combine, note?: string): MergeRule =>
  note === undefined ? { path, combine } : { path, combine, note };

const sums = (section: string, keys: readonly string[]): MergeRule[] =>
  keys.map((key) => rule(`${section}.${key}`, "sum"));

const OUTCOMES = ["attempted", "accepted", "rejected", "failed", "unconfirmed"] as const;

export const MERGE_RULES: readonly MergeRule[] = [
  rule("elapsedSeconds", "span"),
  rule("sessions", "sum", "each shard's own part of -s"),
  ...sums("messages", [...OUTCOMES, "dropped", "scheduled"]),
  ...sums("accounting", ["asked", "started", "unsent", "dropped", "stopped"]),
  ...sums("recipients", ["attempted", "accepted", "rejected"]),
  ...sums("connections", ["opened", "established", "refused", "reconnects"]),
  rule("connections.perMessage", "derived"),
  rule("throughput", "derived", "from the merged counts and the merged time series"),
  rule("latency", "histogram"),
  rule("latencyUncorrected", "histogram"),
  rule("errors[].count", "sum", "rows of the same reply, enhanced code, phase and text"),
  rule("errorClasses", "sum"),
  rule("warnings[].count", "sum", "by code; the first reply of the first shard that had one"),
  rule("firstSeen", "earliest", "the interval only: a shard's connection ordinals are its own"),
  rule("knee", "derived", "from the merged time series"),
  rule("apdex", "same"),
  ...sums("allClasses", OUTCOMES),
  ...sums("classes[]", OUTCOMES),
  ...["allClasses", "classes[]"].flatMap((c) => [
    rule(`${c}.errorPercent`, "derived"),
    rule(`${c}.messagesPerSecond`, "derived"),
    rule(`${c}.apdex`, "histogram"),
    rule(`${c}.transactionMs`, "histogram"),
    rule(`${c}.envelopeMs`, "histogram"),
    rule(`${c}.dataMs`, "histogram"),
  ]),
  rule("series.intervalMs", "same"),
  rule("series.points[]", "sum", "aligned on epoch time; p50Ms, p99Ms from the added histograms"),
  rule("thresholds", "absent", "judged by a run; merge judges none"),
  rule("sources", "absent", "the message files a shard loaded; merge keeps no run record"),
  ...sums("tls", ["full", "resumed"]),
  rule("tls.seen[].count", "sum", "by version and cipher"),
  rule("tls.fullMs", "histogram"),
  rule("tls.resumedMs", "histogram"),
  ...sums("sink", ["messagesAccepted", "sessions", "connectionsRefused"]),
  rule("sink.classes", "absent", "a p99 per class cannot be added up; the sink's totals can"),
  rule("shard", "perShard", "moved into shards[]"),
  rule("shards", "perShard"),
  rule("generator", "perShard", "every shard's threads, judged again together"),
  rule("delivery", "absent", "joined again from the kept ledgers (merge --arrivals)"),
  rule("acceptLedger", "perShard"),
  rule("repeat", "absent", "the spread of repeated runs; merge joins the shards of one run"),
];

/** The rule for a field's path: its own row, or the row of a section it lies in; else null. */
export function mergeRuleOf(path: string): MergeRule | null {
  let best: MergeRule | null = null;
  for (const r of MERGE_RULES) {
    const covers =
      path === r.path || path.startsWith(`${r.path}.`) || path.startsWith(`${r.path}[]`);
    if (covers && (best === null || r.path.length > best.path.length)) best = r;
  }
  return best;
}
