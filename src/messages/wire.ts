/**
 * The bytes a run sends, built once before it starts (STYLE habit 1). Per message only the
 * header is rendered (fixed-width fields patched); envelopes and bodies with their final dot are
 * shared Buffers, cached per message class and capability signature. Content read from files
 * (eml, mbox, templates) gets a short X-Mailvolley trace prefix instead of a generated header.
 */
import type { ClassSpec } from "../config/plan.js";
import { classCycle } from "../config/plan.js";
import type { RunConfig } from "../config/run-config.js";
import type { Capabilities } from "../smtp/capabilities.js";
import { END_OF_DATA, generateBody, HeaderTemplate, unstuff } from "../smtp/message.js";
import { loadAddressList, loadEml, loadEmlDir, loadMbox, loadTemplate } from "./index.js";
import type { MessageSource } from "./source.js";

const CRLF = "\r\n";
const QUIT = Buffer.from(`QUIT${CRLF}`, "latin1");

/** What travels in the same write as a message body, after its final dot (RFC 2920 §3.1). */
export enum After {
  Nothing = 0,
  Quit = 1,
  Envelope = 2,
}

/** One class's fixed parts. */
interface ClassWire {
  readonly spec: ClassSpec;
  readonly header: HeaderTemplate;
  /** Generated bodies (no source), one per size of the size distribution; empty with a source. */
  readonly bodies: readonly Buffer[];
  /** Which body message n of this class gets: sizeCycle[⌊seq / class cycle⌋ % length]. */
  readonly sizeCycle: Uint16Array;
  readonly source: MessageSource | null;
  readonly from: string;
  readonly to: string;
  readonly recipients: number;
  /** body + final dot (+ QUIT): shared tails, generated bodies only. */
  readonly tails: Map<string, Buffer>;
}

/**
 * A session's last message Buffer, kept for its next message once the socket has let go of it:
 * the body, final dot and next envelope stay in place and only the header's varying fields are
 * patched, which saves an allocation and a copy of the whole message per message.
 */
export class OutgoingMessage {
  buffer: Buffer | null = null;
  /** The shared tail `buffer` holds after its header. */
  tail: Buffer | null = null;

  /**
   * Called after the message was written. A write the socket could not finish at once still
   * holds the Buffer (Node keeps it until the kernel took it all), so it must not be reused.
   */
  written(stillQueued: boolean): void {
    if (!stillQueued) return;
    this.buffer = null;
    this.tail = null;
  }
}

export interface SourceSummary {
  readonly className: string;
  readonly kind: string;
  readonly count: number;
  readonly totalBytes: number;
  readonly longLines: number;
}

export class MessageWire {
  /** One class, generated body, constant envelope: the single-write fast path applies. */
  readonly simple: boolean;
  private readonly cycle: Uint16Array;
  private readonly envelopes = new Map<string, Buffer>();

  private constructor(
    private readonly config: RunConfig,
    private readonly classes: readonly ClassWire[],
    private readonly fromList: readonly string[] | null,
    private readonly toList: readonly string[] | null,
  ) {
    this.cycle = classCycle(classes.map((c) => c.spec.share));
    this.simple =
      classes.length === 1 &&
      classes[0].source === null &&
      classes[0].bodies.length === 1 &&
      !config.uniqueRecipients &&
      fromList === null &&
      toList === null;
  }

  /** Loads every file the run's messages come from, once, before the first connect. */
  static async create(config: RunConfig): Promise<MessageWire> {
    const classes: ClassWire[] = [];
    const named = config.classes.length > 1 || config.classes[0].name !== "default";
    for (const spec of config.classes) {
      const source = await loadSource(spec);
      const extra = spec.headers.map(([k, v]) => `${k}: ${v}`);
      if (named) extra.unshift(`X-Mailvolley-Class: ${spec.name}`);
      const to = spec.to ?? config.to;
      classes.push({
        spec,
        header: new HeaderTemplate({
          from: spec.from ?? (config.from || "mailvolley@localhost"),
          to,
          subject: spec.subject ?? config.subject,
          runId: config.runId,
          extra,
          traceOnly: source !== null,
        }),
        ...bodiesOf(spec, config, source),
        source,
        from: spec.from ?? config.from,
        to,
        recipients: spec.recipients ?? config.recipients,
        tails: new Map(),
      });
    }
    const fromList = config.fromFile ? await loadAddressList(config.fromFile) : null;
    const toList = config.toFile ? await loadAddressList(config.toFile) : null;
    return new MessageWire(config, classes, fromList, toList);
  }

  /** What was loaded from files, per class, for the report. */
  sources(): SourceSummary[] {
    return this.classes.flatMap((c) =>
      c.source
        ? [
            {
              className: c.spec.name,
              kind: c.source.kind,
              count: c.source.count,
              totalBytes: c.source.totalBytes,
              longLines: c.source.longLines,
            },
          ]
        : [],
    );
  }

  /** The class of message `seq`: exact shares over every whole cycle. */
  classOf(seq: number): number {
    return this.cycle[seq % this.cycle.length];
  }

  recipientCount(cls: number): number {
    return this.classes[cls].recipients;
  }

  /** Recipient `i` (in RCPT order) of message `seq`. */
  private recipient(seq: number, cls: number, i: number): string {
    const c = this.classes[cls];
    const n = seq * c.recipients + i;
    const rcpt = this.toList ? this.toList[n % this.toList.length] : c.to;
    if (this.config.uniqueRecipients) return `${n + 1}.${rcpt}`;
    return !this.toList && c.recipients > 1 ? `${i + 1}.${rcpt}` : rcpt;
  }

  /** The RCPT command for recipient `i` of message `seq` (lock-step sends them one by one). */
  rcptLine(seq: number, cls: number, i: number): string {
    const { dsnNotify } = this.config;
    const notify = dsnNotify ? ` NOTIFY=${dsnNotify}` : "";
    return `RCPT TO:<${this.recipient(seq, cls, i)}>${notify}${CRLF}`;
  }

  private sender(seq: number, cls: number): string {
    return this.fromList ? this.fromList[seq % this.fromList.length] : this.classes[cls].from;
  }

  /** MAIL FROM, every RCPT TO and DATA, as command lines. */
  envelopeLines(caps: Capabilities, seq: number, cls: number, size: number): string[] {
    const { xverp, dsnRet } = this.config;
    let params = caps.size >= 0 ? ` SIZE=${size}` : "";
    if (xverp) params += " XVERP";
    if (dsnRet) params += ` RET=${dsnRet}`;
    const lines = [`MAIL FROM:<${this.sender(seq, cls)}>${params}${CRLF}`];
    const count = this.classes[cls].recipients;
    for (let i = 0; i < count; i++) lines.push(this.rcptLine(seq, cls, i));
    lines.push(`DATA${CRLF}`);
    return lines;
  }

  /** Octets between DATA's 354 and the final dot of a message of class `cls` (MAIL's SIZE=). */
  messageSize(cls: number, content: Buffer | null): number {
    const c = this.classes[cls];
    return c.header.length + (content ? content.length : c.bodies[0].length);
  }

  /** The envelope group as one Buffer; shared when nothing in it varies per message. */
  envelope(caps: Capabilities, seq: number, cls: number, rset: boolean, size: number): Buffer {
    const prefix = rset ? `RSET${CRLF}` : "";
    if (!this.simple) {
      return Buffer.from(prefix + this.envelopeLines(caps, seq, cls, size).join(""), "latin1");
    }
    const key = `${caps.size >= 0}:${rset}`;
    let buf = this.envelopes.get(key);
    if (!buf) {
      buf = Buffer.from(prefix + this.envelopeLines(caps, seq, cls, size).join(""), "latin1");
      this.envelopes.set(key, buf);
    }
    return buf;
  }

  /**
   * The content of message `seq` when it varies: a file's message, or one body of a size
   * distribution (shared, not copied). null: the class's single generated body.
   */
  content(seq: number, cls: number, epochMs: number): Buffer | null {
    const c = this.classes[cls];
    if (c.source) return c.source.content(seq, { seq, className: c.spec.name, epochMs }).bytes;
    if (c.bodies.length === 1) return null;
    // Sizes advance once per class cycle, so every class sees every size in its share.
    const turn = Math.floor(seq / this.cycle.length);
    return c.bodies[c.sizeCycle[turn % c.sizeCycle.length]];
  }

  /**
   * Message `seq` whole in one Buffer: its rendered header, the content, the final dot and
   * what follows. The fast path (one class, generated body) also carries the next envelope,
   * so the session makes one write per message; otherwise the caller writes that separately.
   * A generated body is rendered into `outgoing`'s Buffer when that holds the same tail.
   */
  message(
    seq: number,
    cls: number,
    epochMs: number,
    after: After,
    caps: Capabilities,
    content: Buffer | null,
    outgoing: OutgoingMessage,
  ): Buffer {
    const c = this.classes[cls];
    const tail = content ? null : this.tail(c, after, caps);
    if (tail !== null && outgoing.tail === tail && outgoing.buffer !== null) {
      return c.header.renderInto(outgoing.buffer, seq, epochMs, true);
    }
    const contentLength = content
      ? content.length + END_OF_DATA.length + (after === After.Quit ? QUIT.length : 0)
      : 0;
    const out = Buffer.allocUnsafe(c.header.length + (tail ? tail.length : contentLength));
    c.header.renderInto(out, seq, epochMs);
    if (tail) {
      tail.copy(out, c.header.length);
      outgoing.buffer = out;
      outgoing.tail = tail;
      return out;
    }
    let o = c.header.length + content!.copy(out, c.header.length);
    o += END_OF_DATA.copy(out, o);
    if (after === After.Quit) QUIT.copy(out, o);
    return out;
  }

  /**
   * A whole BDAT transaction (RFC 3030) in one Buffer: MAIL, every RCPT, `BDAT n LAST`, then
   * the n octets of the message as they are (no dot-stuffing, no final dot), so transactions
   * can follow each other without waiting for a 354. `content` is dot-stuffed (from a source or
   * a size distribution) or null for the class's generated body.
   */
  bdatTransaction(
    caps: Capabilities,
    seq: number,
    cls: number,
    rset: boolean,
    epochMs: number,
    content: Buffer | null,
  ): Buffer {
    const c = this.classes[cls];
    const raw = content ? unstuff(content) : c.bodies[0];
    const size = c.header.length + raw.length;
    const prefix = this.bdatPrefix(caps, seq, cls, rset, size);
    const out = Buffer.allocUnsafe(prefix.length + size);
    prefix.copy(out);
    c.header.renderInto(out.subarray(prefix.length), seq, epochMs);
    raw.copy(out, prefix.length + c.header.length);
    return out;
  }

  /** MAIL, RCPT… and the BDAT command line; shared when nothing in them varies per message. */
  private bdatPrefix(
    caps: Capabilities,
    seq: number,
    cls: number,
    rset: boolean,
    size: number,
  ): Buffer {
    const key = `bdat:${caps.size >= 0}:${rset}`;
    const cached = this.simple ? this.envelopes.get(key) : undefined;
    if (cached) return cached;
    const lines = this.envelopeLines(caps, seq, cls, size).slice(0, -1);
    const text = `${rset ? `RSET${CRLF}` : ""}${lines.join("")}BDAT ${size} LAST${CRLF}`;
    const buf = Buffer.from(text, "latin1");
    if (this.simple) this.envelopes.set(key, buf);
    return buf;
  }

  private tail(c: ClassWire, after: After, caps: Capabilities): Buffer {
    // The next envelope rides in the tail only on the fast path; else it is written apart.
    const withEnvelope = after === After.Envelope && this.simple;
    const key = `${withEnvelope ? "env" : after === After.Quit ? "quit" : "none"}:${caps.size >= 0}`;
    let buf = c.tails.get(key);
    if (!buf) {
      const parts = [c.bodies[0], END_OF_DATA];
      if (after === After.Quit) parts.push(QUIT);
      if (withEnvelope)
        parts.push(this.envelope(caps, 0, 0, false, c.header.length + c.bodies[0].length));
      buf = Buffer.concat(parts);
      c.tails.set(key, buf);
    }
    return buf;
  }
}

/** A class's generated bodies: its own size, or the run's size distribution. */
function bodiesOf(
  spec: ClassSpec,
  config: RunConfig,
  source: MessageSource | null,
): { bodies: Buffer[]; sizeCycle: Uint16Array } {
  if (source) return { bodies: [], sizeCycle: new Uint16Array(1) };
  const sizes = spec.size !== undefined ? [{ size: spec.size, weight: 1 }] : config.sizes;
  return {
    bodies: sizes.map((s) => generateBody(s.size)),
    sizeCycle: classCycle(sizes.map((s) => s.weight)),
  };
}

async function loadSource(spec: ClassSpec): Promise<MessageSource | null> {
  const source = spec.source;
  if (!source) return null;
  switch (source.kind) {
    case "eml":
      return loadEml(source.path);
    case "eml-dir":
      return loadEmlDir(source.path, source.order, source.seed);
    case "mbox":
      return loadMbox(source.path, source.order, source.seed);
    case "template":
      return loadTemplate(source.path);
  }
}

export { QUIT as QUIT_COMMAND };
