/**
 * A message template with placeholders. The file is normalised and dot-stuffed once and split
 * into literal Buffer pieces and slots; per message the pieces are joined with the slot values
 * into one Buffer, with no scan of the text.
 */
import { TokenPool } from "../smtp/header-slots.js";
import { linesBefore, prepareContent, readSourceFile, readSubject } from "./content.js";
import {
  type MessageContent,
  type MessageSource,
  SourceError,
  type TemplateVars,
} from "./source.js";

const LF = 10;
const OPEN = Buffer.from("{{", "latin1");
const CLOSE = Buffer.from("}}", "latin1");

const PLACEHOLDERS = ["seq", "class", "timestamp", "epochMs", "token"] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
const IDENTIFIER = /^[A-Za-z_][\w.-]*$/;

interface Slot {
  readonly name: Placeholder;
  /** The value starts a line, so a leading dot in it must be doubled (RFC 5321 §4.5.2). */
  readonly atLineStart: boolean;
}

/**
 * `{{seq}}` the message's sequence number; `{{class}}` its class name; `{{timestamp}}` the send
 * time as an RFC 5322 §3.3 date (UTC); `{{epochMs}}` the send time in whole epoch milliseconds;
 * `{{token}}` 32 random hex digits, the same wherever it appears in one message. Spaces inside
 * the braces are allowed; `{{` not followed by a name and `}}` on the same line is literal text.
 */
export async function loadTemplate(path: string): Promise<MessageSource> {
  const raw = await readSourceFile(path, "template file");
  if (raw.length === 0) throw new SourceError(path, "is empty; give a message with placeholders");
  const { bytes, longLines } = prepareContent(raw, path);
  return new TemplateSource(path, bytes, longLines);
}

class TemplateSource implements MessageSource {
  readonly kind = "template";
  readonly count = 1;
  readonly order = "sequential";
  readonly totalBytes: number;
  private readonly pieces: Buffer[] = [];
  private readonly slots: Slot[] = [];
  /** The subject, when the Subject field holds no placeholder; otherwise read per message. */
  private readonly fixedSubject: string | undefined;
  private readonly subjectVaries: boolean;
  private readonly classValues = new Map<string, Buffer>();
  private dateSecond = Number.NaN;
  private dateText = "";
  private readonly tokens = new TokenPool();

  constructor(
    private readonly file: string,
    bytes: Buffer,
    readonly longLines: number,
  ) {
    let literal = 0;
    let from = 0;
    let subjectSlots = 0;
    const subject = readSubject(bytes);
    for (;;) {
      const found = this.nextPlaceholder(bytes, from);
      if (!found) break;
      this.pieces.push(bytes.subarray(from, found.start));
      literal += found.start - from;
      this.slots.push({
        name: found.name,
        atLineStart: found.start === 0 || bytes[found.start - 1] === LF,
      });
      if (found.inSubject) subjectSlots++;
      from = found.end;
    }
    this.pieces.push(bytes.subarray(from));
    this.totalBytes = literal + bytes.length - from;
    this.subjectVaries = subjectSlots > 0;
    this.fixedSubject = this.subjectVaries ? undefined : subject;
  }

  content(_seq: number, vars: TemplateVars): MessageContent {
    const values: (string | Buffer)[] = [];
    let token = "";
    let size = this.totalBytes;
    for (const slot of this.slots) {
      let value: string | Buffer;
      if (slot.name === "token") value = token ||= this.tokens.next();
      else value = this.value(slot, vars);
      size += value.length;
      values.push(value);
    }
    const bytes = Buffer.allocUnsafe(size);
    let o = 0;
    for (let i = 0; i < values.length; i++) {
      o += this.pieces[i].copy(bytes, o);
      const value = values[i];
      o += typeof value === "string" ? bytes.write(value, o, "latin1") : value.copy(bytes, o);
    }
    this.pieces[values.length].copy(bytes, o);
    if (this.subjectVaries) return { bytes, subject: readSubject(bytes) };
    return this.fixedSubject === undefined ? { bytes } : { bytes, subject: this.fixedSubject };
  }

  /** A slot's value: ASCII text, or for a class name its UTF-8 octets. */
  private value(slot: Slot, vars: TemplateVars): string | Buffer {
    switch (slot.name) {
      case "seq":
        return String(vars.seq);
      case "epochMs":
        return String(Math.floor(vars.epochMs));
      case "timestamp":
        return this.date(vars.epochMs);
      case "class":
        return this.classValue(vars.className, slot.atLineStart);
      default:
        throw new Error(`unhandled placeholder ${slot.name}`);
    }
  }

  /** RFC 5322 §3.3 date-time in UTC, e.g. "Wed, 02 Dec 2026 13:55:07 +0000", made once a second. */
  private date(epochMs: number): string {
    const second = Math.floor(epochMs / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      this.dateText = new Date(second * 1000).toUTCString().replace("GMT", "+0000");
    }
    return this.dateText;
  }

  /** Class names come from the plan: checked and encoded once per name, not per message. */
  private classValue(className: string, atLineStart: boolean): Buffer {
    const key = atLineStart ? `\n${className}` : className;
    let value = this.classValues.get(key);
    if (!value) {
      if (/[\r\n\0]/.test(className)) {
        throw new SourceError(
          this.file,
          `class name ${JSON.stringify(className)} has a line break or NUL and cannot fill {{class}}; rename the class`,
        );
      }
      value = Buffer.from(atLineStart && className.startsWith(".") ? `.${className}` : className);
      this.classValues.set(key, value);
    }
    return value;
  }

  /** The next `{{name}}` at or after `from`; an unknown name is an error naming it and its line. */
  private nextPlaceholder(bytes: Buffer, from: number) {
    for (;;) {
      const start = bytes.indexOf(OPEN, from);
      if (start === -1) return undefined;
      const close = bytes.indexOf(CLOSE, start + 2);
      const lineEnd = bytes.indexOf(LF, start);
      if (close === -1 || close > lineEnd) {
        from = start + 2;
        continue;
      }
      const name = bytes.toString("latin1", start + 2, close).trim();
      if (!IDENTIFIER.test(name)) {
        from = start + 2;
        continue;
      }
      if (!(PLACEHOLDERS as readonly string[]).includes(name)) {
        const known = PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ");
        throw new SourceError(
          this.file,
          `unknown placeholder {{${name}}}; use one of ${known}`,
          1 + linesBefore(bytes, start),
        );
      }
      const inSubject = this.inSubjectField(bytes, start);
      return { start, end: close + 2, name: name as Placeholder, inSubject };
    }
  }

  /** Whether `at` lies in the Subject field (its first line or a folded continuation). */
  private inSubjectField(bytes: Buffer, at: number): boolean {
    const blank = bytes.indexOf("\r\n\r\n", 0, "latin1");
    if (bytes[0] === 13 || (blank !== -1 && at > blank)) return false;
    let lineStart = bytes.lastIndexOf(LF, at) + 1;
    while (lineStart > 0 && (bytes[lineStart] === 32 || bytes[lineStart] === 9)) {
      lineStart = bytes.lastIndexOf(LF, lineStart - 2) + 1;
    }
    return bytes.toString("latin1", lineStart, lineStart + 8).toLowerCase() === "subject:";
  }
}
