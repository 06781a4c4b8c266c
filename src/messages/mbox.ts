/**
 * An mbox file (RFC 4155): messages each preceded by a "From " separator line. In the body,
 * writers escape lines that would look like a separator: mboxo turns "From " into ">From ",
 * mboxrd adds one ">" to any line matching />*From /, so mboxrd can be undone exactly and
 * mboxo cannot (an original ">From " comes back as "From "). mboxcl writers escape nothing and
 * give each message a Content-Length header instead: a "From " line inside the body that
 * Content-Length covers is body, not a separator. A "From " line that splits a message anyway
 * leaves a part without a header; that is refused with its line, never sent silently.
 */
import { type PreparedContent, prepareContent, readSourceFile } from "./content.js";
import { MessageList } from "./list.js";
import { SourceError, type SourceOrder } from "./source.js";

const CR = 13;
const LF = 10;
const GT = 62;
const FROM = Buffer.from("From ", "latin1");

export type MboxFormat = "auto" | "mboxrd" | "mboxo";

export class MboxSource extends MessageList {
  constructor(
    prepared: readonly PreparedContent[],
    order: SourceOrder,
    seed: number | undefined,
    /** The escaping undone: as given, or as detected when `auto` was asked for. */
    readonly format: "mboxrd" | "mboxo",
  ) {
    super("mbox", prepared, order, seed);
  }
}

/** One message of the file: its octets after the separator line, and the escapes in them. */
interface MboxSpan {
  start: number;
  end: number;
  /** Line number of `start` in the file, for errors. */
  line: number;
  /** Offsets of escaped lines' first ">" and how many ">" each has. */
  escapes: { at: number; depth: number }[];
  /** Where the body ends by its Content-Length header (mboxcl); -1 without one. */
  bodyEnd: number;
}

/**
 * `auto` takes mboxrd when some line has two or more ">" before "From " (only mboxrd writes
 * them for ordinary mail); otherwise both formats unescape alike, and the source reports mboxo.
 * The blank line a writer puts before each separator belongs to the file, not the message.
 */
export async function loadMbox(
  path: string,
  order: SourceOrder = "sequential",
  seed?: number,
  format: MboxFormat = "auto",
): Promise<MboxSource> {
  const data = await readSourceFile(path, "mbox file");
  const spans = splitMbox(data, path);
  const deep = spans.some((span) => span.escapes.some((e) => e.depth > 1));
  const resolved = format === "auto" ? (deep ? "mboxrd" : "mboxo") : format;
  const prepared = spans.map((span) => {
    const raw = unescapeFromLines(data, span, resolved);
    if (raw.length === 0) {
      throw new SourceError(path, 'a message is empty; remove its "From " line', span.line - 1);
    }
    if (!HEADER_LINE.test(raw.toString("latin1", 0, Math.min(raw.length, 1000)))) {
      throw new SourceError(
        path,
        'this "From " line splits a message: what follows has no header. Escape it as ">From "' +
          " (mboxrd), or give the message a Content-Length header (mboxcl)",
        span.line - 1,
      );
    }
    return prepareContent(raw, path, span.line);
  });
  return new MboxSource(prepared, order, seed, resolved);
}

/** A message's first line is a header field: a name of printable octets but ":", then ":". */
const HEADER_LINE = /^[\x21-\x39\x3b-\x7e]+:/;

/**
 * Where the body of the message starting at `start` ends by its Content-Length header, or -1
 * when it has none. Only the header block is read.
 */
function contentLengthEnd(data: Buffer, start: number): number {
  let headerEnd = data.indexOf("\n\n", start, "latin1");
  const crlf = data.indexOf("\r\n\r\n", start, "latin1");
  if (crlf !== -1 && (headerEnd === -1 || crlf < headerEnd)) headerEnd = crlf + 4;
  else if (headerEnd !== -1) headerEnd += 2;
  else return -1;
  const header = /^content-length:[ \t]*(\d+)[ \t]*\r?$/im.exec(
    data.toString("latin1", start, headerEnd),
  );
  return header ? headerEnd + Number(header[1]) : -1;
}

/** Whether a separator (after at most one blank line) or the end of the file is at `at`. */
function separatorAt(data: Buffer, at: number): boolean {
  let p = at;
  if (data[p] === CR && data[p + 1] === LF) p += 2;
  else if (data[p] === LF) p += 1;
  return p >= data.length || startsWithFrom(data, p);
}

function startsWithFrom(data: Buffer, at: number): boolean {
  if (at + FROM.length > data.length) return false;
  return data.compare(FROM, 0, FROM.length, at, at + FROM.length) === 0;
}

/** The messages of `data` by separator lines, in one pass of indexOf over the line ends. */
export function splitMbox(data: Buffer, file: string): MboxSpan[] {
  let pos = 0;
  let line = 1;
  while (pos < data.length && (data[pos] === LF || (data[pos] === CR && data[pos + 1] === LF))) {
    pos += data[pos] === CR ? 2 : 1;
    line++;
  }
  if (pos === data.length)
    throw new SourceError(file, "is empty; an mbox needs at least one message");
  if (!startsWithFrom(data, pos)) {
    throw new SourceError(
      file,
      'does not start with a "From " line, so it is not an mbox file; a single message is an .eml file',
      line,
    );
  }
  const spans: MboxSpan[] = [];
  let current: MboxSpan | undefined;
  while (pos < data.length) {
    const lf = data.indexOf(LF, pos);
    const next = lf === -1 ? data.length : lf + 1;
    const framed = current !== undefined && pos < current.bodyEnd;
    if (data[pos] === 70 && startsWithFrom(data, pos) && !framed) {
      if (current) spans.push(finish(data, current, pos));
      current = { start: next, end: next, line: line + 1, escapes: [], bodyEnd: -1 };
      const bodyEnd = contentLengthEnd(data, next);
      // Trusted only when a separator (or the end) follows where Content-Length says.
      if (bodyEnd !== -1 && bodyEnd <= data.length && separatorAt(data, bodyEnd)) {
        current.bodyEnd = bodyEnd;
      }
    } else if (data[pos] === GT) {
      let p = pos + 1;
      while (data[p] === GT) p++;
      if (startsWithFrom(data, p)) current!.escapes.push({ at: pos, depth: p - pos });
    }
    pos = next;
    line++;
  }
  spans.push(finish(data, current!, data.length));
  return spans;
}

/** Ends `span` at `end`, dropping the one blank line that precedes the next separator. */
function finish(data: Buffer, span: MboxSpan, end: number): MboxSpan {
  if (end - span.start >= 2 && data[end - 1] === LF) {
    if (data[end - 2] === LF) end -= 1;
    else if (end - span.start >= 4 && data[end - 2] === CR && data[end - 3] === LF) end -= 2;
  }
  span.end = end;
  return span;
}

/** The span's octets with one ">" removed from each escaped line the format escapes. */
function unescapeFromLines(data: Buffer, span: MboxSpan, format: "mboxrd" | "mboxo"): Buffer {
  const drops = span.escapes.filter((e) => format === "mboxrd" || e.depth === 1);
  if (drops.length === 0) return data.subarray(span.start, span.end);
  const out = Buffer.allocUnsafe(span.end - span.start - drops.length);
  let o = 0;
  let from = span.start;
  for (const { at } of drops) {
    o += data.copy(out, o, from, at);
    from = at + 1;
  }
  data.copy(out, o, from, span.end);
  return out;
}
