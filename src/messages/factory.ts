/**
 * One session's messages: which message each slot of its transaction ring carries, and the
 * bytes each step of a transaction writes, one question per step (MAIL line, RCPT line,
 * envelope group, content, BDAT transaction). The parts come from the run's MessageWire, built
 * once; per message only the header's varying fields are rendered, and a generated body's
 * message Buffer is reused and patched (STYLE habit 1). Nothing here allocates per message
 * beyond the Buffers written.
 */
import type { Capabilities } from "../smtp/capabilities.js";
import { END_OF_DATA, unstuff } from "../smtp/message.js";
import {
  After,
  Before,
  type Message,
  type MessageClass,
  type MessageWire,
  QUIT_COMMAND,
} from "./message-wire.js";

/**
 * A session's last message Buffer, kept for its next message once the socket has let go of it:
 * the body, final dot and next envelope stay in place and only the header's varying fields are
 * patched, which saves an allocation and a copy of the whole message per message.
 */
class OutgoingMessage {
  buffer: Buffer | null = null;
  /** The shared tail `buffer` holds after its header. */
  tail: Buffer | null = null;
}

/**
 * BDAT: a slot's last transaction Buffer and the parts it was built from. A slot comes round
 * again only after its transaction's final reply (a session keeps at most its window in flight
 * and has two slots more), so the server has read those octets and the Buffer may be patched.
 */
class SlotTransaction {
  buffer: Buffer | null = null;
  prefix: Buffer | null = null;
  body: Buffer | null = null;
}

export class MessageFactory {
  private readonly slots: Message[] = [];
  private readonly outgoing = new OutgoingMessage();
  /** BDAT only, made on a slot's first transaction: DATA sessions pay nothing for it. */
  private readonly transactions: (SlotTransaction | undefined)[] = [];

  /** `slots`: as many as the session's transaction ring has; slot i carries its transaction i. */
  constructor(
    private readonly wire: MessageWire,
    slots: number,
  ) {
    const kind = wire.classOf(0);
    for (let i = 0; i < slots; i++) this.slots.push({ seq: -1, kind, content: null, size: 0 });
  }

  /**
   * Message `seq` goes into `slot`: its class, and its content as of `epochMs` (a template's
   * Date and placeholders). Returns the class, for the transaction's accounting.
   */
  begin(slot: number, seq: number, epochMs: number): MessageClass {
    const m = this.slots[slot];
    this.wire.prepare(m, seq, epochMs);
    return m.kind;
  }

  /** Lock-step: the MAIL command of the message in `slot`. */
  mailLine(slot: number, caps: Capabilities): string {
    return this.wire.mailLine(this.slots[slot], caps);
  }

  /** Lock-step: the RCPT command for recipient `index` of the message in `slot`. */
  rcptLine(slot: number, index: number): string {
    return this.wire.rcptLine(this.slots[slot], index);
  }

  /** Pipelined (RFC 2920): [RSET,] MAIL, every RCPT and DATA as one Buffer. */
  envelopeGroup(slot: number, caps: Capabilities, before: Before): Buffer {
    return this.wire.envelope(this.slots[slot], caps, before);
  }

  /**
   * The envelope group of the message in `slot` when it follows the previous message's content
   * (content() with After.Envelope): null when it rode in that content's shared tail already.
   */
  nextEnvelopeGroup(slot: number, caps: Capabilities): Buffer | null {
    return this.wire.simple ? null : this.envelopeGroup(slot, caps, Before.Nothing);
  }

  /**
   * After DATA's 354: the message in `slot` whole in one Buffer, its rendered header, the
   * content, the final dot and what follows. The fast path (one class, generated body) also
   * carries the next envelope, so the session makes one write per message. A generated body is
   * rendered into the last Buffer when that holds the same tail and was written whole.
   */
  content(slot: number, after: After, caps: Capabilities, epochMs: number): Buffer {
    const m = this.slots[slot];
    const header = this.wire.headerOf(m.kind);
    const content = m.content;
    if (content !== null) {
      m.content = null;
      const quit = after === After.Quit;
      const length = content.length + END_OF_DATA.length + (quit ? QUIT_COMMAND.length : 0);
      const out = Buffer.allocUnsafe(header.length + length);
      header.renderInto(out, m.seq, epochMs);
      let o = header.length + content.copy(out, header.length);
      o += END_OF_DATA.copy(out, o);
      if (quit) QUIT_COMMAND.copy(out, o);
      return out;
    }
    const tail = this.wire.tail(m, after, caps);
    const { outgoing } = this;
    if (outgoing.tail === tail && outgoing.buffer !== null) {
      return header.renderInto(outgoing.buffer, m.seq, epochMs, true);
    }
    const out = Buffer.allocUnsafe(header.length + tail.length);
    header.renderInto(out, m.seq, epochMs);
    tail.copy(out, header.length);
    outgoing.buffer = out;
    outgoing.tail = tail;
    return out;
  }

  /**
   * Called after content() was written. A write the socket could not finish at once still
   * holds the Buffer (Node keeps it until the kernel took it all), so it must not be reused.
   */
  written(stillQueued: boolean): void {
    if (!stillQueued) return;
    this.outgoing.buffer = null;
    this.outgoing.tail = null;
  }

  /**
   * A whole BDAT transaction (RFC 3030) in one Buffer: [RSET,] MAIL, every RCPT, `BDAT n LAST`,
   * then the n octets of the message as they are (no dot-stuffing, no final dot), so
   * transactions can follow each other without waiting for a 354.
   */
  bdatTransaction(slot: number, caps: Capabilities, before: Before, epochMs: number): Buffer {
    const m = this.slots[slot];
    const header = this.wire.headerOf(m.kind);
    // Content from a source or a size distribution is dot-stuffed; BDAT sends it as it is.
    const generated = m.content === null;
    const raw = generated ? this.wire.bodyOf(m.kind) : unstuff(m.content!);
    m.content = null;
    const size = header.length + raw.length;
    const prefix = this.wire.bdatPrefix(m, caps, before, size);
    let kept = this.transactions[slot];
    if (kept === undefined) {
      kept = new SlotTransaction();
      this.transactions[slot] = kept;
    }
    // A shared prefix (the fast path's constant envelope) and the same generated body: the
    // slot's last Buffer already holds them and the header's template; patch its fields.
    if (generated && kept.prefix === prefix && kept.body === raw && kept.buffer !== null) {
      header.renderInto(kept.buffer.subarray(prefix.length), m.seq, epochMs, true);
      return kept.buffer;
    }
    const out = Buffer.allocUnsafe(prefix.length + size);
    prefix.copy(out);
    header.renderInto(out.subarray(prefix.length), m.seq, epochMs);
    raw.copy(out, prefix.length + header.length);
    kept.buffer = generated ? out : null;
    kept.prefix = prefix;
    kept.body = raw;
    return out;
  }
}
