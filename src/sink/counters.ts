/**
 * What the sink counts. The fields' doc comments are the one definition of each figure; the CLI
 * summary, its JSON file and the library's `stats()` all read them from here.
 */

import { summarise } from "../stats/collector.js";
import { LatencyRecorder, type LatencySummary, toMicros } from "../stats/histogram.js";

export interface SinkClassStats {
  /** Messages of this class answered 2xx after their data. */
  accepted: number;
  /** Messages of this class answered 4xx/5xx after their data. */
  rejected: number;
  /**
   * End-to-end latency of accepted messages: from the client's `X-Mailvolley-Sent` time to the
   * sink's final reply, in milliseconds. Messages without the header are not sampled.
   */
  latencyMs: LatencySummary;
}

/** The hot-path counters: plain numbers, incremented in place by every session. */
export interface SinkCounters {
  /** Connections accepted as sessions (given a 220 banner or a fault at connect). */
  sessions: number;
  /** Sessions open right now. */
  sessionsActive: number;
  /** Connections refused at the banner with 421 4.7.0 by the emulated connection limits. */
  connectionsRefused: number;
  /** Messages answered 2xx after the final dot (or BDAT LAST); LMTP: at least one recipient. */
  messagesAccepted: number;
  /** Messages answered 4xx/5xx after their data (size, faults, bare LF, line length). */
  messagesRejected: number;
  /** MAIL commands refused (message rate, messages per session, faults, auth, size). */
  mailRejected: number;
  /** RCPT commands answered 250. */
  recipients: number;
  /** RCPT commands answered 4xx/5xx (recipient limit, faults). */
  recipientsRejected: number;
  /** TLS handshakes (STARTTLS or implicit) that negotiated a new session. */
  tlsFull: number;
  /** TLS handshakes resumed from a session ticket the sink issued before. */
  tlsResumed: number;
  /** Octets of message content received as sent (dot-stuffed for DATA), without the final dot. */
  bytes: number;
  /** When the first connection arrived (epoch ms; 0: none yet): the start of the sink's window. */
  firstConnectMs: number;
  /** When the last message was accepted (epoch ms; 0: none yet): the end of the window. */
  lastMessageMs: number;
}

/** What the sink reports: its counters and, per class, counts and end-to-end latency. */
export interface SinkStats extends SinkCounters {
  /** Per message class (X-Mailvolley-Class header or --class-by-subject; else "default"). */
  classes: Record<string, SinkClassStats>;
}

export function zeroSinkCounters(): SinkCounters {
  return {
    sessions: 0,
    sessionsActive: 0,
    connectionsRefused: 0,
    messagesAccepted: 0,
    messagesRejected: 0,
    mailRejected: 0,
    recipients: 0,
    recipientsRejected: 0,
    bytes: 0,
    tlsFull: 0,
    tlsResumed: 0,
    firstConnectMs: 0,
    lastMessageMs: 0,
  };
}

interface ClassEntry {
  accepted: number;
  rejected: number;
  latency: LatencyRecorder;
}

/** Per-class counts and latency histograms (microseconds). */
export class ClassCounter {
  private readonly entries = new Map<string, ClassEntry>();

  private entry(name: string): ClassEntry {
    let entry = this.entries.get(name);
    if (entry === undefined) {
      entry = { accepted: 0, rejected: 0, latency: new LatencyRecorder() };
      this.entries.set(name, entry);
    }
    return entry;
  }

  /** `latencyMs` < 0 when the message carried no send time. */
  accepted(name: string, latencyMs: number): void {
    const entry = this.entry(name);
    entry.accepted++;
    if (latencyMs >= 0) entry.latency.record(toMicros(latencyMs));
  }

  rejected(name: string): void {
    this.entry(name).rejected++;
  }

  snapshot(): Record<string, SinkClassStats> {
    const out: Record<string, SinkClassStats> = {};
    for (const [name, entry] of this.entries) {
      out[name] = {
        accepted: entry.accepted,
        rejected: entry.rejected,
        latencyMs: summarise(entry.latency.read()),
      };
    }
    return out;
  }
}
