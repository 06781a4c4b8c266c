/**
 * `sink --log-envelopes FILE`: one JSON line per finished transaction (the time of its final
 * reply, MAIL FROM, the accepted RCPT TOs, accepted or not), as the seed's MsgSink logs each
 * MAIL FROM: a replay can be checked against what arrived, sender by sender. Only sessions of a
 * sink with the log on keep the addresses; the hot path of others is unchanged.
 */
import { createWriteStream, openSync, type WriteStream } from "node:fs";

/** The addresses of the transaction in progress. */
export interface Envelope {
  readonly from: string;
  readonly rcpts: string[];
  /** MAIL's ENVID= (RFC 3461 §4.4), kept when the sink receives for a run (--receive). */
  envid?: string;
  /** Recipients refused at RCPT that no key named yet: the content's keys will (--receive). */
  unfound?: { rcpt: string; status: string; atMs: number }[];
}

/** The path of a MAIL FROM:<path> or RCPT TO:<path> argument `buf[start, end)`, brackets off. */
export function pathArgument(buf: Buffer, start: number, end: number): string {
  const text = buf.toString("latin1", start, end).trimStart();
  if (text.startsWith("<")) {
    const close = text.indexOf(">");
    return close === -1 ? text.slice(1) : text.slice(1, close);
  }
  const space = text.indexOf(" ");
  return space === -1 ? text : text.slice(0, space);
}

export class EnvelopeLog {
  private readonly stream: WriteStream;
  /** Lines the file did not take (a full disk): counted, reported on exit. */
  errors = 0;
  firstError = "";

  /** Opens (appends to) `path` now, so a path that cannot be written fails the sink's start. */
  constructor(path: string) {
    const fd = openSync(path, "a", 0o600);
    this.stream = createWriteStream("", { fd });
    this.stream.on("error", (error) => {
      this.errors++;
      this.firstError ||= error.message;
    });
  }

  write(envelope: Envelope | null, accepted: boolean): void {
    if (envelope === null) return;
    const time = new Date().toISOString();
    const line = { time, from: envelope.from, rcpts: envelope.rcpts, accepted };
    this.stream.write(`${JSON.stringify(line)}\n`);
  }

  /** Flushes what was written; resolves when the file is closed. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.stream.closed) return resolve();
      this.stream.once("close", () => resolve());
      this.stream.end();
    });
  }
}
