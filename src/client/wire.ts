/**
 * The bytes a run sends, built once before it starts (STYLE habit 1). Per message only the
 * header is rendered (three fixed-width fields patched); envelopes and the body with its final
 * dot and what follows it are shared Buffers, cached per capability signature.
 */
import type { RunConfig } from "../config/run-config.js";
import type { Capabilities } from "../smtp/capabilities.js";
import { END_OF_DATA, generateBody, HeaderTemplate } from "../smtp/message.js";

const CRLF = "\r\n";
const QUIT = Buffer.from(`QUIT${CRLF}`, "latin1");

/** What travels in the same write as a message body, after its final dot (RFC 2920 §3.1). */
export enum After {
  Nothing = 0,
  Quit = 1,
  Envelope = 2,
}

export class MessageWire {
  /** Octets of the content between DATA's 354 and the final dot (header + body). */
  readonly messageSize: number;
  private readonly headerTemplate: HeaderTemplate;
  private readonly body: Buffer;
  private readonly cache = new Map<string, Buffer>();

  constructor(private readonly config: RunConfig) {
    this.headerTemplate = new HeaderTemplate({
      from: config.from || "mailvolley@localhost",
      to: config.to,
      subject: config.subject,
      runId: config.runId,
    });
    this.body = generateBody(config.size);
    this.messageSize = this.headerTemplate.length + this.body.length;
  }

  header(seq: number, epochMs: number): Buffer {
    return this.headerTemplate.render(seq, epochMs);
  }

  /**
   * Message `seq` whole: its rendered header, then the shared body, final dot and what follows,
   * in one Buffer so the session makes one write (one syscall) per message.
   */
  message(seq: number, epochMs: number, after: After, caps: Capabilities): Buffer {
    const tail = this.bodyThen(after, caps);
    const out = Buffer.allocUnsafe(this.headerTemplate.length + tail.length);
    this.headerTemplate.renderInto(out, seq, epochMs);
    tail.copy(out, this.headerTemplate.length);
    return out;
  }

  /** The recipient addresses of message `seq`, in RCPT order. */
  recipients(seq: number): string[] {
    const { recipients, to, uniqueRecipients } = this.config;
    if (!uniqueRecipients && recipients === 1) return [to];
    const out: string[] = [];
    for (let i = 1; i <= recipients; i++) {
      out.push(`${uniqueRecipients ? seq * recipients + i : i}.${to}`);
    }
    return out;
  }

  /** MAIL FROM, every RCPT TO and DATA: one pipelined group (or the lines sent one by one). */
  envelopeLines(caps: Capabilities, seq: number): string[] {
    const size = caps.size >= 0 ? ` SIZE=${this.messageSize}` : "";
    const lines = [`MAIL FROM:<${this.config.from}>${size}${CRLF}`];
    for (const rcpt of this.recipients(seq)) lines.push(`RCPT TO:<${rcpt}>${CRLF}`);
    lines.push(`DATA${CRLF}`);
    return lines;
  }

  /** The envelope group as one Buffer; shared unless recipients vary per message. */
  envelope(caps: Capabilities, seq: number, rset: boolean): Buffer {
    const prefix = rset ? `RSET${CRLF}` : "";
    if (this.config.uniqueRecipients) {
      return Buffer.from(prefix + this.envelopeLines(caps, seq).join(""), "latin1");
    }
    const key = `env:${caps.size >= 0}:${rset}`;
    let buf = this.cache.get(key);
    if (!buf) {
      buf = Buffer.from(prefix + this.envelopeLines(caps, seq).join(""), "latin1");
      this.cache.set(key, buf);
    }
    return buf;
  }

  /**
   * The body, its final dot and what follows in the same write. With varying recipients the
   * next envelope cannot be cached and is written separately by the caller.
   */
  bodyThen(after: After, caps: Capabilities): Buffer {
    const key = `body:${after}:${caps.size >= 0}`;
    let buf = this.cache.get(key);
    if (!buf) {
      const parts = [this.body, END_OF_DATA];
      if (after === After.Quit) parts.push(QUIT);
      if (after === After.Envelope) parts.push(this.envelope(caps, 0, false));
      buf = Buffer.concat(parts);
      this.cache.set(key, buf);
    }
    return buf;
  }
}

export { QUIT as QUIT_COMMAND };
