/**
 * The arrivals a receiving sink on another host recorded (`mailvolley sink --json`, its
 * `arrivals` member), and the offline join of them with runs' accept ledgers (`report
 * --arrivals`, `merge --arrivals`): the same join as a run's own --receive, with the latencies
 * measured across two hosts' clocks.
 */
import { type AcceptLedgerJson, mergeAcceptRecords } from "./accept-ledger.js";
import { type JoinPart, joinDeliveries } from "./delivery.js";
import type {
  ArrivalCounts,
  ArrivalRecord,
  DeliveryResult,
  JoinKey,
  RunArrivals,
} from "./delivery-result.js";

/** One run's arrivals, column-wise: one entry per message that arrived or was refused. */
export interface RunArrivalsJson {
  /** Epoch ms of this run's last arrival, by the receiver's clock. */
  lastArrivalMs: number;
  seq: number[];
  /** Epoch ms of the first copy (0: only refused or a notice), by the receiver's clock. */
  firstMs: number[];
  copies: number[];
  rcpts: number[];
  refusals: number[];
  firstRefusalMs: number[];
  /** The Status of the notice that came back; "" when none did. */
  bounceStatus: string[];
  key: JoinKey[];
}

/** What `sink --json` writes under `arrivals`. */
export interface ArrivalsJson extends Omit<ArrivalCounts, "lastArrivalMs"> {
  /** Per run id: the runs whose keys the sink found. */
  runs: Record<string, RunArrivalsJson>;
}

export function arrivalsJson(
  runs: ReadonlyMap<string, RunArrivals>,
  counts: ArrivalCounts,
): ArrivalsJson {
  const out: ArrivalsJson = {
    foreign: counts.foreign,
    notices: counts.notices,
    noticesUnjoined: counts.noticesUnjoined,
    runs: {},
  };
  for (const [runId, run] of runs) {
    const r: RunArrivalsJson = {
      lastArrivalMs: run.lastArrivalMs,
      seq: [],
      firstMs: [],
      copies: [],
      rcpts: [],
      refusals: [],
      firstRefusalMs: [],
      bounceStatus: [],
      key: [],
    };
    for (const [seq, a] of run.arrivals) {
      r.seq.push(seq);
      r.firstMs.push(a.firstMs);
      r.copies.push(a.copies);
      r.rcpts.push(a.rcpts);
      r.refusals.push(a.refusals);
      r.firstRefusalMs.push(a.firstRefusalMs);
      r.bounceStatus.push(a.bounceStatus);
      r.key.push(a.key);
    }
    out.runs[runId] = r;
  }
  return out;
}

const COLUMNS = [
  "seq",
  "firstMs",
  "copies",
  "rcpts",
  "refusals",
  "firstRefusalMs",
  "bounceStatus",
  "key",
] as const;

/** The `arrivals` member of a sink's JSON, checked; throws an Error naming what is wrong. */
export function checkArrivals(doc: unknown): ArrivalsJson {
  const a = (doc as { arrivals?: ArrivalsJson } | null)?.arrivals;
  if (typeof a !== "object" || a === null || typeof a.runs !== "object" || a.runs === null) {
    throw new Error("holds no arrivals: write it with `mailvolley sink --json FILE`");
  }
  for (const [runId, run] of Object.entries(a.runs)) {
    const n = Array.isArray(run?.seq) ? run.seq.length : -1;
    if (n < 0 || COLUMNS.some((c) => !Array.isArray(run[c]) || run[c].length !== n)) {
      throw new Error(`run ${runId}: its arrival columns are missing or of different lengths`);
    }
  }
  return a;
}

/** Several sinks' arrivals (a gateway relaying to more than one receiver) as one per run. */
export function mergeArrivals(files: readonly ArrivalsJson[]): {
  runs: Map<string, RunArrivals>;
  counts: Omit<ArrivalCounts, "lastArrivalMs">;
} {
  const runs = new Map<string, RunArrivals>();
  const counts = { foreign: 0, notices: 0, noticesUnjoined: 0 };
  for (const file of files) {
    counts.foreign += file.foreign;
    counts.notices += file.notices;
    counts.noticesUnjoined += file.noticesUnjoined;
    for (const [runId, r] of Object.entries(file.runs)) {
      let run = runs.get(runId);
      if (run === undefined) {
        run = { arrivals: new Map(), lastArrivalMs: 0 };
        runs.set(runId, run);
      }
      run.lastArrivalMs = Math.max(run.lastArrivalMs, r.lastArrivalMs);
      for (let i = 0; i < r.seq.length; i++) addArrival(run.arrivals, r, i);
    }
  }
  return { runs, counts };
}

/** Entry `i` of `r` into `arrivals`, added to what another sink recorded of the same message. */
function addArrival(arrivals: Map<number, ArrivalRecord>, r: RunArrivalsJson, i: number): void {
  const seen = arrivals.get(r.seq[i]);
  const firstOf = (x: number, y: number) => (x === 0 ? y : y === 0 ? x : Math.min(x, y));
  if (seen === undefined) {
    arrivals.set(r.seq[i], {
      firstMs: r.firstMs[i],
      copies: r.copies[i],
      rcpts: r.rcpts[i],
      refusals: r.refusals[i],
      firstRefusalMs: r.firstRefusalMs[i],
      bounceStatus: r.bounceStatus[i],
      key: r.key[i],
      late: false,
    });
    return;
  }
  if (r.copies[i] > 0 && (seen.copies === 0 || r.firstMs[i] < seen.firstMs)) seen.key = r.key[i];
  seen.firstMs = firstOf(seen.firstMs, r.firstMs[i]);
  seen.copies += r.copies[i];
  seen.rcpts += r.rcpts[i];
  seen.refusals += r.refusals[i];
  seen.firstRefusalMs = firstOf(seen.firstRefusalMs, r.firstRefusalMs[i]);
  seen.bounceStatus ||= r.bounceStatus[i];
}

/**
 * The delivery section of runs whose ledgers (one per run, or per shard) are joined with
 * arrivals a sink elsewhere recorded. The latencies cross two clocks: the result says so.
 */
export function joinArrivals(
  ledgers: readonly AcceptLedgerJson[],
  arrivals: ReturnType<typeof mergeArrivals>,
  receiver: string,
): DeliveryResult {
  const classNames = [...new Set(ledgers.flatMap((l) => l.classes))];
  // The shards of one run share its run id and its arrivals: one part per run.
  const byRun = new Map<string, AcceptLedgerJson[]>();
  for (const l of ledgers) byRun.set(l.runId, [...(byRun.get(l.runId) ?? []), l]);
  const parts = [...byRun].map(([runId, shards]): JoinPart => {
    const shape = new Map<number, { cls: number; recipients: number }>();
    for (const l of shards) {
      const classIndex = l.classes.map((name) => classNames.indexOf(name));
      for (let i = 0; i < l.seq.length; i++) {
        shape.set(l.seq[i], { cls: classIndex[l.classIndex[i]] ?? 0, recipients: l.recipients[i] });
      }
    }
    const run = arrivals.runs.get(runId);
    return {
      runId,
      accepts: shards.length === 1 ? shards[0] : mergeAcceptRecords(shards),
      arrivals: run?.arrivals ?? new Map(),
      lastArrivalMs: run?.lastArrivalMs ?? 0,
      classOf: (seq) => shape.get(seq)?.cls ?? 0,
      recipientsOf: (seq) => shape.get(seq)?.recipients ?? 1,
    };
  });
  // Mail of other runs (another job through the same receiver) is foreign to these.
  let others = 0;
  for (const [runId, run] of arrivals.runs) {
    if (byRun.has(runId)) continue;
    for (const a of run.arrivals.values()) if (a.copies > 0) others++;
  }
  return joinDeliveries({
    receiver,
    parts,
    counts: { ...arrivals.counts, foreign: arrivals.counts.foreign + others },
    classNames,
    firstConnectMs: Math.min(...ledgers.map((l) => l.firstConnectMs)),
    drainTimedOut: false,
    otherClock: true,
  });
}
