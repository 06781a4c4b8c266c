/**
 * The floor under any Node.js SMTP generator over STARTTLS, a connection per message: connect,
 * banner, EHLO, STARTTLS, the TLS handshake, EHLO again, one pipelined transaction (MAIL, RCPT,
 * DATA; on the 354 the prebuilt message, its dot and QUIT in one write), the 221, close. It reads
 * only the first digit of each reply's last line: no histograms, no reply checks, no timeouts.
 * With `resume` each session offers the TLS session its previous connection received (tickets,
 * TLS 1.3 PSK), as mailvolley does by default; without it every handshake is full. One TLS
 * context serves every connection, as in mailvolley.
 *
 *   node dist/bench/tls-floor.js HOST PORT SESSIONS MESSAGES [resume]
 *
 * Prints one JSON line: messages, resumed handshakes, seconds (first connect to last reply) and
 * CPU µs (user, system) of the whole process over the same span.
 */
import net from "node:net";
import tls from "node:tls";
import { BODY, CRLF, EHLO, FIRST_ENVELOPE, floorArgs, ReplyEnds } from "./lib/floor-wire.js";

const { host, port, sessions, messages, mode } = floorArgs();
const resume = mode === "resume";

const MESSAGE_THEN_QUIT = Buffer.from(`${BODY}.${CRLF}QUIT${CRLF}`, "latin1");
const STARTTLS = Buffer.from(`STARTTLS${CRLF}`, "latin1");
/**
 * One TLS context for every connection, as a client that sets TLS up once per process does:
 * given none, tls.connect builds one per connection, about 200 µs of CPU each.
 */
const CONTEXT = tls.createSecureContext();

let next = 0;
let accepted = 0;
let resumed = 0;
let open = 0;
const started = performance.now();
const cpuBefore = process.cpuUsage();

/** Stages of one connection, in order. */
enum Stage {
  Banner,
  Ehlo,
  StartTls,
  Handshake,
  SecureEhlo,
  Envelope,
  Dot,
  Quit,
}

function session(): void {
  let ticket: Buffer | undefined;
  let stage = Stage.Banner;
  const replies = new ReplyEnds(onReplyEnd);
  let socket: net.Socket = net.connect({ host, port, noDelay: true });

  /** Reads replies' last lines and hands their first digit on. */
  const onData = (chunk: Buffer): void => replies.read(chunk, chunk.length);

  const connect = (): void => {
    next++;
    stage = Stage.Banner;
    replies.reset();
    socket = net.connect({ host, port, noDelay: true });
    socket.on("data", onData);
    socket.on("error", fail);
  };

  function onReplyEnd(digit: number): void {
    switch (stage) {
      case Stage.Banner:
        stage = Stage.Ehlo;
        socket.write(EHLO);
        return;
      case Stage.Ehlo:
        stage = Stage.StartTls;
        socket.write(STARTTLS);
        return;
      case Stage.StartTls:
        stage = Stage.Handshake;
        upgrade();
        return;
      case Stage.SecureEhlo:
        stage = Stage.Envelope;
        socket.write(FIRST_ENVELOPE);
        return;
      case Stage.Envelope:
        if (digit !== 0x33) return; // the 250s to MAIL and RCPT; the 354 sends the message
        stage = Stage.Dot;
        socket.write(MESSAGE_THEN_QUIT);
        return;
      case Stage.Dot:
        stage = Stage.Quit;
        accepted++;
        return;
      case Stage.Quit:
        socket.destroy();
        closed();
    }
  }

  function upgrade(): void {
    const plain = socket;
    plain.removeAllListeners("data");
    const secure = tls.connect({
      socket: plain,
      secureContext: CONTEXT,
      rejectUnauthorized: false,
      session: resume ? ticket : undefined,
    });
    if (resume) secure.on("session", (s: Buffer) => (ticket = s));
    secure.on("secureConnect", () => {
      if (secure.isSessionReused()) resumed++;
      stage = Stage.SecureEhlo;
      secure.write(EHLO);
    });
    secure.on("data", onData);
    secure.on("error", fail);
    socket = secure;
  }

  function closed(): void {
    if (next < messages) connect();
    else if (--open === 0) finish();
  }

  socket.on("data", onData);
  socket.on("error", fail);
  next++;
  open++;
}

function fail(err: Error): void {
  process.stderr.write(`tls-floor: ${err.message}\n`);
  process.exit(1);
}

function finish(): void {
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(
    `${JSON.stringify({
      messages: accepted,
      resumed,
      seconds: (performance.now() - started) / 1000,
      cpuUserUs: cpu.user,
      cpuSystemUs: cpu.system,
    })}\n`,
  );
}

for (let i = 0; i < sessions && i < messages; i++) session();
