/**
 * The records of the messages a gateway accepted, as they cross threads in a snapshot, and what
 * the counters need of the ledger that keeps them (delivery/accept-ledger.ts, which run/ hands
 * a thread's RunStats with --receive). The shape lives in the leaf so that the snapshot that
 * carries the records, and the merge of threads and shards, need nothing above stats/.
 */

/** The ledger as it crosses threads: plain arrays, one entry per accepted message. */
export interface AcceptRecords {
  seq: number[];
  /** Epoch ms the message was due (the open model's schedule; its start in the closed model). */
  intendedMs: number[];
  /** Epoch ms of the gateway's final 2xx. */
  acceptedMs: number[];
  /** The queue id from `250 … queued as X`; "" when the reply named none. */
  queueId: string[];
}

/** What the counters hold of the ledger: the client records into it, a snapshot reads it. */
export interface AcceptRecorder {
  record(seq: number, intendedMs: number, acceptedMs: number, queueId: string): void;
  /** The records not taken yet. */
  snapshot(): AcceptRecords;
}

/** The threads' ledgers as one. */
export function mergeAcceptRecords(parts: readonly (AcceptRecords | undefined)[]): AcceptRecords {
  const out: AcceptRecords = { seq: [], intendedMs: [], acceptedMs: [], queueId: [] };
  for (const part of parts) {
    if (!part) continue;
    for (let i = 0; i < part.seq.length; i++) {
      out.seq.push(part.seq[i]);
      out.intendedMs.push(part.intendedMs[i]);
      out.acceptedMs.push(part.acceptedMs[i]);
      out.queueId.push(part.queueId[i]);
    }
  }
  return out;
}
