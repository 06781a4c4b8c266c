/**
 * --arrivals poisson: exponential gaps around the rate, the same for the same seed, striped over
 * threads and shards exactly as the constant schedule is.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseLoadModel, type RawLoadOptions } from "../src/config/load-model.js";
import { arrivalsBefore, PoissonSchedule } from "../src/run/schedule.js";
import { StripedArrivals } from "../src/run/work.js";

const RATE = [{ atMs: 0, value: 200 }];

function gaps(schedule: PoissonSchedule, n: number): number[] {
  const out: number[] = [];
  let last = schedule.arrivalTime(0);
  for (let k = 1; k <= n; k++) {
    const t = schedule.arrivalTime(k);
    out.push(t - last);
    last = t;
  }
  return out;
}

describe("poisson arrivals", () => {
  test("arrival 0 is due at 0; the gaps average 1/rate and vary as an exponential's do", () => {
    const schedule = new PoissonSchedule(RATE, 7);
    assert.equal(schedule.arrivalTime(0), 0);
    const g = gaps(schedule, 20_000);
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    const sd = Math.sqrt(g.reduce((a, b) => a + (b - mean) ** 2, 0) / g.length);
    // 5 ms between arrivals at 200/s; an exponential's standard deviation equals its mean.
    assert.ok(Math.abs(mean - 5) < 0.15, `mean gap ${mean} ms`);
    assert.ok(Math.abs(sd / mean - 1) < 0.05, `coefficient of variation ${sd / mean}`);
    assert.ok(g.every((x) => x >= 0));
  });

  test("the same seed gives the same times; another seed others", () => {
    const a = gaps(new PoissonSchedule(RATE, 3), 50);
    assert.deepEqual(gaps(new PoissonSchedule(RATE, 3), 50), a);
    assert.notDeepEqual(gaps(new PoissonSchedule(RATE, 4), 50), a);
  });

  test("shares striped out of the run see the run's own arrival times", () => {
    const arrivals = { kind: "poisson", seed: 11 } as const;
    const whole = new PoissonSchedule(RATE, 11);
    const times = Array.from({ length: 40 }, (_, k) => whole.arrivalTime(k));
    for (let seqBase = 0; seqBase < 3; seqBase++) {
      const share = new StripedArrivals(RATE, { seqBase, stride: 3 }, arrivals);
      for (let j = 0; seqBase + 3 * j < 40; j++) {
        assert.equal(share.arrivalTime(j), times[seqBase + 3 * j]);
      }
    }
  });

  test("arrivalsBefore counts the Poisson arrivals due before a time", () => {
    const arrivals = { kind: "poisson", seed: 5 } as const;
    const schedule = new PoissonSchedule(RATE, 5);
    const due = arrivalsBefore(RATE, 10_000, arrivals);
    assert.ok(schedule.arrivalTime(due - 1) < 10_000);
    assert.ok(schedule.arrivalTime(due) >= 10_000);
    assert.ok(Math.abs(due - 2000) < 150, `${due} arrivals in 10 s at 200/s`);
    assert.equal(arrivalsBefore(RATE, Number.POSITIVE_INFINITY, arrivals), Infinity);
    // A ramp down to 0 ends after a finite count.
    const ramp = [
      { atMs: 0, value: 100 },
      { atMs: 1000, value: 0 },
    ];
    assert.ok(Number.isFinite(arrivalsBefore(ramp, Number.POSITIVE_INFINITY, arrivals)));
  });

  test("--arrivals: constant by default, poisson with --seed, bad input named", () => {
    const load = (raw: RawLoadOptions) => parseLoadModel(raw, 4);
    assert.deepEqual(load({ rate: "100" }).arrivals, { kind: "constant", seed: 1 });
    assert.deepEqual(load({ rate: "100", arrivals: "poisson", seed: "9" }).arrivals, {
      kind: "poisson",
      seed: 9,
    });
    assert.throws(
      () => load({ rate: "100", arrivals: "bursty" }),
      /--arrivals.*constant or poisson/,
    );
    assert.throws(() => load({ arrivals: "poisson" }), /--arrivals.*--rate or --ramp/);
  });
});
