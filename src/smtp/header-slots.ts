/**
 * Placeholders in the header fields a user writes (`--subject`, a plan's `subject:` and
 * `headers:`) for generated messages: `{{seq}}`, `{{timestamp}}`, `{{epochMs}}`, `{{token}}` and
 * `{{class}}`, as in message templates (messages/template.ts), but each of fixed width, so the
 * header keeps one length and every message its SIZE, known before the run:
 *
 * - `{{seq}}` the message's sequence number, 12 digits with leading zeros (as in Message-ID);
 * - `{{timestamp}}` the send time as an RFC 5322 date, UTC, 31 characters;
 * - `{{epochMs}}` the send time in epoch milliseconds, 13 digits;
 * - `{{token}}` 32 random hex digits, the same wherever it appears in one message;
 * - `{{class}}` the message's class name, fixed per class.
 */
import { randomFillSync } from "node:crypto";

export const HEADER_PLACEHOLDERS = ["seq", "timestamp", "epochMs", "token", "class"] as const;
type HeaderPlaceholder = (typeof HEADER_PLACEHOLDERS)[number];
/** The placeholders patched per message (class is filled in once). */
type SlotName = Exclude<HeaderPlaceholder, "class">;

const WIDTH: Record<SlotName, number> = { seq: 12, timestamp: 31, epochMs: 13, token: 32 };
/** A slot's octets until it is patched: NUL, which no header line may hold. */
const MARK = "\0";
const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

export class HeaderPlaceholderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HeaderPlaceholderError";
  }
}

/**
 * A header line's text with each varying placeholder replaced by NUL marks of its width, and
 * `{{class}}` by the class name. Throws HeaderPlaceholderError naming an unknown placeholder.
 */
export function markPlaceholders(
  text: string,
  className: string,
): { text: string; slots: SlotName[] } {
  const slots: SlotName[] = [];
  const marked = text.replace(PLACEHOLDER, (_all, name: string) => {
    if (!(HEADER_PLACEHOLDERS as readonly string[]).includes(name)) {
      const known = HEADER_PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ");
      throw new HeaderPlaceholderError(`unknown placeholder {{${name}}}; use one of ${known}`);
    }
    if (name === "class") return className;
    slots.push(name as SlotName);
    return MARK.repeat(WIDTH[name as SlotName]);
  });
  return { text: marked, slots };
}

/** Random octets per token: 128 bits, 32 hex digits, as unlikely to repeat as a UUID. */
const TOKEN_OCTETS = 16;

/**
 * `{{token}}`'s values, here and in message templates (messages/template.ts): 32 random hex
 * digits each, from a pool of random octets refilled 256 tokens at a time.
 */
export class TokenPool {
  private readonly pool = Buffer.allocUnsafe(TOKEN_OCTETS * 256);
  private offset = this.pool.length;

  next(): string {
    if (this.offset === this.pool.length) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const start = this.offset;
    this.offset += TOKEN_OCTETS;
    return this.pool.toString("hex", start, this.offset);
  }
}

/** The slots of a rendered header: where each is, and how to fill it for one message. */
export class HeaderSlots {
  private readonly at: { name: SlotName; offset: number }[] = [];
  private readonly tokens = new TokenPool();

  /** Finds the slots, in order, among the NUL marks of `template`. */
  constructor(template: Buffer, names: readonly SlotName[]) {
    let from = 0;
    for (const name of names) {
      const offset = template.indexOf(0, from);
      this.at.push({ name, offset });
      from = offset + WIDTH[name];
    }
  }

  get empty(): boolean {
    return this.at.length === 0;
  }

  /** Fills every slot of `out` for message `seq` sent at `epochMs`, `date` its RFC 5322 date. */
  fill(out: Buffer, seq: number, epochMs: number, date: Buffer, write: DecimalWriter): void {
    let token = "";
    for (const { name, offset } of this.at) {
      if (name === "seq") write(out, offset, WIDTH.seq, seq);
      else if (name === "epochMs") write(out, offset, WIDTH.epochMs, Math.floor(epochMs));
      else if (name === "timestamp") date.copy(out, offset);
      else {
        token ||= this.tokens.next();
        out.write(token, offset, "latin1");
      }
    }
  }
}

export type DecimalWriter = (buf: Buffer, offset: number, width: number, value: number) => void;
