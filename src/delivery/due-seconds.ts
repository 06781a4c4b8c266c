/**
 * Each accepted message by the second it was due (its intended send time): how many the gateway
 * accepted, how many were lost, and the end-to-end latency of those that arrived in time. A part
 * of a run (a capacity step's measured window, its warm-up left out) is then judged on the
 * messages it offered, whenever they came out. Seconds are aligned on epoch time, as the time
 * series' intervals are, so a window of the series names the same seconds here.
 *
 * A live histogram holds ≈ 94 KiB: the LIVE seconds touched last stay live, older ones wait
 * encoded (a few hundred octets) and are decoded again should an arrival of theirs still come.
 * A gateway lets messages out roughly in the order they were due, so that is seldom.
 */

import { decodeCompressed, encodeCompressed } from "../stats/hdr-codec.js";
import { type Histogram, newHistogram } from "../stats/histogram.js";
import type { DeliveryResult } from "./records.js";

/** Seconds whose histograms stay decoded. */
const LIVE = 64;

interface DueSecond {
  accepted: number;
  lost: number;
  /** The end-to-end histogram while live; null once parked (or before any arrival). */
  live: Histogram | null;
  /** The histogram parked, encoded; null while live or before any arrival. */
  parked: string | null;
}

export type DueSecondResult = NonNullable<DeliveryResult["dueSeconds"]>[number];

export class DueSeconds {
  private readonly seconds = new Map<number, DueSecond>();
  /** The seconds whose histograms are live, oldest first. */
  private readonly live = new Map<number, Histogram>();

  /**
   * One accepted message due at epoch ms `intendedMs`: lost or not, and its end-to-end latency
   * in µs when it arrived in time (null otherwise).
   */
  add(intendedMs: number, lost: boolean, endToEndUs: number | null): void {
    const t = Math.floor(intendedMs / 1000) * 1000;
    let second = this.seconds.get(t);
    if (second === undefined) {
      second = { accepted: 0, lost: 0, live: null, parked: null };
      this.seconds.set(t, second);
    }
    second.accepted++;
    if (lost) second.lost++;
    if (endToEndUs !== null) this.histogram(t, second).recordValue(endToEndUs);
  }

  private histogram(t: number, second: DueSecond): Histogram {
    if (second.live !== null) return second.live;
    const h = second.parked === null ? newHistogram() : decodeCompressed(second.parked);
    second.live = h;
    second.parked = null;
    this.live.set(t, h);
    if (this.live.size > LIVE) this.park();
    return h;
  }

  /** Encodes the oldest live histogram and lets it go. */
  private park(): void {
    const [t, h] = this.live.entries().next().value as [number, Histogram];
    this.live.delete(t);
    const second = this.seconds.get(t);
    if (second === undefined) return;
    second.parked = encodeCompressed(h);
    second.live = null;
  }

  /** Every second, in time order. */
  result(): DueSecondResult[] {
    return [...this.seconds.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([t, s]) => ({
        t,
        accepted: s.accepted,
        lost: s.lost,
        endToEndHistogram: s.live !== null ? encodeCompressed(s.live) : s.parked,
      }));
  }
}
