/**
 * The arrivals a receiving sink on another host recorded (`mailvolley sink --json`, its
 * `arrivals` member), and the offline join of them with runs' accept ledgers (`report
 * --arrivals`, `merge --arrivals`): the same join as a run's own --receive, with the latencies
 * measured across two hosts' clocks.
 */
import { mergeAcceptRecords } from "../stats/accept-records.js";
import type { AcceptLedgerJson } from "./accept-ledger.js";
import { type JoinPart, joinDeliveries } from "./delivery-verdict.js";
import type {
  ArrivalCounts,
  ArrivalRecord,
  DeliveryResult,
  JoinKey,
  RunArrivals,
} from "./records.js";

/** One run's arrivals, column-wise: one entry per message that arrived or was refused. */
export interface RunArrivalsJson {
  /** Epoch ms of this run's last arrival, by the receiver's clock. */
  lastArrivalMs: number;
  seq: number[];
  /** Epoch ms of the first copy (before any: of the notice or 5xx refusal; 0: only 4xx refused). */
  firstMs: number[];
  copies: number[];
  /** Recipients that arrived, each once. */
  rcpts: number[];
  /** Arrivals of a recipient that had arrived before. */
  dupRcpts: number[];
  /** Refusals of the retried recipients before they arrived. */
  refusals: number[];
  /** Recipients that arrived after a refusal. */
  retried: number[];
  /** Per retried recipient: first refusal to arrival, ms. */
  retryDelaysMs: number[][];
  /** Recipients given up on (5xx, a notice), not arrived. */
  gaveUp: number[];
  /** Recipients refused with 4xx, not arrived. */
  pending: number[];
  /** The statuses of the 5xx refusal or notice that bounced it; "" when none. */
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
      dupRcpts: [],
      refusals: [],
      retried: [],
      retryDelaysMs: [],
      gaveUp: [],
      pending: [],
      bounceStatus: [],
      key: [],
    };
    for (const [seq, a] of run.arrivals) {
      r.seq.push(seq);
      r.firstMs.push(a.firstMs);
      r.copies.push(a.copies);
      r.rcpts.push(a.rcpts);
      r.dupRcpts.push(a.dupRcpts);
      r.refusals.push(a.refusals);
      r.retried.push(a.retried);
      r.retryDelaysMs.push([...a.retryDelaysMs]);
      r.gaveUp.push(a.gaveUp);
      r.pending.push(a.pending);
      r.bounceStatus.push(a.bounceStatus);
      r.key.push(a.key);
    }
    out.runs[runId] = r;
  }
  return out;
}

const COUNT_COLUMNS = [
  "seq",
  "copies",
  "rcpts",
  "dupRcpts",
  "refusals",
  "retried",
  "gaveUp",
  "pending",
] as const;
const KEYS: readonly string[] = ["traceHeader", "messageId", "envid", "tag"];
/** Enhanced statuses (RFC 3463 §2), space-separated; "" for none. */
const STATUSES = /^(?:[245]\.\d{1,3}\.\d{1,3}(?: [245]\.\d{1,3}\.\d{1,3})*)?$/;

const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

/**
 * The `arrivals` member of a sink's JSON, checked field by field (types, ranges, a time for
 * everything that arrived); throws an Error naming the first field that is wrong.
 */
export function checkArrivals(doc: unknown): ArrivalsJson {
  const a = (doc as { arrivals?: ArrivalsJson } | null)?.arrivals;
  if (typeof a !== "object" || a === null || typeof a.runs !== "object" || a.runs === null) {
    throw new Error("holds no arrivals: write it with `mailvolley sink --json FILE`");
  }
  for (const field of ["foreign", "notices", "noticesUnjoined"] as const) {
    if (!isCount(a[field])) throw new Error(`arrivals.${field}: ${shown(a[field])} is not a count`);
  }
  for (const [runId, run] of Object.entries(a.runs)) checkRun(runId, run);
  return a;
}

function checkRun(runId: string, run: RunArrivalsJson): void {
  const at = `arrivals.runs.${runId}`;
  if (typeof run !== "object" || run === null) throw new Error(`${at}: is not an object`);
  const n = Array.isArray(run.seq) ? run.seq.length : -1;
  const columns = [...COUNT_COLUMNS, "firstMs", "retryDelaysMs", "bounceStatus", "key"] as const;
  for (const c of columns) {
    if (!Array.isArray(run[c]) || run[c].length !== n) {
      throw new Error(
        `${at}.${c}: missing, or not one entry per message (write the file with this version's \`mailvolley sink --json\`)`,
      );
    }
  }
  if (!isTime(run.lastArrivalMs)) {
    throw new Error(`${at}.lastArrivalMs: ${shown(run.lastArrivalMs)} is not an epoch ms time`);
  }
  const bad = (c: string, i: number, what: string) =>
    new Error(
      `${at}.${c}[${i}]: ${shown((run as unknown as Record<string, unknown[]>)[c][i])} ${what}`,
    );
  const seqs = new Set<number>();
  for (let i = 0; i < n; i++) {
    for (const c of COUNT_COLUMNS) if (!isCount(run[c][i])) throw bad(c, i, "is not a count");
    if (seqs.has(run.seq[i])) throw bad("seq", i, "appears twice");
    seqs.add(run.seq[i]);
    if (!isTime(run.firstMs[i])) throw bad("firstMs", i, "is not an epoch ms time");
    const arrived = run.copies[i] > 0 || run.bounceStatus[i] !== "" || run.gaveUp[i] > 0;
    if (arrived && run.firstMs[i] === 0)
      throw bad("firstMs", i, "is no time for a message that arrived");
    const delays = run.retryDelaysMs[i];
    if (!Array.isArray(delays) || delays.length !== run.retried[i] || !delays.every(isTime)) {
      throw bad("retryDelaysMs", i, "is not one delay (ms) per retried recipient");
    }
    if (typeof run.bounceStatus[i] !== "string" || !STATUSES.test(run.bounceStatus[i])) {
      throw bad("bounceStatus", i, 'is not "" or enhanced statuses such as "5.1.1"');
    }
    if (!KEYS.includes(run.key[i])) throw bad("key", i, `is not one of ${KEYS.join(", ")}`);
  }
}

/** A value as a user wrote it, short. */
function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * The first message number of run `runId` in `a` that the run never sent (`messages`: the
 * numbers it scheduled, 0 … messages - 1), as an error text; "" when all are inside the run.
 */
export function outsideRun(a: ArrivalsJson, runId: string, messages: number): string {
  const run = a.runs[runId];
  if (run === undefined) return "";
  const i = run.seq.findIndex((seq) => seq >= messages);
  return i < 0
    ? ""
    : `arrivals.runs.${runId}.seq[${i}]: message ${run.seq[i]} is beyond the run's ${messages} messages`;
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
      dupRcpts: r.dupRcpts[i],
      refusals: r.refusals[i],
      retried: r.retried[i],
      retryDelaysMs: r.retryDelaysMs[i],
      gaveUp: r.gaveUp[i],
      pending: r.pending[i],
      bounceStatus: r.bounceStatus[i],
      key: r.key[i],
      late: false,
      recipients: null,
    });
    return;
  }
  // Two receivers each saw some recipients: they add up (the recipients' names are not kept).
  if (r.copies[i] > 0 && (seen.copies === 0 || r.firstMs[i] < seen.firstMs)) seen.key = r.key[i];
  seen.firstMs = firstOf(seen.firstMs, r.firstMs[i]);
  seen.copies += r.copies[i];
  seen.rcpts += r.rcpts[i];
  seen.dupRcpts += r.dupRcpts[i];
  seen.refusals += r.refusals[i];
  seen.retried += r.retried[i];
  seen.retryDelaysMs = [...seen.retryDelaysMs, ...r.retryDelaysMs[i]];
  seen.gaveUp += r.gaveUp[i];
  seen.pending += r.pending[i];
  seen.bounceStatus = [...new Set(`${seen.bounceStatus} ${r.bounceStatus[i]}`.trim().split(/ +/))]
    .filter((x) => x !== "")
    .join(" ");
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
    otherClock: true,
  });
}
