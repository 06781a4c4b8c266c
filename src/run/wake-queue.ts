/**
 * What waits to be woken, oldest first: the open model's idle sessions and parked slots. A
 * release of N arrivals wakes at most N of them, in the order they went to sleep, so a run
 * holding thousands of sessions at a low rate spends nothing on the ones with nothing to do.
 *
 * A removal (a session that ended while idle) leaves its entry where it is, to be skipped when
 * the queue reaches it: `delete` is O(1) and `shift` O(1) amortised.
 */
export class WakeQueue<T> {
  private entries: (T | undefined)[] = [];
  /** The position, counted from the queue's first entry ever, of entries[0]. */
  private base = 0;
  private head = 0;
  /** What is queued now, each with the position of its live entry (older ones are skipped). */
  private readonly members = new Map<T, number>();

  get size(): number {
    return this.members.size;
  }

  /** Queues `item` at the tail; an item already queued keeps its place. */
  add(item: T): void {
    if (this.members.has(item)) return;
    this.members.set(item, this.base + this.entries.length);
    this.entries.push(item);
    // Removals that no shift reached yet: rebuild from the members, in their order.
    if (this.entries.length - this.head > 2 * this.members.size + 64) this.rebuild();
  }

  delete(item: T): boolean {
    return this.members.delete(item);
  }

  /** The item queued longest, taken out; undefined when none is queued. */
  shift(): T | undefined {
    while (this.head < this.entries.length) {
      const at = this.base + this.head;
      const item = this.entries[this.head] as T;
      this.entries[this.head++] = undefined;
      if (this.members.get(item) === at) {
        this.members.delete(item);
        if (this.head >= 1024 && this.head * 2 >= this.entries.length) this.rebuild();
        return item;
      }
    }
    this.base += this.entries.length;
    this.entries.length = 0;
    this.head = 0;
    return undefined;
  }

  /** The queued items, oldest first, for a sweep over them. */
  values(): IterableIterator<T> {
    return this.members.keys();
  }

  /** Only the live entries, in their order (a Map iterates in the order its keys were set). */
  private rebuild(): void {
    this.base += this.entries.length;
    this.entries = [...this.members.keys()];
    this.head = 0;
    for (let i = 0; i < this.entries.length; i++) {
      this.members.set(this.entries[i] as T, this.base + i);
    }
  }
}
