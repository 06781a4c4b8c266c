/**
 * Which loaded message goes out as message `seq`. The answer depends on `seq` and the seed
 * only, never on call order, so sessions and workers that take sequence numbers out of order
 * or split them between threads still send the same message for the same `seq`.
 */
import { randomInt } from "node:crypto";
import type { SourceOrder } from "./source.js";

/** mulberry32: small, fast, good enough to shuffle a message list repeatably. */
function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for a random order when none was given; reported so the run can be repeated. */
export function drawSeed(): number {
  return randomInt(0, 2 ** 32);
}

/**
 * Sequential: message `seq mod count`. Random: the run goes through the messages in passes of
 * `count`; each pass is its own seeded shuffle, so every message goes out once per pass (an
 * archive replayed at random is replayed whole) and passes differ from each other.
 */
export class MessagePicker {
  private readonly passes: [number, Uint32Array | undefined][] = [
    [-1, undefined],
    [-1, undefined],
  ];
  private nextSlot = 0;

  constructor(
    private readonly count: number,
    private readonly order: SourceOrder,
    private readonly seed: number,
  ) {}

  index(seq: number): number {
    const position = seq % this.count;
    if (this.order === "sequential" || this.count === 1) return position;
    return this.shuffle(Math.floor(seq / this.count))[position];
  }

  /** Two passes are kept: sessions near a pass boundary ask for both in turn. */
  private shuffle(pass: number): Uint32Array {
    for (const [p, perm] of this.passes) if (p === pass && perm) return perm;
    const perm = new Uint32Array(this.count);
    for (let i = 0; i < perm.length; i++) perm[i] = i;
    const next = mulberry32(this.seed ^ Math.imul(pass + 1, 0x9e3779b1));
    for (let i = perm.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      const t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    this.passes[this.nextSlot] = [pass, perm];
    this.nextSlot ^= 1;
    return perm;
  }
}
