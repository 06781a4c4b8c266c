/** The npm smtp-server package, in-process on an ephemeral loopback port. */
import type net from "node:net";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { HOST, once, type Peer, type PeerCounts } from "./peer.js";

export interface SmtpServerPeer extends Peer {
  /** Messages accepted so far. */
  messages(): number;
  /** Sessions opened so far. */
  sessions(): number;
  /** The SMTPServer instance, for tests that want to inspect it. */
  server: SMTPServer;
  stop(): Promise<PeerCounts & { sessions: number }>;
}

export interface SmtpServerPeerOptions extends SMTPServerOptions {
  /**
   * Decides the reply to each message's data: return an Error (its `responseCode` is used) to
   * reject it; the default accepts everything.
   */
  verdict?: (index: number) => Error | null;
}

/**
 * The npm smtp-server package in-process on an ephemeral loopback port. Defaults suit load
 * tests: no AUTH, no STARTTLS, no logging, a high client limit; any option passes through.
 */
export async function startSmtpServer(opts: SmtpServerPeerOptions = {}): Promise<SmtpServerPeer> {
  const { verdict, ...options } = opts;
  let messages = 0;
  let sessions = 0;
  let seen = 0;
  const server = new SMTPServer({
    disabledCommands: ["AUTH", "STARTTLS"],
    authOptional: true,
    logger: false,
    hideSTARTTLS: true,
    maxClients: 100_000,
    ...options,
    onConnect(session, callback) {
      sessions++;
      if (options.onConnect) options.onConnect(session, callback);
      else callback();
    },
    onData(stream, _session, callback) {
      stream.on("data", () => {});
      stream.on("end", () => {
        const error = verdict ? verdict(seen++) : null;
        if (error) return callback(error);
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded) {
          const tooBig = Object.assign(new Error("Message exceeds fixed size limit"), {
            responseCode: 552,
          });
          return callback(tooBig);
        }
        messages++;
        callback(null, "Ok: queued");
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, HOST, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.server.address() as net.AddressInfo;
  const stop = async () => {
    // close() waits for open sessions (up to closeTimeout); end them now instead.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const connection of server.connections) {
      (connection as unknown as { _socket?: net.Socket })._socket?.destroy();
    }
    await closed;
    return { messages, sessions };
  };
  return {
    host: HOST,
    port,
    server,
    messages: () => messages,
    sessions: () => sessions,
    stop: once(stop),
  };
}
