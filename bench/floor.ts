/**
 * The floor under any Node.js SMTP generator: the fewest system calls and the least JavaScript
 * that can send pipelined DATA transactions. Each session writes the envelope group, and on the
 * 354 the same prebuilt message (body, dot, next envelope) in one write; it counts the replies'
 * last lines and nothing else: no histograms, no header per message, no reply checks, no
 * timeouts. Reads go through `onread` into one shared buffer, as mailvolley's do. With
 * `per-message` each connection carries one message, and the next one reuses the closed Socket
 * (socket.connect() after 'close'), the cheapest way Node.js opens a connection. It is not a
 * tool; it tells how much of mailvolley's CPU per message is its own and how much is Node's
 * and the kernel's.
 *
 *   node dist/bench/floor.js HOST PORT SESSIONS MESSAGES [per-message]
 *
 * Prints one JSON line: messages, seconds (first connect to last reply) and CPU µs (user,
 * system) of the whole process over the same span.
 */
import {
  BODY,
  CRLF,
  EHLO,
  ENVELOPE,
  FIRST_ENVELOPE,
  floorArgs,
  floorConnect,
  ReplyEnds,
} from "./lib/floor-wire.js";

const { host, port, sessions, messages, mode } = floorArgs();
const perMessage = mode === "per-message";

const MESSAGE_THEN_ENVELOPE = Buffer.from(`${BODY}.${CRLF}${ENVELOPE}`, "latin1");
const MESSAGE_THEN_QUIT = Buffer.from(`${BODY}.${CRLF}QUIT${CRLF}`, "latin1");

let next = 0;
let accepted = 0;
let open = 0;
const started = performance.now();
const cpuBefore = process.cpuUsage();

function session(): void {
  /** 0: banner awaited, 1: EHLO's reply, 2: transactions, 3: last dot's reply, 4: QUIT's. */
  let stage = 0;
  let sent = 0;
  const replies = new ReplyEnds(onReplyEnd);
  /** A connection starts: the message it carries taken (per-message mode), the parser reset. */
  function begin(): void {
    if (perMessage) next++;
    stage = 0;
    sent = 0;
    replies.reset();
  }
  begin();
  const socket = floorConnect(host, port, replies);
  open++;
  // The first digit of each reply is all this reads: 3 means the 354, go on with the data.
  function onReplyEnd(digit: number): void {
    if (stage === 0) {
      stage = 1;
      socket.write(EHLO);
    } else if (stage === 1) {
      stage = 2;
      if (!perMessage) next++; // per-message: taken when the connection opened
      sent++;
      socket.write(FIRST_ENVELOPE);
    } else if (digit === 0x33) {
      if (next < messages && !perMessage) {
        next++;
        sent++;
        socket.write(MESSAGE_THEN_ENVELOPE);
      } else {
        stage = 3;
        socket.write(MESSAGE_THEN_QUIT);
      }
    } else if (stage === 3) {
      stage = 4; // the last dot's 250; the 221 follows
    } else if (stage === 4) {
      // The 221 ends the session: a reset, no TIME_WAIT, as mailvolley and smtp-source close.
      socket.resetAndDestroy();
    }
  }
  socket.on("close", () => {
    accepted += sent;
    if (perMessage && next < messages) {
      // Node reconnects a closed Socket (net docs, socket.connect()): the next connection
      // skips constructing a Socket and its stream states, as mailvolley's sessions do.
      begin();
      socket.connect({ host, port });
      return;
    }
    open--;
    if (open === 0) finish();
  });
  socket.on("error", (err) => {
    process.stderr.write(`floor: ${err.message}\n`);
    process.exit(1);
  });
}

function finish(): void {
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(
    `${JSON.stringify({
      messages: accepted,
      seconds: (performance.now() - started) / 1000,
      cpuUserUs: cpu.user,
      cpuSystemUs: cpu.system,
    })}\n`,
  );
}

for (let i = 0; i < sessions && i < messages; i++) session();
