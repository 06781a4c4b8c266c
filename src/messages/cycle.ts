/**
 * Exact shares: which class (or which body size) message n gets, decided once before the run.
 */
import { SourceError } from "./source.js";

/**
 * A cycle of class indexes in which class i appears exactly weight_i times, spread evenly
 * (smooth weighted round robin): message seq gets class cycle[seq % cycle.length], so every
 * whole cycle holds the shares exactly (10,000 messages at 60/15/10/10/5: 6000/1500/1000/1000/500).
 */
export function classCycle(shares: readonly number[]): Uint16Array {
  const weights = shares.map((s) => Math.round(s * 100));
  const divisor = weights.reduce(gcd);
  const reduced = weights.map((w) => w / divisor);
  const total = reduced.reduce((a, b) => a + b, 0);
  if (total > 1_000_000)
    throw new SourceError("--plan", "class shares too fine-grained; round them");
  const cycle = new Uint16Array(total);
  const current = reduced.map(() => 0);
  for (let n = 0; n < total; n++) {
    let best = 0;
    for (let i = 0; i < reduced.length; i++) {
      current[i] += reduced[i];
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    cycle[n] = best;
  }
  return cycle;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
