/**
 * End-of-data detection for DATA content (RFC 5321 §4.1.1.4): the content ends at a line holding
 * a single dot, i.e. at CRLF "." CRLF, where the first CRLF may be the one that ended the DATA
 * command itself. The marker may be split across reads at any byte, so the scanner keeps the
 * length of the marker prefix that ended the previous chunk (0..4) and starts a message at 2.
 */

const CR = 13;
const LF = 10;
const DOT = 46;

/**
 * The whole end-of-data marker as the scanner meets it in the stream: the CRLF that ends the
 * last content line (or the DATA command), the dot, its CRLF. The client's END_OF_DATA
 * (smtp/message.ts) is the dot line alone, sent after content that ends with CRLF.
 */
export const CRLF_DOT_CRLF = Buffer.from("\r\n.\r\n", "latin1");
/** Marker state at the start of the content: the DATA line's CRLF counts as the first CRLF. */
export const START_STATE = 2;

/** Finds the end of DATA content chunk by chunk; one scanner per session, reset per message. */
export class EndOfDataScanner implements EndFinder {
  private state = START_STATE;

  reset(): void {
    this.state = START_STATE;
  }

  /**
   * The index just after the end-of-data marker in `chunk[pos…]`, or -1 when the chunk does not
   * complete one (a partial marker at its end is remembered for the next chunk).
   */
  find(chunk: Buffer, pos: number): number {
    let state = this.state;
    if (state > 0) {
      let i = pos;
      while (state < 5 && i < chunk.length && chunk[i] === CRLF_DOT_CRLF[state]) {
        state++;
        i++;
      }
      if (state === 5) {
        this.state = START_STATE;
        return i;
      }
      if (i === chunk.length) {
        this.state = state;
        return -1;
      }
      // Mismatch: the partial marker was content; a marker can only start at or after pos.
    }
    const at = chunk.indexOf(CRLF_DOT_CRLF, pos);
    if (at !== -1) {
      this.state = START_STATE;
      return at + 5;
    }
    this.state = tailState(chunk, pos, chunk.length);
    return -1;
  }
}

/** What finds the end of a message's data; the session keeps one per policy. */
export interface EndFinder {
  reset(): void;
  find(chunk: Buffer, pos: number): number;
}

/** Lenient scanner states: inside a line, at a line start, after a line-start dot, and its CR. */
const MID_LINE = 0;
const LINE_START = 1;
const DOT_SEEN = 2;
const DOT_CR_SEEN = 3;

/**
 * End of data when a bare LF also ends a line (`--bare-lf normalize`, Postfix's reading): a
 * line holding a single dot, ended by CRLF or LF, after a line ended by CRLF or LF. Slower than
 * the CRLF scanner (it looks at each line start), so it is used only when asked for.
 */
export class LenientEndScanner implements EndFinder {
  private state = LINE_START;

  reset(): void {
    this.state = LINE_START;
  }

  find(chunk: Buffer, pos: number): number {
    let state = this.state;
    let i = pos;
    while (i < chunk.length) {
      if (state === MID_LINE) {
        const lf = chunk.indexOf(LF, i);
        if (lf === -1) {
          i = chunk.length;
          break;
        }
        state = LINE_START;
        i = lf + 1;
        continue;
      }
      const c = chunk[i++];
      if (state === LINE_START) state = c === DOT ? DOT_SEEN : c === LF ? LINE_START : MID_LINE;
      else if (c === LF) {
        this.state = LINE_START;
        return i;
      } else state = state === DOT_SEEN && c === CR ? DOT_CR_SEEN : MID_LINE;
    }
    this.state = state;
    return -1;
  }
}

/** How much of the marker the bytes `chunk[pos, end)` end with (0..4). */
export function tailState(chunk: Buffer, pos: number, end: number): number {
  const n = end - pos;
  if (n >= 1 && chunk[end - 1] === CR) {
    return n >= 4 && chunk[end - 2] === DOT && chunk[end - 3] === LF && chunk[end - 4] === CR
      ? 4
      : 1;
  }
  if (n >= 2 && chunk[end - 1] === LF && chunk[end - 2] === CR) return 2;
  if (n >= 3 && chunk[end - 1] === DOT && chunk[end - 2] === LF && chunk[end - 3] === CR) return 3;
  return 0;
}

/**
 * Per-line checks on message text, used only when a text line limit or bare-LF rejection is
 * configured: the fast path finds only the end-of-data marker and never looks at lines.
 */
export class LineChecker {
  /** Octets of the current line so far (across chunks). */
  private lineLength = 0;
  private lastWasCr = false;
  bareLf = false;
  tooLong = false;

  constructor(private readonly maxLine: number) {}

  reset(): void {
    this.lineLength = 0;
    this.lastWasCr = false;
    this.bareLf = false;
    this.tooLong = false;
  }

  scan(chunk: Buffer, start: number, end: number): void {
    let pos = start;
    const max = this.maxLine;
    while (pos < end) {
      const lf = chunk.indexOf(LF, pos);
      if (lf === -1 || lf >= end) {
        this.lineLength += end - pos;
        this.lastWasCr = chunk[end - 1] === CR;
        if (max > 0 && this.lineLength > max) this.tooLong = true;
        return;
      }
      const beforeLf = lf > start ? chunk[lf - 1] === CR : this.lastWasCr;
      if (!beforeLf) this.bareLf = true;
      this.lineLength += lf + 1 - pos;
      if (max > 0 && this.lineLength > max) this.tooLong = true;
      this.lineLength = 0;
      this.lastWasCr = false;
      pos = lf + 1;
    }
  }
}
