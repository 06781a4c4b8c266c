/**
 * What offering a TLS session costs a Node.js client before any byte is sent. tls.connect()
 * given `session` sets it twice in Node 20: once as TLSSocket's constructor sets up its handle
 * (_init) and once more right after (tls.connect itself); each setSession parses the session
 * again (d2i_SSL_SESSION, the server's certificate within it included). This connects to a
 * STARTTLS server, takes the session ticket it issues, then times setSession() on that socket,
 * and for scale the per-handshake calls mailvolley makes (getCipher, getProtocol,
 * isSessionReused). Prints one JSON line of µs per call.
 *
 *   node dist/bench/tls-session-parse.js HOST PORT [CALLS]
 *
 * Against the built-in sink: `node dist/bench/sink-process.js` prints its port.
 */
import net from "node:net";
import tls from "node:tls";
import { CRLF, EHLO, ReplyEnds } from "./lib/floor-wire.js";

const [host, portText, callsText] = process.argv.slice(2);
const port = Number(portText);
const calls = Number(callsText ?? 2000);

/** CPU µs (user + system) of `fn` per call, over `calls` calls. */
function perCall(fn: () => unknown): number {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const used = process.cpuUsage(before);
  return Math.round(((used.user + used.system) / calls) * 100) / 100;
}

/** tlsSocket.setSession() is in Node's documentation, not in @types/node. */
type Resumable = tls.TLSSocket & { setSession(session: Buffer): void };

function measure(secure: Resumable, session: Buffer): void {
  const figures = {
    sessionBytes: session.length,
    setSessionUs: perCall(() => secure.setSession(session)),
    getCipherUs: perCall(() => secure.getCipher()),
    getProtocolUs: perCall(() => secure.getProtocol()),
    isSessionReusedUs: perCall(() => secure.isSessionReused()),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}

/** Banner, EHLO, STARTTLS, handshake, EHLO; measures once the server's ticket is here. */
const plain = net.connect({ host, port });
let replies = 0;
const ends = new ReplyEnds(() => {
  replies++;
  if (replies === 1) plain.write(EHLO);
  else if (replies === 2) plain.write(`STARTTLS${CRLF}`);
  else if (replies === 3) upgrade();
});
plain.on("data", (chunk: Buffer) => ends.read(chunk, chunk.length));
plain.on("error", fail);

function upgrade(): void {
  plain.removeAllListeners("data");
  const secure = tls.connect({ socket: plain, rejectUnauthorized: false });
  // Servers send TLS 1.3 tickets after the handshake; the first one is enough.
  secure.once("session", (session: Buffer) => measure(secure as Resumable, session));
  secure.on("secureConnect", () => secure.write(EHLO));
  secure.on("data", () => {});
  secure.on("error", fail);
}

function fail(err: Error): void {
  process.stderr.write(`tls-session-parse: ${err.message}\n`);
  process.exit(1);
}
