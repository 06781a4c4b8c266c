/**
 * What the client needs from the run, stated here so that client/ depends on nothing above it:
 * the run hands in its frozen config and its message factory, which satisfy these interfaces
 * structurally (client/ → smtp/, stats/ and config/ types only).
 */

import type { SecuritySettings } from "../config/security.js";
import type { Capabilities } from "../smtp/capabilities.js";
import type { Timeouts } from "../smtp/phases.js";
import type { After, Before } from "../smtp/pipelining.js";

/** Where a connection goes: TCP host and port, or a unix socket. */
export type Endpoint =
  | { readonly kind: "tcp"; readonly host: string; readonly port: number }
  | { readonly kind: "unix"; readonly path: string };

/** TLS and AUTH as a connection needs them (run and probe): the config's own type. */
export type SecurityOptions = SecuritySettings;

/** TLS settings with the target they are for (SNI). */
export type TlsSettings = SecurityOptions & { readonly target: Endpoint | null };

/** The dialogue a session holds: the parts of the run's config it reads. */
export interface SessionOptions extends TlsSettings {
  readonly mode: "reuse" | "per-message";
  /** Recipients of a message without a class of its own. */
  readonly recipients: number;
  /** Message classes; only their recipients matter here (ring sizes). */
  readonly classes: readonly { readonly recipients?: number | null }[];
  readonly helo: string;
  /** Pause after each message in a session, ms (0: none); random in [0, waitMs] when set. */
  readonly waitMs: number;
  readonly randomWait: boolean;
  /** Local addresses the connections come from, in turn per session. */
  readonly sourceAddresses: readonly string[];
  readonly lmtp: boolean;
  readonly chunking: boolean;
  /** With BDAT: transactions in flight per session. */
  readonly window: number;
  readonly pipelining: "auto" | "off";
  readonly timeouts: Timeouts;
  /** Reuse mode: 4xx replies to MAIL in a row after which the session QUITs to reconnect. */
  readonly reconnectAfterDeferrals: number;
  /** --xverp: the server must offer XVERP, or the session is refused before MAIL. */
  readonly xverp: boolean;
}

/** What the session's accounting needs of a message's class. */
export interface MessageKind {
  /** Index into the run's classes (per-class counts). */
  readonly index: number;
  readonly recipients: number;
}

/**
 * A session's messages: which message each slot of its transaction ring carries, and the bytes
 * each step of a transaction writes, one question per step (messages/factory.ts answers them).
 */
export interface SessionMessages {
  /** Message `seq` goes into `slot`, its content as of `epochMs`; returns its class. */
  begin(slot: number, seq: number, epochMs: number): MessageKind;
  /** Lock-step: the MAIL command of the message in `slot`. */
  mailLine(slot: number, caps: Capabilities): string;
  /** Lock-step: the RCPT command for recipient `index`. */
  rcptLine(slot: number, index: number): string;
  /** Pipelined (RFC 2920): [RSET,] MAIL, every RCPT and DATA as one Buffer. */
  envelopeGroup(slot: number, caps: Capabilities, before: Before): Buffer;
  /** The envelope that follows a content written with After.Envelope; null: it rode along. */
  nextEnvelopeGroup(slot: number, caps: Capabilities): Buffer | null;
  /** After DATA's 354: the content, its final dot and what follows. */
  content(slot: number, after: After, caps: Capabilities, epochMs: number): Buffer;
  /** Called after content() was written; true when the socket still holds the Buffer. */
  written(stillQueued: boolean): void;
  /** A whole BDAT transaction (RFC 3030): [RSET,] MAIL, RCPTs, `BDAT n LAST` and the octets. */
  bdatTransaction(slot: number, caps: Capabilities, before: Before, epochMs: number): Buffer;
}
