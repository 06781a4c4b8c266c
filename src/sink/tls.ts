/**
 * TLS material for STARTTLS (RFC 3207) and implicit-TLS listeners: the user's PEM files, or a
 * self-signed certificate made at start. The self-signed pair is made once per process: key
 * generation costs tens of milliseconds and tests start many sinks.
 */

import { constants } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createSecureContext, type SecureContext, type TLSSocket } from "node:tls";
import { UsageError } from "../usage/usage-error.js";
import type { FilledSinkOptions } from "./options.js";

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

export async function loadTlsMaterial(o: FilledSinkOptions): Promise<TlsMaterial> {
  if (o.tlsCert === undefined && o.tlsKey === undefined) return selfSignedMaterial();
  if (o.tlsCert === undefined || o.tlsKey === undefined) {
    throw new UsageError("--tls-cert", "give --tls-key with it; the two go together");
  }
  const read = async (path: string, option: string) => {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      throw new UsageError(`--${option}`, (error as Error).message, path);
    }
  };
  const material = {
    cert: await read(o.tlsCert, "tls-cert"),
    key: await read(o.tlsKey, "tls-key"),
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
 * 1.2, and TLS 1.3 PSK tickets) by default and keeps no session-ID cache of its own; without
 * tickets (`resume` false) no session can be resumed: every handshake is full.
 */
export function secureContextOf(material: TlsMaterial, resume = true): SecureContext {
  return createSecureContext(tlsServerOptions(material, resume));
}

/** Certificate, key and whether tickets are issued, for a context or an implicit-TLS listener. */
export function tlsServerOptions(material: TlsMaterial, resume: boolean) {
  const secureOptions = resume ? 0 : constants.SSL_OP_NO_TICKET;
  return { cert: material.cert, key: material.key, secureOptions };
}

/** Counts a finished handshake as full or resumed. */
export function countHandshake(
  socket: TLSSocket,
  counters: { tlsFull: number; tlsResumed: number },
): void {
  if (socket.isSessionReused()) counters.tlsResumed++;
  else counters.tlsFull++;
}
