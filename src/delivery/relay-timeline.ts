/**
 * The join's figures over time, kept while the run goes on: the messages accepted and out of
 * the gateway per second (perSecond), and the most messages inside the gateway at once
 * (backlogMax). Each accepted message gives one event in (the gateway's 250) and at most one
 * out (its first arrival or notice); a message out before the client saw its 250 was never
 * inside.
 *
 * The events come out of order: accept records reach the main thread in chunks, up to a
 * report interval after the 250, and an arrival can come before its message's accept record.
 * Counting per second needs no order, only the run's first connect (the seconds' origin), which
 * is known once every thread has connected: until then the times wait. The backlog's maximum
 * needs the events in time order: they wait in two buffers until the horizon passes them (the
 * time before which no more events can come: the oldest of the threads' last reports), then
 * fold into the running count in order. So each buffer holds about one report interval of
 * events, 8 octets each.
 */

import { withRoom } from "../stats/typed-room.js";
import type { DeliveryResult } from "./records.js";

/** The seconds a run through a gateway is charted by, at most (a day). */
const MAX_SECONDS = 86_400;

/** A growable list of times. */
class Times {
  values = new Float64Array(256);
  length = 0;

  push(t: number): void {
    if (this.length === this.values.length) this.values = withRoom(this.values, this.length + 1);
    this.values[this.length++] = t;
  }

  /** Sorts the times; returns how many are at or before `h`. */
  sortedUpTo(h: number): number {
    const v = this.values.subarray(0, this.length);
    v.sort();
    let n = 0;
    while (n < v.length && v[n] <= h) n++;
    return n;
  }

  /** Forgets the first `n` times; a buffer a burst grew gives its room back. */
  drop(n: number): void {
    this.values.copyWithin(0, n, this.length);
    this.length -= n;
    if (this.values.length > 4096 && this.length * 4 < this.values.length) {
      this.values = this.values.slice(0, Math.max(256, this.length * 2));
    }
  }
}

export class DeliveryTimeline {
  private origin = Number.NaN;
  /** Times waiting for the origin: accepts, and outs that count as delivered. */
  private readonly unbinnedIn = new Times();
  private readonly unbinnedOut = new Times();
  readonly accepted: number[] = [];
  readonly delivered: number[] = [];
  /** Backlog events not yet folded: entries into the gateway, and exits. */
  private readonly ins = new Times();
  private readonly outs = new Times();
  private foldedThrough = Number.NEGATIVE_INFINITY;
  private held = 0;
  private most = 0;

  /** The run's first connect, epoch ms: the seconds count from it. */
  setOrigin(ms: number): void {
    if (!Number.isNaN(this.origin)) return;
    this.origin = ms;
    for (let i = 0; i < this.unbinnedIn.length; i++)
      this.bin(this.accepted, this.unbinnedIn.values[i]);
    for (let i = 0; i < this.unbinnedOut.length; i++) {
      this.bin(this.delivered, this.unbinnedOut.values[i]);
    }
    this.unbinnedIn.drop(this.unbinnedIn.length);
    this.unbinnedOut.drop(this.unbinnedOut.length);
  }

  private bin(series: number[], ms: number): void {
    const at = Math.min(MAX_SECONDS, Math.max(0, Math.floor((ms - this.origin) / 1000)));
    while (series.length <= at) series.push(0);
    series[at]++;
  }

  /** An accepted message's 250; `inside`: it was in the gateway after it. */
  acceptedAt(ms: number, inside: boolean): void {
    if (Number.isNaN(this.origin)) this.unbinnedIn.push(ms);
    else this.bin(this.accepted, ms);
    if (inside) this.event(this.ins, ms, 1);
  }

  /**
   * An accepted message's first arrival or notice at `ms`; `delivered`: it counts in the
   * delivered series (not late); `exitMs`: when it left the backlog (NaN: it never entered).
   */
  outAt(ms: number, delivered: boolean, exitMs: number): void {
    if (delivered) {
      if (Number.isNaN(this.origin)) this.unbinnedOut.push(ms);
      else this.bin(this.delivered, ms);
    }
    if (!Number.isNaN(exitMs)) this.event(this.outs, exitMs, -1);
  }

  private event(list: Times, ms: number, delta: number): void {
    if (ms > this.foldedThrough) {
      list.push(ms);
      return;
    }
    // Behind the horizon (a clock step between threads): counted now, in no order.
    this.held += delta;
    this.most = Math.max(this.most, this.held);
  }

  /** Folds every backlog event at or before epoch ms `h`, in time order. */
  foldThrough(h: number): void {
    if (h <= this.foldedThrough) return;
    const nIn = this.ins.sortedUpTo(h);
    const nOut = this.outs.sortedUpTo(h);
    const ins = this.ins.values;
    const outs = this.outs.values;
    // At equal times the exit goes first: a message out as it went in was never seen inside.
    for (let i = 0, o = 0; i < nIn; i++) {
      while (o < nOut && outs[o] <= ins[i]) {
        o++;
        this.held--;
      }
      this.held++;
      this.most = Math.max(this.most, this.held);
      if (i === nIn - 1) this.held -= nOut - o;
    }
    if (nIn === 0) this.held -= nOut;
    this.ins.drop(nIn);
    this.outs.drop(nOut);
    this.foldedThrough = h;
  }

  /** Backlog events waiting for the horizon. */
  get waiting(): number {
    return this.ins.length + this.outs.length + this.unbinnedIn.length + this.unbinnedOut.length;
  }

  backlogMax(): number {
    this.foldThrough(Number.POSITIVE_INFINITY);
    return this.most;
  }

  /** Per second: accepted, delivered, and the messages inside the gateway at its end. */
  perSecond(): { accepted: number[]; delivered: number[]; inside: number[] } {
    const accepted = [...this.accepted];
    const delivered = [...this.delivered];
    const length = Math.max(accepted.length, delivered.length);
    while (accepted.length < length) accepted.push(0);
    while (delivered.length < length) delivered.push(0);
    const inside: number[] = [];
    let held = 0;
    for (let i = 0; i < length; i++) {
      held += accepted[i] - delivered[i];
      inside.push(Math.max(0, held));
    }
    return { accepted, delivered, inside };
  }
}

/**
 * The seconds the gateway accepted at its steady rate: those with an acceptance, less the first
 * and the last (the ramp up as sessions open, the tail as they end) when that leaves any. The
 * rates over them compare like with like: whole-run means hide a queue that grew all along.
 */
export function plateauOf(perSecond: DeliveryResult["perSecond"]): DeliveryResult["plateau"] {
  const accepted = perSecond.accepted;
  let from = accepted.findIndex((n) => n > 0);
  let to = accepted.length - [...accepted].reverse().findIndex((n) => n > 0);
  if (from < 0) return { fromSecond: 0, toSecond: 0, acceptedPerSecond: 0, relayedPerSecond: 0 };
  if (to - from > 2) {
    from++;
    to--;
  }
  const mean = (xs: readonly number[]) => {
    let sum = 0;
    for (let i = from; i < to; i++) sum += xs[i] ?? 0;
    return Math.round((sum / (to - from)) * 10) / 10;
  };
  return {
    fromSecond: from,
    toSecond: to,
    acceptedPerSecond: mean(accepted),
    relayedPerSecond: mean(perSecond.delivered),
  };
}
