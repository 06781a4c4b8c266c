/**
 * What the messages of a run are made of, as messages/ reads it: the run's checked config
 * (config/run-config.ts) satisfies these shapes, and config/ takes the class shapes from here
 * (one definition); messages/ never imports config/.
 */
import type { SourceKind, SourceOrder } from "./source.js";

/** Where a class's content comes from (--eml, --eml-dir, --mbox, --template or a plan class). */
export interface SourceSpec {
  readonly kind: SourceKind;
  readonly path: string;
  readonly order: SourceOrder;
  /** Seed of a random order (repeatable runs); drawn when absent. */
  readonly seed?: number;
}

/** One message class: its share of the messages and what sets its messages apart. */
export interface MessageClassSpec {
  readonly name: string;
  /** Relative weight; shares are kept exact over every whole cycle of messages. */
  readonly share: number;
  readonly subject?: string;
  /** Extra header lines, in order. */
  readonly headers: readonly (readonly [string, string])[];
  /** Generated body sizes with their weights; the run's when absent. */
  readonly sizes?: readonly { readonly size: number; readonly weight: number }[];
  readonly from?: string;
  readonly to?: string;
  readonly recipients?: number;
  readonly source?: SourceSpec;
}

/** The run's message options: envelopes, headers, bodies and the classes that vary them. */
export interface MessageOptions {
  readonly classes: readonly MessageClassSpec[];
  /** Generated body sizes (octets after the header block) with their weights. */
  readonly sizes: readonly { readonly size: number; readonly weight: number }[];
  readonly recipients: number;
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly runId: string;
  readonly uniqueRecipients: boolean;
  /** Files of sender and recipient addresses, used in turn; null: from / to. */
  readonly fromFile: string | null;
  readonly toFile: string | null;
  /** Ask for XVERP on MAIL (Postfix's variable envelope return paths). */
  readonly xverp: boolean;
  /** DSN (RFC 3461): RET= on MAIL and NOTIFY= on every RCPT, when given. */
  readonly dsnRet: "FULL" | "HDRS" | null;
  readonly dsnNotify: string | null;
  /**
   * The run receives what the gateway relays (--receive): every message carries
   * `X-Mailvolley-Id: RUNID.SEQ` and, where the server offers DSN, MAIL's ENVID=RUNID.SEQ
   * (RFC 3461 §4.4), the keys the delivery join finds it by.
   */
  readonly traceIds?: boolean;
  /**
   * With traceIds (--tag-recipients): each recipient's local part gets `+RUNID.SEQ`, a key
   * in the envelope for gateways that rewrite the content and offer no DSN.
   */
  readonly tagRecipients?: boolean;
}
