/**
 * What waits to be woken, oldest first: the open model's idle sessions and parked slots, each
 * named by its slot's index. A release of N arrivals wakes at most N of them, in the order they
 * went to sleep, so a run holding thousands of sessions at a low rate spends nothing on the ones
 * with nothing to do.
 *
 * Each index's place in the queue is kept in an array indexed by it, not in a Map: a run of
 * thousands of sessions wakes and queues one per message, and `perf` of the idle bench's 3,000
 * sessions (bench/idle.ts) showed V8's Map lookups at 2% of the main thread, 0.6% with 10.
 * A removal (a session that ended while idle) leaves its entry where it is, to be skipped when
 * the queue reaches it: `delete` is O(1) and `shift` O(1) amortised.
 */
export class WakeQueue {
  private entries: number[] = [];
  /** The position, counted from the queue's first entry ever, of entries[0]. */
  private base = 0;
  private head = 0;
  /** Each index's position while queued (older entries of it are skipped), or -1. */
  private readonly placeOf: Float64Array;
  private live = 0;

  /** A queue of the indexes 0 to `capacity` - 1. */
  constructor(private readonly capacity: number) {
    this.placeOf = new Float64Array(capacity).fill(-1);
  }

  get size(): number {
    return this.live;
  }

  /** Queues `index` at the tail; one already queued keeps its place. */
  add(index: number): void {
    if (!(index >= 0 && index < this.capacity)) {
      throw new RangeError(`WakeQueue: ${index} is not an index below ${this.capacity}`);
    }
    if (this.placeOf[index] >= 0) return;
    this.placeOf[index] = this.base + this.entries.length;
    this.entries.push(index);
    this.live++;
    // Removals that no shift reached yet: keep only the live entries, in their order.
    if (this.entries.length - this.head > 2 * this.live + 64) this.rebuild();
  }

  delete(index: number): boolean {
    if (!(this.placeOf[index] >= 0)) return false;
    this.placeOf[index] = -1;
    this.live--;
    return true;
  }

  /** The index queued longest, taken out; undefined when none is queued. */
  shift(): number | undefined {
    const { entries, placeOf } = this;
    while (this.head < entries.length) {
      const at = this.base + this.head;
      const index = entries[this.head++] as number;
      if (placeOf[index] === at) {
        placeOf[index] = -1;
        this.live--;
        if (this.head >= 1024 && this.head * 2 >= entries.length) this.rebuild();
        return index;
      }
    }
    this.base += entries.length;
    entries.length = 0;
    this.head = 0;
    return undefined;
  }

  /** The queued indexes, oldest first, for a sweep over them. */
  values(): number[] {
    const out: number[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const index = this.entries[i] as number;
      if (this.placeOf[index] === this.base + i) out.push(index);
    }
    return out;
  }

  private rebuild(): void {
    const live = this.values();
    this.base += this.entries.length;
    this.entries = live;
    this.head = 0;
    for (let i = 0; i < live.length; i++) this.placeOf[live[i] as number] = this.base + i;
  }
}
