/**
 * The bytes a run sends, built once before it starts (STYLE habit 1): per class its header
 * template, its generated bodies and the shared tails (body, final dot, what follows), and the
 * envelopes that do not vary per message. Sessions render their messages from these parts
 * through their own MessageFactory (factory.ts). Content read from files (eml, mbox,
 * templates) gets a short X-Mailvolley trace prefix instead of a generated header.
 */
import type { Capabilities } from "../smtp/capabilities.js";
import { HeaderPlaceholderError } from "../smtp/header-slots.js";
import { END_OF_DATA, generateBody, type HeaderFields, HeaderTemplate } from "../smtp/message.js";
import { After, Before, QUIT_COMMAND as QUIT } from "../smtp/pipelining.js";
import { classCycle } from "./cycle.js";
import { loadAddressList, loadEml, loadEmlDir, loadMbox, loadTemplate } from "./index.js";
import { type MessageSource, SourceError } from "./source.js";
import type { MessageClassSpec, MessageOptions } from "./spec.js";

const CRLF = "\r\n";
const RSET = `RSET${CRLF}`;

export { After, Before } from "../smtp/pipelining.js";

/** What the session's accounting needs of a message's class. */
export interface MessageClass {
  /** Index into the run's classes (per-class counts). */
  readonly index: number;
  readonly recipients: number;
}

/** One class's fixed parts. */
interface ClassWire extends MessageClass {
  readonly spec: MessageClassSpec;
  readonly header: HeaderTemplate;
  /** Generated bodies (no source), one per size of the size distribution; empty with a source. */
  readonly bodies: readonly Buffer[];
  /** Which body message n of this class gets: sizeCycle[⌊seq / class cycle⌋ % length]. */
  readonly sizeCycle: Uint16Array;
  readonly source: MessageSource | null;
  readonly from: string;
  readonly to: string;
  /** body + final dot (+ QUIT or the next envelope): shared tails, generated bodies only. */
  readonly tails: Map<string, Buffer>;
}

/** One message as a session's factory holds it from its start until its content is written. */
export interface Message {
  seq: number;
  kind: MessageClass;
  /** A file's content or one body of a size distribution; null: the class's generated body. */
  content: Buffer | null;
  /** Octets between DATA's 354 and the final dot (MAIL's SIZE=). */
  size: number;
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
  /** The fast path's BDAT prefixes: [SIZE offered: 2, 0] + [RSET first: 1, 0]. */
  private readonly bdatPrefixes: (Buffer | null)[] = [null, null, null, null];

  private constructor(
    private readonly options: MessageOptions,
    private readonly classes: readonly ClassWire[],
    private readonly fromList: readonly string[] | null,
    private readonly toList: readonly string[] | null,
  ) {
    this.cycle = classCycle(classes.map((c) => c.spec.share));
    this.simple =
      classes.length === 1 &&
      classes[0].source === null &&
      classes[0].bodies.length === 1 &&
      !options.uniqueRecipients &&
      fromList === null &&
      toList === null &&
      !options.traceIds;
  }

  /** Loads every file the run's messages come from, once, before the first connect. */
  static async create(options: MessageOptions): Promise<MessageWire> {
    const classes: ClassWire[] = [];
    const named = options.classes.length > 1 || options.classes[0].name !== "default";
    for (const spec of options.classes) {
      const source = await loadSource(spec);
      const extra = spec.headers.map(([k, v]) => `${k}: ${v}`);
      if (named) extra.unshift(`X-Mailvolley-Class: ${spec.name}`);
      const to = spec.to ?? options.to;
      classes.push({
        index: classes.length,
        spec,
        header: headerOf(spec, {
          from: spec.from ?? (options.from || "mailvolley@localhost"),
          to,
          subject: spec.subject ?? options.subject,
          className: spec.name,
          runId: options.runId,
          extra,
          traceOnly: source !== null,
          traceId: options.traceIds,
        }),
        ...bodiesOf(spec, options, source),
        source,
        from: spec.from ?? options.from,
        to,
        recipients: spec.recipients ?? options.recipients,
        tails: new Map(),
      });
    }
    const fromList = options.fromFile ? await loadAddressList(options.fromFile) : null;
    const toList = options.toFile ? await loadAddressList(options.toFile) : null;
    return new MessageWire(options, classes, fromList, toList);
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
  classOf(seq: number): MessageClass {
    return this.classes[this.cycle[seq % this.cycle.length]];
  }

  /**
   * Fills `m` for message `seq`: its class, the content when it varies (a file's message, or
   * one body of a size distribution, shared, not copied) and the size it makes.
   */
  prepare(m: Message, seq: number, epochMs: number): void {
    const c = this.classes[this.cycle[seq % this.cycle.length]];
    m.seq = seq;
    m.kind = c;
    m.content = this.contentOf(c, seq, epochMs);
    m.size = c.header.length + (m.content ? m.content.length : c.bodies[0].length);
  }

  private contentOf(c: ClassWire, seq: number, epochMs: number): Buffer | null {
    if (c.source) return c.source.content(seq, { seq, className: c.spec.name, epochMs }).bytes;
    if (c.bodies.length === 1) return null;
    // Sizes advance once per class cycle, so every class sees every size in its share.
    const turn = Math.floor(seq / this.cycle.length);
    return c.bodies[c.sizeCycle[turn % c.sizeCycle.length]];
  }

  /** Recipient `i` (in RCPT order) of message `m`. */
  private recipient(m: Message, i: number): string {
    const c = this.classes[m.kind.index];
    const n = m.seq * c.recipients + i;
    const listed = this.toList ? this.toList[n % this.toList.length] : c.to;
    const rcpt = this.options.tagRecipients ? this.tagged(listed, m.seq) : listed;
    if (this.options.uniqueRecipients) return `${n + 1}.${rcpt}`;
    return !this.toList && c.recipients > 1 ? `${i + 1}.${rcpt}` : rcpt;
  }

  /** `local+RUNID.SEQ@domain`: the message's key as a subaddress (RFC 5233 §1). */
  private tagged(address: string, seq: number): string {
    const at = address.lastIndexOf("@");
    const tag = `+${this.options.runId}.${seq}`;
    return at < 0 ? `${address}${tag}` : `${address.slice(0, at)}${tag}${address.slice(at)}`;
  }

  /** The RCPT command for recipient `i` of message `m` (lock-step sends them one by one). */
  rcptLine(m: Message, i: number): string {
    const { dsnNotify } = this.options;
    const notify = dsnNotify ? ` NOTIFY=${dsnNotify}` : "";
    return `RCPT TO:<${this.recipient(m, i)}>${notify}${CRLF}`;
  }

  /** The MAIL command of message `m`, with SIZE= when the server takes it (RFC 1870). */
  mailLine(m: Message, caps: Capabilities): string {
    return this.mailCommand(m, caps, m.size);
  }

  /** `size`: the octets MAIL's SIZE= announces (with BDAT, the message as sent, unstuffed). */
  private mailCommand(m: Message, caps: Capabilities, size: number): string {
    const { xverp, dsnRet } = this.options;
    let params = caps.size >= 0 ? ` SIZE=${size}` : "";
    if (xverp) params += " XVERP";
    if (dsnRet) params += ` RET=${dsnRet}`;
    // RFC 3461 §4.4: ENVID travels with the message to the next hop and into its DSNs.
    if (this.options.traceIds && caps.dsn) params += ` ENVID=${this.options.runId}.${m.seq}`;
    const sender = this.fromList
      ? this.fromList[m.seq % this.fromList.length]
      : this.classes[m.kind.index].from;
    return `MAIL FROM:<${sender}>${params}${CRLF}`;
  }

  /** MAIL FROM and every RCPT TO, as one string. */
  private mailAndRcpts(m: Message, caps: Capabilities, size: number): string {
    let text = this.mailCommand(m, caps, size);
    for (let i = 0; i < m.kind.recipients; i++) text += this.rcptLine(m, i);
    return text;
  }

  /** The envelope group as one Buffer; shared when nothing in it varies per message. */
  envelope(m: Message, caps: Capabilities, before: Before): Buffer {
    const key = `${caps.size >= 0}:${before === Before.Rset}`;
    const cached = this.simple ? this.envelopes.get(key) : undefined;
    if (cached) return cached;
    const prefix = before === Before.Rset ? RSET : "";
    const buf = Buffer.from(`${prefix}${this.mailAndRcpts(m, caps, m.size)}DATA${CRLF}`, "latin1");
    if (this.simple) this.envelopes.set(key, buf);
    return buf;
  }

  /** MAIL, RCPT… and the BDAT command line (RFC 3030); shared when nothing in them varies. */
  bdatPrefix(m: Message, caps: Capabilities, before: Before, size: number): Buffer {
    // Indexed, not keyed by a string: this runs once a message.
    const key = (caps.size >= 0 ? 2 : 0) + (before === Before.Rset ? 1 : 0);
    const cached = this.simple ? this.bdatPrefixes[key] : null;
    if (cached) return cached;
    const prefix = before === Before.Rset ? RSET : "";
    const text = `${prefix}${this.mailAndRcpts(m, caps, size)}BDAT ${size} LAST${CRLF}`;
    const buf = Buffer.from(text, "latin1");
    if (this.simple) this.bdatPrefixes[key] = buf;
    return buf;
  }

  headerOf(kind: MessageClass): HeaderTemplate {
    return this.classes[kind.index].header;
  }

  /** The class's generated body as sent with BDAT: as it is, no dot-stuffing, no final dot. */
  bodyOf(kind: MessageClass): Buffer {
    return this.classes[kind.index].bodies[0];
  }

  /**
   * The class's generated body, its final dot and what follows, shared by every message of the
   * class. The next envelope rides in the tail only on the fast path; else it is written apart.
   */
  tail(m: Message, after: After, caps: Capabilities): Buffer {
    const c = this.classes[m.kind.index];
    const withEnvelope = after === After.Envelope && this.simple;
    const key = `${withEnvelope ? "env" : after === After.Quit ? "quit" : "none"}:${caps.size >= 0}`;
    let buf = c.tails.get(key);
    if (!buf) {
      const parts = [c.bodies[0], END_OF_DATA];
      if (after === After.Quit) parts.push(QUIT);
      // On the fast path every envelope is the same: the one of message m serves.
      if (withEnvelope) parts.push(this.envelope(m, caps, Before.Nothing));
      buf = Buffer.concat(parts);
      c.tails.set(key, buf);
    }
    return buf;
  }
}

/** A class's generated bodies: its own size, or the run's size distribution. */
function bodiesOf(
  spec: MessageClassSpec,
  options: MessageOptions,
  source: MessageSource | null,
): { bodies: Buffer[]; sizeCycle: Uint16Array } {
  if (source) return { bodies: [], sizeCycle: new Uint16Array(1) };
  const sizes = spec.sizes ?? options.sizes;
  return {
    bodies: sizes.map((s) => generateBody(s.size)),
    sizeCycle: classCycle(sizes.map((s) => s.weight)),
  };
}

async function loadSource(spec: MessageClassSpec): Promise<MessageSource | null> {
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

/** The class's header template; a bad placeholder names where the user wrote it. */
function headerOf(spec: MessageClassSpec, fields: HeaderFields): HeaderTemplate {
  try {
    return new HeaderTemplate(fields);
  } catch (error) {
    if (!(error instanceof HeaderPlaceholderError)) throw error;
    const where =
      spec.subject !== undefined || spec.headers.length > 0
        ? `class ${spec.name}: subject or headers`
        : "--subject";
    throw new SourceError(where, error.message);
  }
}
