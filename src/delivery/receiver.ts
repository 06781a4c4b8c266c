/**
 * The receiving end of a run through a gateway: each message the sink takes is found by its
 * keys (X-Mailvolley-Id, then the Message-ID mailvolley wrote, then MAIL's ENVID) and recorded
 * under its run and number; delivery notices (DSNs, RFC 3464) are joined back to the message
 * they report on (Original-Envelope-Id, or the returned message's own keys) and never counted
 * as mail; refusals the sink's faults gave are counted against the message and the recipient
 * they hit, so that a later arrival of that recipient is known as a retry, and a 5xx as the
 * gateway giving it up.
 *
 * A run's own sink (--receive) knows its run id and counts every other key as foreign. A sink
 * on another host (`mailvolley sink --json`) knows no run: it records each run whose keys it
 * finds, and `report --arrivals` joins them offline. The receiver keeps nothing per message
 * itself: its store does (the run's streaming join, or the log of every run).
 */

import type { ArrivalListener } from "../sink/arrival-listener.js";
import type { Envelope } from "../sink/envelope-log.js";
import { UsageError } from "../usage/usage-error.js";
import { ArrivalLog, type ArrivalStore } from "./arrival-store.js";
import type { ArrivalCounts, ArrivalRecord, JoinKey, RunArrivals } from "./records.js";

const HEADER_END = Buffer.from("\r\n\r\n", "latin1");
/** A run id as mailvolley makes them: lower-case hex. */
const ANY_RUN = "[0-9a-f]+";

interface Found {
  runId: string;
  seq: number;
  key: JoinKey;
}

export class Receiver implements ArrivalListener {
  readonly counts: ArrivalCounts = { foreign: 0, notices: 0, noticesUnjoined: 0, lastArrivalMs: 0 };
  /**
   * Messages accounted for, the drain's count: every recipient arrived or given up by the
   * gateway (a 5xx, a notice). A store that knows no recipients counts first arrivals.
   */
  accounted = 0;
  /** Arrivals after this epoch ms are late (set when the drain ends). */
  lateAfterMs = Number.POSITIVE_INFINITY;
  private readonly idField: Buffer;
  private readonly idPattern: RegExp;
  private readonly messageIdPattern: RegExp;
  private readonly envidPattern: RegExp;
  private readonly tagPattern: RegExp;

  /**
   * `runId`: the one run this receiver joins for; null: every run it finds (sink --json).
   * `store`: where each message found goes; by default a log that keeps them all.
   */
  constructor(
    private readonly runId: string | null,
    readonly store: ArrivalStore = new ArrivalLog(),
  ) {
    const run = runId ?? ANY_RUN;
    this.idField = Buffer.from(`X-Mailvolley-Id: ${runId === null ? "" : `${runId}.`}`, "latin1");
    this.idPattern = new RegExp(`x-mailvolley-id:\\s*(${run})\\.(\\d+)`, "i");
    this.messageIdPattern = new RegExp(
      `message-id:\\s*<(\\d+)\\.(${run})@mailvolley\\.invalid>`,
      "i",
    );
    this.envidPattern = new RegExp(`^(${run})\\.(\\d+)$`);
    this.tagPattern = new RegExp(`\\+(${run})\\.(\\d+)@`, "i");
  }

  /** Per run id, what a log-backed receiver kept; empty when the store is a join. */
  get runs(): ReadonlyMap<string, RunArrivals> {
    return this.store instanceof ArrivalLog ? this.store.runs : new Map();
  }

  /** The arrivals a log-backed receiver kept of the run it was made for. */
  get arrivals(): ReadonlyMap<number, ArrivalRecord> {
    return this.runs.get(this.runId ?? "")?.arrivals ?? new Map();
  }

  /** The run and number an ENVID names, or null. */
  private ofEnvid(envid: string | undefined): Found | null {
    if (!envid) return null;
    const m = this.envidPattern.exec(envid);
    return m ? { runId: m[1], seq: Number(m[2]), key: "envid" } : null;
  }

  /** The run and number a recipient's +tag names (--tag-recipients), or null. */
  private ofTag(envelope: Envelope | null): Found | null {
    for (const rcpt of envelope?.rcpts ?? []) {
      const m = this.tagPattern.exec(rcpt);
      if (m) return { runId: m[1], seq: Number(m[2]), key: "tag" };
    }
    return null;
  }

  /** The key of a message the header block names, else its envelope; null when none. */
  private find(text: Buffer, envelope: Envelope | null): Found | null {
    return this.findInHeader(text) ?? this.ofEnvid(envelope?.envid) ?? this.ofTag(envelope);
  }

  /** The run and number `text` (a header block) names, and by which key; null when none. */
  private findInHeader(text: Buffer): Found | null {
    // The usual case, the header as written: one native search, no string made.
    const at = text.indexOf(this.idField);
    if (at >= 0) {
      let i = at + this.idField.length;
      let runId = this.runId;
      if (runId === null) {
        const dot = text.indexOf(46, i); // "."
        if (dot > i && dot - i <= 64) {
          runId = text.toString("latin1", i, dot);
          i = dot + 1;
        }
      }
      let seq = 0;
      const digits = i;
      for (; i < text.length && text[i] >= 48 && text[i] <= 57; i++) seq = seq * 10 + text[i] - 48;
      if (runId !== null && i > digits) return { runId, seq, key: "traceHeader" };
    }
    const s = text.toString("latin1");
    const id = this.idPattern.exec(s);
    if (id) return { runId: id[1], seq: Number(id[2]), key: "traceHeader" };
    const mid = this.messageIdPattern.exec(s);
    return mid ? { runId: mid[2], seq: Number(mid[1]), key: "messageId" } : null;
  }

  /** A message the sink accepted: `content` its start as received, `atMs` epoch ms. */
  arrived(content: Buffer, envelope: Envelope | null, atMs: number): void {
    const end = content.indexOf(HEADER_END);
    const head = end < 0 ? content : content.subarray(0, end);
    if (isNotice(head, envelope)) {
      this.notice(content, atMs);
      return;
    }
    const found = this.find(head, envelope);
    if (found === null) {
      this.counts.foreign++;
      return;
    }
    this.refusedEarlier(found, envelope);
    const late = atMs > this.lateAfterMs;
    const rcpts = envelope?.rcpts ?? [];
    if (this.store.copy(found.runId, found.seq, found.key, rcpts, atMs, late)) this.accounted++;
    if (!late) this.counts.lastArrivalMs = Math.max(this.counts.lastArrivalMs, atMs);
  }

  /**
   * The sink refused recipient `rcpt` at RCPT with `reply` (null: it closed without one, which
   * a gateway retries). Only MAIL's ENVID or the recipient's tag name the message before its
   * content: without them the refusal waits in the envelope for the content's keys.
   */
  refusedRcpt(envelope: Envelope | null, rcpt: string, reply: Buffer | null, atMs: number): void {
    const status = statusOf(reply);
    const found = this.ofEnvid(envelope?.envid) ?? this.ofTag({ from: "", rcpts: [rcpt] });
    if (found !== null) this.refusedOf(found, [rcpt], status, atMs);
    else if (envelope !== null) {
      envelope.unfound ??= [];
      envelope.unfound.push({ rcpt, status, atMs });
    }
  }

  /** The sink refused a whole transaction after its content (`reply`: its answer to the data). */
  refused(
    content: Buffer | null,
    envelope: Envelope | null,
    reply: Buffer | null,
    atMs: number,
  ): void {
    const found = content
      ? this.find(content, envelope)
      : (this.ofEnvid(envelope?.envid) ?? this.ofTag(envelope));
    if (found === null) return;
    this.refusedEarlier(found, envelope);
    this.refusedOf(found, envelope?.rcpts ?? [], statusOf(reply), atMs);
  }

  /** Recipients refused at RCPT before the content named the message. */
  private refusedEarlier(found: Found, envelope: Envelope | null): void {
    const unfound = envelope?.unfound;
    if (unfound === undefined) return;
    envelope!.unfound = undefined;
    for (const r of unfound) this.refusedOf(found, [r.rcpt], r.status, r.atMs);
  }

  private refusedOf(found: Found, rcpts: readonly string[], status: string, atMs: number): void {
    if (this.store.refused(found.runId, found.seq, found.key, rcpts, status, atMs)) {
      this.accounted++;
    }
  }

  /** A delivery notice: joined to its message (which is then bounced) or counted unjoined. */
  private notice(content: Buffer, atMs: number): void {
    this.counts.notices++;
    const text = content.toString("latin1");
    const envid = /original-envelope-id:\s*(\S+)/i.exec(text)?.[1];
    // The returned message (or its headers) follows the notice: its own keys.
    const found =
      this.ofEnvid(envid) ??
      this.findInHeader(content.subarray(Math.max(0, content.indexOf(HEADER_END))));
    if (found === null) {
      this.counts.noticesUnjoined++;
      return;
    }
    const report = recipientReport(text);
    // A notice of delay (RFC 3464 §2.3.3 Action: delayed) gives nothing up.
    if (report.named && report.failed.length === 0) return;
    const status = report.status || (/^status:\s*(\d\.\d+\.\d+)/im.exec(text)?.[1] ?? "5.0.0");
    if (this.store.notice(found.runId, found.seq, status, report.failed, atMs)) this.accounted++;
  }
}

/**
 * The enhanced status of a refusal (RFC 3463 §2: `550 5.3.0 …`), or its class's `X.0.0` when
 * the reply has none; no reply at all (the connection closed) is temporary.
 */
export function statusOf(reply: Buffer | null): string {
  if (reply === null) return "4.0.0";
  const text = reply.toString("latin1", 0, Math.min(reply.length, 32));
  const enhanced = /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(text);
  if (enhanced) return enhanced[1];
  return `${text[0] === "5" ? 5 : 4}.0.0`;
}

/**
 * The per-recipient fields of a delivery status notification (RFC 3464 §2.3): the recipients
 * whose Action is failed, and the first of their Status values. `named`: the notice named any
 * recipient at all.
 */
export function recipientReport(text: string): {
  named: boolean;
  failed: string[];
  status: string;
} {
  const failed: string[] = [];
  let named = false;
  let status = "";
  // RFC 3464 §2.1: per-recipient field groups are separated by blank lines.
  for (const group of text.split(/\r?\n\r?\n/)) {
    const rcpt = /^final-recipient:\s*[^;\r\n]*;\s*<?([^>\s]+)>?/im.exec(group)?.[1];
    if (rcpt === undefined) continue;
    named = true;
    if (!/^action:\s*failed/im.test(group)) continue;
    failed.push(rcpt);
    status ||= /^status:\s*(\d\.\d+\.\d+)/im.exec(group)?.[1] ?? "";
  }
  return { named, failed, status };
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

/**
 * A receiving sink that could not listen at `address` (given as `option`): bad input, one line,
 * before any traffic. An error that is no socket's (no errno code) goes on as it was.
 */
export function listenFailure(
  option: string,
  address: string,
  error: NodeJS.ErrnoException,
): Error {
  if (error instanceof UsageError || error.code === undefined) return error;
  const problem =
    address.startsWith("unix:") && error.code === "EACCES"
      ? "permission denied in the socket's directory"
      : listenProblem(error);
  return new UsageError(option, `cannot listen there: ${problem}`, address);
}

/** Why a listen address cannot be bound, in words. */
function listenProblem(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "EADDRINUSE":
      return "the address is in use (another server listens there); pick a free port";
    case "EADDRNOTAVAIL":
      return "the address is not one of this host's; give a local address, or 0.0.0.0";
    case "EACCES":
      return "permission denied (ports below 1024 need privileges); pick a port from 1024";
    case "ENOENT":
      return "the socket's directory does not exist";
    default:
      return `${error.code}: ${error.message}`;
  }
}
