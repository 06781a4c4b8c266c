/**
 * What the client knows of each message the gateway took, kept only when the run receives what
 * the gateway relays (--receive): the join (delivery/delivery-verdict.ts) needs each accepted message's
 * number, intended send time, time of the gateway's 250 and the queue id that 250 named.
 * Stored column-wise in growable typed arrays: 24 octets a message plus its queue id string.
 * A run that joins as it goes (--receive ADDR) takes the records every sweep and streams them
 * to the main thread's join, so the ledger holds a tenth of a second's; a run whose receiver is
 * elsewhere keeps them all for its result.
 */
import type { Static } from "@sinclair/typebox";
import type { AcceptLedger as AcceptLedgerSchema } from "../result/schema/delivery.js";
import type { AcceptRecorder, AcceptRecords } from "../stats/accept-records.js";
import { epochMs } from "../stats/clock.js";
import { withRoom } from "../stats/typed-room.js";

/** Accept records on their way from a thread to the main thread's join (--receive ADDR). */
export interface AcceptChunk {
  records: AcceptRecords;
  /** Epoch ms the chunk was taken: every 250 the thread saw until then is in it or before it. */
  throughMs: number;
  /** The thread's first connect, epoch ms; 0: none yet. */
  firstEventMs: number;
  /** The thread's last chunk: it has ended. */
  final: boolean;
}

export class AcceptLedger implements AcceptRecorder {
  private seqs = new Float64Array(1024);
  private intended = new Float64Array(1024);
  private accepted = new Float64Array(1024);
  private readonly queueIds: string[] = [];
  private size = 0;

  record(seq: number, intendedMs: number, acceptedMs: number, queueId: string): void {
    if (this.size === this.seqs.length) {
      this.seqs = withRoom(this.seqs, this.size + 1);
      this.intended = withRoom(this.intended, this.size + 1);
      this.accepted = withRoom(this.accepted, this.size + 1);
    }
    this.seqs[this.size] = seq;
    this.intended[this.size] = intendedMs;
    this.accepted[this.size] = acceptedMs;
    this.queueIds.push(queueId);
    this.size++;
  }

  /** Records taken so far (take()). */
  taken = 0;
  private stream: ((chunk: AcceptChunk) => void) | null = null;

  /** Hands the records to `hook` at every flush() (--receive ADDR joins as the run goes). */
  streamTo(hook: (chunk: AcceptChunk) => void): void {
    this.stream = hook;
  }

  /** The records since the last flush to the stream, if there is one; `final`: the last. */
  flush(firstEventMs: number, final: boolean): void {
    if (this.stream === null) return;
    this.stream({ records: this.take(), throughMs: epochMs(), firstEventMs, final });
  }

  /** The records not taken yet. */
  snapshot(): AcceptRecords {
    const n = this.size;
    return {
      seq: Array.from(this.seqs.subarray(0, n)),
      intendedMs: Array.from(this.intended.subarray(0, n)),
      acceptedMs: Array.from(this.accepted.subarray(0, n)),
      queueId: this.queueIds.slice(),
    };
  }

  /** The records since the last take, handed over and forgotten here. */
  take(): AcceptRecords {
    const out = this.snapshot();
    this.taken += this.size;
    this.size = 0;
    this.queueIds.length = 0;
    return out;
  }
}

/**
 * A run's accepted messages as its JSON result keeps them when the receiver runs elsewhere
 * (`--receive elsewhere`): defined in result-schema/delivery.ts.
 */
export type AcceptLedgerJson = Static<typeof AcceptLedgerSchema>;

/** The ledger of a run for its JSON result: the records with each message's class and recipients. */
export function acceptLedgerJson(
  runId: string,
  firstConnectMs: number,
  classes: readonly string[],
  accepts: AcceptRecords,
  messageOf: (seq: number) => { index: number; recipients: number },
): AcceptLedgerJson {
  const of = accepts.seq.map(messageOf);
  return {
    runId,
    firstConnectMs,
    classes: [...classes],
    ...accepts,
    classIndex: of.map((m) => m.index),
    recipients: of.map((m) => m.recipients),
  };
}
