/**
 * The receiving end of a run through a gateway (--receive): each message the sink takes is
 * found by its keys (X-Mailvolley-Id, then the Message-ID mailvolley wrote, then MAIL's ENVID)
 * and recorded under its number; delivery notices (DSNs, RFC 3464) are joined back to the
 * message they report on (Original-Envelope-Id, or the returned message's own keys) and never
 * counted as mail; refusals the sink's faults gave are counted against the message they hit, so
 * a later arrival is known as a retry. One ArrivalRecord (about 100 octets in V8) per message
 * that arrived or was refused: the memory grows with the messages inside the gateway, not with
 * the run's total when the ledger of accepted messages is the one kept elsewhere.
 */
import type { ArrivalCounts, ArrivalRecord, JoinKey } from "../stats/delivery-result.js";
import type { Envelope } from "./envelope-log.js";

const HEADER_END = Buffer.from("\r\n\r\n", "latin1");

export class Receiver {
  readonly arrivals = new Map<number, ArrivalRecord>();
  readonly counts: ArrivalCounts = { foreign: 0, notices: 0, noticesUnjoined: 0, lastArrivalMs: 0 };
  /** Messages of this run that arrived (first copies, notices included): the drain's count. */
  accounted = 0;
  /** Arrivals after this epoch ms are late (set when the drain ends). */
  lateAfterMs = Number.POSITIVE_INFINITY;
  private readonly idField: Buffer;
  private readonly idPattern: RegExp;
  private readonly messageIdPattern: RegExp;
  private readonly envidPattern: RegExp;

  constructor(runId: string) {
    this.idField = Buffer.from(`X-Mailvolley-Id: ${runId}.`, "latin1");
    this.idPattern = new RegExp(`x-mailvolley-id:\\s*${runId}\\.(\\d+)`, "i");
    this.messageIdPattern = new RegExp(`message-id:\\s*<(\\d+)\\.${runId}@`, "i");
    this.envidPattern = new RegExp(`^${runId}\\.(\\d+)$`);
  }

  /** The message number an ENVID names, or -1. */
  private seqOfEnvid(envid: string | undefined): number {
    if (!envid) return -1;
    const m = this.envidPattern.exec(envid);
    return m ? Number(m[1]) : -1;
  }

  /** The message number `text` (a header block) names, and by which key; null when none. */
  private find(text: Buffer, envid: string | undefined): { seq: number; key: JoinKey } | null {
    // The usual case, the header as written: one native search, no string made.
    const at = text.indexOf(this.idField);
    if (at >= 0) {
      let seq = 0;
      let i = at + this.idField.length;
      for (; i < text.length && text[i] >= 48 && text[i] <= 57; i++) seq = seq * 10 + text[i] - 48;
      return { seq, key: "traceHeader" };
    }
    const s = text.toString("latin1");
    const id = this.idPattern.exec(s);
    if (id) return { seq: Number(id[1]), key: "traceHeader" };
    const mid = this.messageIdPattern.exec(s);
    if (mid) return { seq: Number(mid[1]), key: "messageId" };
    const seq = this.seqOfEnvid(envid);
    return seq >= 0 ? { seq, key: "envid" } : null;
  }

  private record(seq: number, key: JoinKey): ArrivalRecord {
    let a = this.arrivals.get(seq);
    if (a === undefined) {
      a = {
        firstMs: 0,
        copies: 0,
        rcpts: 0,
        refusals: 0,
        firstRefusalMs: 0,
        bounceStatus: "",
        key,
        late: false,
      };
      this.arrivals.set(seq, a);
    }
    return a;
  }

  /** A message the sink accepted: `content` its start as received, `atMs` epoch ms. */
  arrived(content: Buffer, envelope: Envelope | null, atMs: number): void {
    const end = content.indexOf(HEADER_END);
    const head = end < 0 ? content : content.subarray(0, end);
    if (isNotice(head, envelope)) {
      this.notice(content, atMs);
      return;
    }
    const found = this.find(head, envelope?.envid);
    if (found === null) {
      this.counts.foreign++;
      return;
    }
    const a = this.record(found.seq, found.key);
    if (a.copies === 0 && a.bounceStatus === "") {
      this.accounted++;
      a.firstMs = atMs;
      a.key = found.key;
      a.late = atMs > this.lateAfterMs;
    }
    a.copies++;
    a.rcpts += envelope ? Math.max(1, envelope.rcpts.length) : 1;
    if (atMs <= this.lateAfterMs)
      this.counts.lastArrivalMs = Math.max(this.counts.lastArrivalMs, atMs);
  }

  /** The sink refused a transaction of this run (a fault at RCPT or after the data). */
  refused(content: Buffer | null, envelope: Envelope | null, atMs: number): void {
    const found = content
      ? this.find(content, envelope?.envid)
      : ((seq) => (seq >= 0 ? { seq, key: "envid" as const } : null))(
          this.seqOfEnvid(envelope?.envid),
        );
    if (found === null) return;
    const a = this.record(found.seq, found.key);
    if (a.copies > 0) return; // a refusal of a later copy: not a retry of this one
    a.refusals++;
    if (a.firstRefusalMs === 0) a.firstRefusalMs = atMs;
  }

  /** A delivery notice: joined to its message (which is then bounced) or counted unjoined. */
  private notice(content: Buffer, atMs: number): void {
    this.counts.notices++;
    const text = content.toString("latin1");
    const envid = /original-envelope-id:\s*(\S+)/i.exec(text)?.[1];
    let seq = this.seqOfEnvid(envid);
    if (seq < 0) {
      // The returned message (or its headers) follows the notice: its own keys.
      const body = content.subarray(Math.max(0, content.indexOf(HEADER_END)));
      seq = this.find(body, undefined)?.seq ?? -1;
    }
    if (seq < 0) {
      this.counts.noticesUnjoined++;
      return;
    }
    const a = this.record(seq, "envid");
    if (a.bounceStatus === "" && a.copies === 0) this.accounted++;
    a.bounceStatus = /^status:\s*(\d\.\d+\.\d+)/im.exec(text)?.[1] ?? "5.0.0";
    if (a.firstMs === 0) a.firstMs = atMs;
  }
}

/**
 * A delivery notice: the null reverse-path (RFC 5321 §4.5.5) or a multipart/report of
 * delivery-status (RFC 3464 §2) in the header block.
 */
function isNotice(head: Buffer, envelope: Envelope | null): boolean {
  // The receiver keeps every envelope: the header is read only without one.
  if (envelope !== null) return envelope.from === "";
  return /content-type:\s*multipart\/report/i.test(head.toString("latin1"));
}
