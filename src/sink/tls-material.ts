/**
 * TLS material for STARTTLS (RFC 3207) and implicit-TLS listeners: the user's PEM files, or a
 * self-signed certificate made at start. The self-signed pair is made once per process: key
 * generation costs tens of milliseconds and tests start many sinks.
 */

import { constants } from "node:crypto";
import { EventEmitter } from "node:events";
import { createSecureContext, type SecureContext, type TLSSocket } from "node:tls";
import { type InputFile, readInputFile } from "../usage/input-file.js";
import { UsageError } from "../usage/usage-error.js";
import type { FilledSinkOptions } from "./filled-options.js";

export interface TlsMaterial {
  cert: string;
  key: string;
}

let selfSigned: Promise<TlsMaterial> | null = null;

/** A self-signed certificate for `localhost`, 127.0.0.1 and ::1 (clients must not verify it). */
export function selfSignedMaterial(): Promise<TlsMaterial> {
  selfSigned ??= makeSelfSigned();
  return selfSigned;
}

/**
 * An EC P-256 key: generated in about 20 ms where RSA 2048 takes 150 ms or more, and the
 * certificate library (300 ms to load) is imported only when a sink needs TLS.
 */
async function makeSelfSigned(): Promise<TlsMaterial> {
  const { generate } = await import("selfsigned");
  const pems = await generate([{ name: "commonName", value: "mailvolley-sink" }], {
    keyType: "ec",
    curve: "P-256",
    notAfterDate: new Date(Date.now() + 30 * 86_400_000),
    algorithm: "sha256",
    extensions: [
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** The certificate and key files as inputs (usage/input-file.ts), by their option's key. */
export const TLS_INPUTS = {
  tlsCert: { option: "--tls-cert", what: "PEM certificate" },
  tlsKey: { option: "--tls-key", what: "PEM private key" },
} as const;

export async function loadTlsMaterial(o: FilledSinkOptions): Promise<TlsMaterial> {
  if (o.tlsCert === undefined && o.tlsKey === undefined) return selfSignedMaterial();
  if (o.tlsCert === undefined || o.tlsKey === undefined) {
    throw new UsageError("--tls-cert", "give --tls-key with it; the two go together");
  }
  // A pipe the command did not read ahead is refused: the sink's signal handlers come once it
  // listens, too late to end a wait for a writer.
  const read = async (path: string, input: InputFile) =>
    (await readInputFile(path, input)).toString("utf8");
  const material = {
    cert: await read(o.tlsCert, TLS_INPUTS.tlsCert),
    key: await read(o.tlsKey, TLS_INPUTS.tlsKey),
  };
  try {
    secureContextOf(material); // a PEM that does not parse is the certificate's fault, not --listen's
  } catch (error) {
    throw new UsageError(
      "--tls-cert",
      `not a usable PEM certificate and key (${(error as Error).message})`,
      `${o.tlsCert} / --tls-key ${o.tlsKey}`,
    );
  }
  return material;
}

/**
 * The context of every TLS session the sink serves. Node's server issues session tickets (TLS
 * 1.2, and TLS 1.3 PSK tickets) by default; session IDs are resumed from a SessionIdCache.
 * Without resumption (`resume` false) no tickets are issued and no cache is kept: every
 * handshake is full.
 */
export function secureContextOf(material: TlsMaterial, resume = true): SecureContext {
  return createSecureContext(tlsServerOptions(material, resume));
}

/** Certificate, key and whether tickets are issued, for a context or an implicit-TLS listener. */
export function tlsServerOptions(material: TlsMaterial, resume: boolean) {
  const secureOptions = resume ? 0 : constants.SSL_OP_NO_TICKET;
  // The same id context for every listener and STARTTLS: a session is this sink's wherever made.
  return {
    cert: material.cert,
    key: material.key,
    secureOptions,
    sessionIdContext: "mailvolley-sink",
  };
}

/** Sessions kept for resumption by ID: the newest, about 250 bytes each with their key. */
const SESSION_ID_CACHE_SIZE = 20_000;

type ResumeDone = (err: Error | null, session: Buffer | null) => void;

/**
 * The sink's session-ID cache (TLS 1.2, RFC 5246 §7.3), as a gateway keeps one for clients that
 * take no tickets. Node keeps none of its own: OpenSSL's internal cache is off, and a server
 * socket asks its `server` through 'newSession' and 'resumeSession' events. This emitter is that
 * `server` for STARTTLS sockets, and serves an implicit-TLS listener's events (serve()).
 * The newest sessions are kept, the oldest dropped: a session resumed from it after it was
 * dropped is a full handshake, counted so. TLS 1.3 hands its sessions here too; they resume from
 * their tickets, and stay here only until newer ones push them out.
 */
export class SessionIdCache extends EventEmitter {
  private readonly sessions = new Map<string, Buffer>();

  constructor(private readonly size = SESSION_ID_CACHE_SIZE) {
    super();
    this.serve(this);
  }

  /** Answers `server`'s session events from this cache. */
  serve(server: EventEmitter): void {
    server.on("newSession", this.store);
    server.on("resumeSession", this.lookUp);
  }

  private readonly store = (id: Buffer, session: Buffer, done: () => void): void => {
    const key = id.toString("latin1");
    this.sessions.delete(key); // re-inserted as the newest
    this.sessions.set(key, session);
    if (this.sessions.size > this.size) {
      this.sessions.delete(this.sessions.keys().next().value as string);
    }
    done();
  };

  private readonly lookUp = (id: Buffer, done: ResumeDone): void => {
    done(null, this.sessions.get(id.toString("latin1")) ?? null);
  };
}

/** Counts a finished handshake as full or resumed. */
export function countHandshake(
  socket: TLSSocket,
  counters: { tlsFull: number; tlsResumed: number },
): void {
  if (socket.isSessionReused()) counters.tlsResumed++;
  else counters.tlsFull++;
}
