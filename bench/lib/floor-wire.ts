import net from "node:net";

/**
 * What the two Node floors (bench/floor.ts, plain; bench/tls-floor.ts, over STARTTLS) share: the
 * command line they take and the bytes they send, so that both send the same message and
 * envelope and their figures compare.
 *
 *   node dist/bench/floor.js HOST PORT SESSIONS MESSAGES [MODE]
 */

/** HOST PORT SESSIONS MESSAGES [MODE] from the command line. */
export function floorArgs(argv: readonly string[] = process.argv.slice(2)): {
  host: string;
  port: number;
  sessions: number;
  messages: number;
  mode: string | undefined;
} {
  const [host, port, sessions, messages, mode] = argv;
  return { host, port: Number(port), sessions: Number(sessions), messages: Number(messages), mode };
}

export const CRLF = "\r\n";
export const ENVELOPE = `MAIL FROM:<floor@example.com>${CRLF}RCPT TO:<sink@example.com>${CRLF}DATA${CRLF}`;
/** 1,281 octets between the 354 and the dot, the size of mailvolley's default message. */
const MESSAGE_SIZE = 1281;
const HEADER = `From: <floor@example.com>${CRLF}To: <sink@example.com>${CRLF}Subject: floor${CRLF}${CRLF}`;
const LINE = `${"x".repeat(76)}${CRLF}`;
const FULL_LINES = Math.floor((MESSAGE_SIZE - HEADER.length) / LINE.length);
const REST = MESSAGE_SIZE - HEADER.length - FULL_LINES * LINE.length;
/** The message's content, without its final dot. */
export const BODY = `${HEADER}${LINE.repeat(FULL_LINES)}${"x".repeat(REST - 2)}${CRLF}`;
export const EHLO = Buffer.from(`EHLO floor.example.com${CRLF}`, "latin1");
export const FIRST_ENVELOPE = Buffer.from(ENVELOPE, "latin1");
export const LF = 10;
export const SPACE = 32;

/**
 * Finds where each reply ends, its last line being the code and a space (RFC 5321 §4.2.1), in
 * the bytes read, and hands on the reply's first digit: all a floor reads of a reply.
 */
export class ReplyEnds {
  private atLineStart = true;
  private column = 0;
  private finalLine = false;
  private firstDigit = 0;

  constructor(private readonly onReplyEnd: (digit: number) => void) {}

  /** A new connection: its first byte starts a line. */
  reset(): void {
    this.atLineStart = true;
  }

  read(buf: Buffer, length: number): void {
    for (let i = 0; i < length; i++) {
      const b = buf[i];
      if (this.atLineStart) {
        this.column = 0;
        this.firstDigit = b;
      }
      this.atLineStart = false;
      if (this.column === 3) this.finalLine = b === SPACE;
      this.column++;
      if (b !== LF) continue;
      this.atLineStart = true;
      if (this.finalLine) this.onReplyEnd(this.firstDigit);
    }
  }
}

/** One read buffer for every floor socket: a floor reads a chunk whole before the next. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * A plain connection whose reads go through `onread` into the shared buffer and on to
 * `replies`, as mailvolley's transport reads: no Buffer allocated per read.
 */
export function floorConnect(host: string, port: number, replies: ReplyEnds): net.Socket {
  return net.connect({
    host,
    port,
    noDelay: true,
    onread: {
      buffer: READ_BUFFER,
      callback(nread: number, buf: Buffer): boolean {
        replies.read(buf, nread);
        return true;
      },
    },
  });
}
