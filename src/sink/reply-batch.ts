/**
 * The replies a session owes for the read chunk being processed, sent with one socket.write
 * at the chunk's end: a pipelined group gets its replies in one segment, and nothing is left
 * unsent while the session waits for input (RFC 2920 §3.1). Replies are prebuilt Buffers held
 * in a slot array that never shrinks; several are joined into a scratch Buffer shared by every
 * session of the thread, which is handed over to a socket (and replaced) only when the socket
 * could not take the write whole, since Node then holds on to it until it is written.
 */
import type { Socket } from "node:net";

const SCRATCH_SIZE = 16 * 1024;
let scratch = Buffer.allocUnsafe(SCRATCH_SIZE);

export class ReplyBatch {
  private readonly replies: Buffer[] = [];
  private count = 0;
  private bytes = 0;

  add(reply: Buffer): void {
    this.replies[this.count++] = reply;
    this.bytes += reply.length;
  }

  /** Writes the held replies, in order, as one write (none to a destroyed socket); empties. */
  writeTo(socket: Socket): void {
    const count = this.count;
    const bytes = this.bytes;
    this.count = 0;
    this.bytes = 0;
    if (count === 0 || socket.destroyed) return;
    if (count === 1) {
      socket.write(this.replies[0]);
      return;
    }
    const shared = bytes <= SCRATCH_SIZE;
    const out = shared ? scratch : Buffer.allocUnsafe(bytes);
    let at = 0;
    for (let i = 0; i < count; i++) at += this.replies[i].copy(out, at);
    socket.write(shared ? out.subarray(0, bytes) : out);
    if (shared && socket.writableLength > 0) scratch = Buffer.allocUnsafe(SCRATCH_SIZE);
  }
}
