/**
 * Whether the backlog inside a gateway grew, held or shrank over a run: the least-squares slope of
 * the per-second count of messages accepted by the gateway and not yet relayed. A mean relay rate
 * compared with a mean accept rate hides a queue that grows all through the plateau and drains at
 * the end; the slope of the backlog does not.
 */

export interface BacklogTrend {
  perSecond: number;
  trend: "growing" | "flat" | "shrinking";
  tolerancePerSecond: number;
}

/**
 * A slope within this share of the accept rate, or within one message per second, is flat: a
 * gateway that relays 98% as fast as it accepts is keeping up for any run a person waits for
 * (a 10-minute run at 500/s would leave 6,000 inside), and a few messages of noise in each second's
 * count of a slow run must not read as a trend.
 */
const FLAT_SHARE = 0.02;
const FLAT_FLOOR_PER_SECOND = 1;

/**
 * `inside[i]` is the count inside the gateway at second i (one sample per second, equally
 * spaced), or at `atSeconds[i]` where given; `acceptedPerSecond` the gateway's accept rate that
 * sets the tolerance. `perSecond` is the slope in messages per second: how fast the backlog grew
 * (negative: shrank).
 */
export function backlogTrend(
  inside: readonly number[],
  acceptedPerSecond: number,
  atSeconds?: readonly number[],
): BacklogTrend {
  const rate = Number.isFinite(acceptedPerSecond) ? Math.abs(acceptedPerSecond) : 0;
  const tolerancePerSecond = round(Math.max(FLAT_FLOOR_PER_SECOND, rate * FLAT_SHARE), 3);
  const perSecond = round(slope(inside, atSeconds), 3);
  const trend =
    perSecond > tolerancePerSecond
      ? "growing"
      : perSecond < -tolerancePerSecond
        ? "shrinking"
        : "flat";
  return { perSecond, trend, tolerancePerSecond };
}

/** Least-squares slope of y against xs (its index if none); 0 for fewer than two finite points. */
function slope(y: readonly number[], xs?: readonly number[]): number {
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    const x = xs ? xs[i] : i;
    if (!Number.isFinite(v)) continue;
    n++;
    sx += x;
    sy += v;
    sxx += x * x;
    sxy += x * v;
  }
  const d = n * sxx - sx * sx;
  return n < 2 || d === 0 ? 0 : (n * sxy - sx * sy) / d;
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  const r = Math.round(v * f) / f;
  return Object.is(r, -0) ? 0 : r;
}
