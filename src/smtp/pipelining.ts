/**
 * What shares a write with an envelope group or a message's content (RFC 2920 §3.1): the
 * session decides, the run's message factory builds the bytes. Defined here, below both.
 */

/** What travels in the same write as a message body, after its final dot (RFC 2920 §3.1). */
export enum After {
  Nothing = 0,
  Quit = 1,
  Envelope = 2,
}

/** What opens an envelope group: an RSET when the last transaction failed (RFC 5321 §4.1.1.5). */
export enum Before {
  Nothing = 0,
  Rset = 1,
}

/** RFC 5321 §4.1.1.10. */
export const QUIT_COMMAND = Buffer.from("QUIT\r\n", "latin1");

/** RFC 5321 §4.1.1.4: lock-step DATA (pipelined groups carry theirs in the envelope's bytes). */
export const DATA_COMMAND = Buffer.from("DATA\r\n", "latin1");

/** RFC 5321 §4.1.1.5: a lock-step RSET after a failed transaction. */
export const RSET_COMMAND = Buffer.from("RSET\r\n", "latin1");
