/**
 * The join's messages in flight, column-wise: one slot per message in typed arrays, its number
 * mapped to its slot, slots reused as messages leave: about 100 octets a message with its map
 * entry, besides its queue id (bench/delivery-join.ts), where an object a message took twice
 * that. A message is read and written through a view of its slot (an ArrivalRecord and an
 * AcceptedMessage), so the one definition of how an arrival changes a record
 * (delivery/arrival-store.ts) serves here too.
 */

import { withRoom } from "../stats/typed-room.js";
import { NO_DELAYS } from "./arrival-store.js";
import type { ArrivalRecord, JoinKey, RecipientLog } from "./records.js";
import type { AcceptedMessage } from "./tally.js";

const KEYS: readonly JoinKey[] = ["traceHeader", "messageId", "envid", "tag"];

/** Times per slot: first arrival, intended send, the 250. */
const F64 = 3;
/** Counts per slot: copies, recipients, duplicate recipients, refusals, retried, gave up, pending. */
const U32 = 7;

/** Flags of a slot. */
const LATE = 1;
/** The client's accept record came. */
export const ACCEPTED = 2;
/** A copy, notice or refusal came. */
export const ARRIVED = 4;
/** Fully arrived: waiting in the ring to be folded. */
export const SETTLED = 8;
/** Its 250 counted as an entry into the gateway on the timeline. */
export const INSIDE = 16;
/** Its first arrival is on the timeline. */
export const TIMED = 32;
/** Every recipient arrived or was given up on: the drain counted it. */
export const ACCOUNTED = 64;

/** One message of the table, read and written in place. */
export class InFlightView implements ArrivalRecord, AcceptedMessage {
  slot = 0;

  constructor(private readonly t: InFlightTable) {}

  get firstMs(): number {
    return this.t.f64[this.slot * F64];
  }
  set firstMs(v: number) {
    this.t.f64[this.slot * F64] = v;
  }
  get intendedMs(): number {
    return this.t.f64[this.slot * F64 + 1];
  }
  set intendedMs(v: number) {
    this.t.f64[this.slot * F64 + 1] = v;
  }
  get acceptedMs(): number {
    return this.t.f64[this.slot * F64 + 2];
  }
  set acceptedMs(v: number) {
    this.t.f64[this.slot * F64 + 2] = v;
  }
  get copies(): number {
    return this.t.u32[this.slot * U32];
  }
  set copies(v: number) {
    this.t.u32[this.slot * U32] = v;
  }
  get rcpts(): number {
    return this.t.u32[this.slot * U32 + 1];
  }
  set rcpts(v: number) {
    this.t.u32[this.slot * U32 + 1] = v;
  }
  get dupRcpts(): number {
    return this.t.u32[this.slot * U32 + 2];
  }
  set dupRcpts(v: number) {
    this.t.u32[this.slot * U32 + 2] = v;
  }
  get refusals(): number {
    return this.t.u32[this.slot * U32 + 3];
  }
  set refusals(v: number) {
    this.t.u32[this.slot * U32 + 3] = v;
  }
  get retried(): number {
    return this.t.u32[this.slot * U32 + 4];
  }
  set retried(v: number) {
    this.t.u32[this.slot * U32 + 4] = v;
  }
  get gaveUp(): number {
    return this.t.u32[this.slot * U32 + 5];
  }
  set gaveUp(v: number) {
    this.t.u32[this.slot * U32 + 5] = v;
  }
  get pending(): number {
    return this.t.u32[this.slot * U32 + 6];
  }
  set pending(v: number) {
    this.t.u32[this.slot * U32 + 6] = v;
  }
  get retryDelaysMs(): readonly number[] {
    return this.t.delays[this.slot] ?? NO_DELAYS;
  }
  set retryDelaysMs(v: readonly number[]) {
    this.t.delays[this.slot] = v.length === 0 ? undefined : v;
  }
  get recipients(): RecipientLog | string | null {
    return this.t.logs[this.slot] ?? null;
  }
  set recipients(v: RecipientLog | string | null) {
    this.t.logs[this.slot] = v ?? undefined;
  }
  get key(): JoinKey {
    return KEYS[this.t.keys[this.slot]];
  }
  set key(v: JoinKey) {
    this.t.keys[this.slot] = KEYS.indexOf(v);
  }
  get bounceStatus(): string {
    return this.t.statuses[this.slot];
  }
  set bounceStatus(v: string) {
    this.t.statuses[this.slot] = v;
  }
  get queueId(): string {
    return this.t.queueIds[this.slot];
  }
  set queueId(v: string) {
    this.t.queueIds[this.slot] = v;
  }
  get late(): boolean {
    return this.has(LATE);
  }
  set late(v: boolean) {
    this.set(LATE, v);
  }

  has(flag: number): boolean {
    return (this.t.flags[this.slot] & flag) !== 0;
  }

  set(flag: number, on = true): void {
    if (on) this.t.flags[this.slot] |= flag;
    else this.t.flags[this.slot] &= ~flag;
  }
}

export class InFlightTable {
  private readonly slots = new Map<number, number>();
  f64 = new Float64Array(256 * F64);
  u32 = new Uint32Array(256 * U32);
  keys = new Uint8Array(256);
  flags = new Uint8Array(256);
  readonly statuses: string[] = [];
  readonly queueIds: string[] = [];
  /** Retry delays of the slots with a retried recipient. */
  readonly delays: (readonly number[] | undefined)[] = [];
  /** Each slot's recipients by address, once any came. */
  readonly logs: (RecipientLog | string | undefined)[] = [];
  /** Slots given back, and the first never used. */
  private readonly free: number[] = [];
  private unused = 0;
  private readonly view = new InFlightView(this);

  get size(): number {
    return this.slots.size;
  }

  /** The message's view (valid until the next call), or null when it is not held. */
  get(seq: number): InFlightView | null {
    const slot = this.slots.get(seq);
    if (slot === undefined) return null;
    this.view.slot = slot;
    return this.view;
  }

  /** A new message, nothing known of it yet: its view (valid until the next call). */
  add(seq: number, key: JoinKey): InFlightView {
    const slot = this.free.pop() ?? this.unused++;
    if (slot >= this.flags.length) this.grow(slot + 1);
    this.f64.fill(0, slot * F64, slot * F64 + F64);
    this.u32.fill(0, slot * U32, slot * U32 + U32);
    this.flags[slot] = 0;
    this.statuses[slot] = "";
    this.queueIds[slot] = "";
    this.delays[slot] = undefined;
    this.logs[slot] = undefined;
    this.slots.set(seq, slot);
    this.view.slot = slot;
    this.view.key = key;
    return this.view;
  }

  delete(seq: number): void {
    const slot = this.slots.get(seq);
    if (slot === undefined) return;
    this.slots.delete(seq);
    this.queueIds[slot] = "";
    this.delays[slot] = undefined;
    this.logs[slot] = undefined;
    this.free.push(slot);
  }

  /** Every message held, by number; each view valid until the next. */
  *entries(): Generator<[number, InFlightView]> {
    for (const [seq, slot] of this.slots) {
      this.view.slot = slot;
      yield [seq, this.view];
    }
  }

  clear(): void {
    this.slots.clear();
    this.free.length = 0;
    this.unused = 0;
    this.statuses.length = 0;
    this.queueIds.length = 0;
    this.delays.length = 0;
    this.logs.length = 0;
  }

  /** Room for `slots` slots in every column. */
  private grow(slots: number): void {
    this.f64 = withRoom(this.f64, slots * F64);
    this.u32 = withRoom(this.u32, slots * U32);
    this.keys = withRoom(this.keys, slots);
    this.flags = withRoom(this.flags, slots);
  }
}
