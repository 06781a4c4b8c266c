import { epochMs as nowEpochMs } from "../stats/clock.js";

/**
 * The time as of the read chunk being processed, each clock read at most once a chunk: the
 * messages one chunk completes arrived together (a window of BDAT transactions is one read),
 * so they share one reading instead of two clock calls a message.
 */
export class ChunkClock {
  private epoch = -1;
  private wall = -1;

  /** A read chunk begins: the next question reads the clocks again. */
  tick(): void {
    this.epoch = -1;
    this.wall = -1;
  }

  /** Epoch milliseconds with a sub-millisecond fraction, as the client stamps X-Mailvolley-Sent. */
  epochMs(): number {
    if (this.epoch < 0) this.epoch = nowEpochMs();
    return this.epoch;
  }

  /** Date.now(), the wall clock the sink's other times (first connect) are read from. */
  wallMs(): number {
    if (this.wall < 0) this.wall = Date.now();
    return this.wall;
  }
}
