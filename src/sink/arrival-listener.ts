import type { Envelope } from "./envelope-log.js";

/**
 * What the sink tells a receiver of the messages it takes and refuses: the delivery join's
 * receiver (delivery/receiver.ts) implements it, so that the sink needs nothing above it.
 */
export interface ArrivalListener {
  /** A message the sink accepted: `content` its start as received, `atMs` epoch ms. */
  arrived(content: Buffer, envelope: Envelope | null, atMs: number): void;
  /** The sink refused a whole transaction after its content (`reply`: its answer to the data). */
  refused(
    content: Buffer | null,
    envelope: Envelope | null,
    reply: Buffer | null,
    atMs: number,
  ): void;
  /**
   * The sink refused recipient `rcpt` at RCPT with `reply` (null: it closed without one, which
   * a gateway retries). Only MAIL's ENVID or the recipient's tag name the message before its
   * content: without them the refusal waits in the envelope for the content's keys.
   */
  refusedRcpt(envelope: Envelope | null, rcpt: string, reply: Buffer | null, atMs: number): void;
}
