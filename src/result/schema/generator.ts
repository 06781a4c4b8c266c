/**
 * The Result's `generator`: mailvolley's own load per thread, and the verdict on who set the
 * rate. The verdict's rule itself is written once, on limitedBy in result/generator-verdict.ts.
 */
import { Type } from "@sinclair/typebox";
import { def, enumOf, nullable, ref } from "./define.js";
import {
  Count,
  EpochMs,
  Fraction,
  Histogram,
  LatencySummary,
  NonNegative,
  PositiveInteger,
} from "./kinds.js";

export const LIMITED_BY = ["generator", "target", "schedule", "nobody", "undetermined"] as const;

export const EventLoopDelay = def(
  "eventLoopDelay",
  Type.Object(
    {
      p50Ms: ref(NonNegative, "Median event-loop delay, ms."),
      p99Ms: ref(NonNegative, "99th percentile event-loop delay, ms."),
      maxMs: ref(NonNegative, "The largest event-loop delay, ms."),
    },
    {
      description: "How late the event loop ran a timer due now, milliseconds.",
      additionalProperties: false,
    },
  ),
);

export const ThreadLoadPoint = def(
  "threadLoadPoint",
  Type.Object(
    {
      t: ref(
        EpochMs,
        "Start of the interval, epoch ms, a multiple of intervalMs (aligned like the time series).",
      ),
      wallSeconds: ref(
        NonNegative,
        "The interval as measured (the sweep closes it a little after its nominal end).",
      ),
      cpuSeconds: ref(NonNegative, "Seconds the thread spent on a CPU in the interval."),
      cpuUtilisation: ref(
        NonNegative,
        "cpuSeconds / wallSeconds (over 1 is possible when process-wide).",
      ),
      eventLoopUtilisation: ref(
        Fraction,
        "Fraction of the interval the event loop was not idle waiting for I/O (0..1).",
      ),
      waitSeconds: nullable(
        ref(NonNegative),
        "Seconds runnable but waiting for a CPU in the interval; null where the platform does not say.",
      ),
      eventLoopDelay: ref(EventLoopDelay, "The thread's event-loop delay in the interval."),
    },
    { description: "One interval of one thread.", additionalProperties: false },
  ),
);

export const ThreadLoad = def(
  "threadLoad",
  Type.Object(
    {
      name: Type.String({
        description: '"main", "worker 1", … (a merge of shards prefixes the shard).',
      }),
      cpuScope: enumOf(
        ["thread", "process"],
        "Whose CPU time the row's CPU figures count: this thread's, or (without a per-thread clock) the whole process's.",
      ),
      wallSeconds: ref(NonNegative, "From the sampler's start to its stop."),
      cpuSeconds: ref(NonNegative, "Seconds the thread spent on a CPU."),
      cpuUtilisation: ref(NonNegative, "cpuSeconds / wallSeconds."),
      waitSeconds: nullable(
        ref(NonNegative),
        "Seconds the thread was runnable but waiting for a CPU (other processes or threads had the cores); null where the platform does not say.",
      ),
      eventLoopUtilisation: ref(
        Fraction,
        "Fraction of the window the event loop was not idle waiting for I/O (0..1).",
      ),
      eventLoopDelay: ref(EventLoopDelay, "The thread's event-loop delay over the window."),
      intervalMs: ref(PositiveInteger, "The length of its points' intervals, ms."),
      points: Type.Array(ref(ThreadLoadPoint), {
        description: "Its load per interval of the time series.",
      }),
    },
    {
      description: "One generator thread's load over the run's window, and per interval.",
      additionalProperties: false,
    },
  ),
);

const Lateness = Type.Object(
  {
    arrivalIntervalMs: ref(
      NonNegative,
      "Milliseconds between two arrivals of the whole run, at its highest rate.",
    ),
    toleranceMs: ref(
      NonNegative,
      "Lateness beyond this counts an arrival as late (one arrival interval, at least 10 ms).",
    ),
    started: ref(Count, "Arrivals started."),
    late: ref(Count, "Arrivals started later than the tolerance."),
    startMs: ref(
      LatencySummary,
      "actual − intended start (the start is when a session took the arrival).",
    ),
    histogram: ref(Histogram, "The histogram behind startMs, HDR compressed base64, µs."),
    startup: Type.Optional(
      Type.Object(
        {
          started: ref(Count, "Arrivals of the start-up."),
          late: ref(Count, "Of them, started later than the tolerance."),
        },
        {
          description:
            "The start-up's arrivals: those of the first interval, and after it those before the first arrival that started on time (the first sessions were still connecting). Their lateness is the start-up's, not the target's: the verdict reads steadyStartMs. Absent in results saved before it existed.",
          additionalProperties: false,
        },
      ),
    ),
    steadyStartMs: Type.Optional(
      ref(
        LatencySummary,
        "Start lateness of the arrivals after the start-up, the figure the verdict judges. Absent in results saved before it existed (startMs then).",
      ),
    ),
    steadyHistogram: Type.Optional(
      ref(Histogram, "The histogram behind steadyStartMs, HDR compressed base64, µs."),
    ),
  },
  { additionalProperties: false },
);

export const Generator = def(
  "generator",
  Type.Object(
    {
      limitedBy: enumOf(
        LIMITED_BY,
        "Who set the rate. `generator`: mailvolley's own limits set the rate, so the figures measure mailvolley, not the target; `target`: every generator thread had headroom; `schedule`: open model, every arrival on time, none dropped; `nobody`: no connection reached a banner, or no message was answered; `undetermined`: in between, or too few intervals to say. docs/result.md's \"Whose numbers are these\" gives the rule: generator when a thread was ≥ 90% busy (on a CPU or waiting for one, or its event loop not idle) in most steady intervals, or its event-loop delay p99 exceeded the tolerance in most, or (open model) starts ran late or arrivals were dropped while a thread was ≥ 70% busy; target when every thread was < 70% busy in most steady intervals.",
      ),
      reasons: Type.Array(Type.String(), {
        description:
          'The figures the verdict rests on, naming the thread: "main thread 97% busy in 8 of 9 …".',
      }),
      advice: Type.String({ description: "What to do about it, one sentence." }),
      threads: Type.Array(ref(ThreadLoad), {
        description:
          "One row per generator thread, with its per-interval points (the time series' intervals).",
      }),
      lateness: nullable(
        Lateness,
        "Open model only: start lateness against the schedule; null in the closed model.",
      ),
    },
    {
      description:
        "The generator's own load: whose numbers these are. Every thread of mailvolley (the main thread and each worker; after a merge, of every shard) is sampled over the run's window and per interval of the time series, and the verdict `limitedBy` says whether mailvolley or the target set the rate.",
      additionalProperties: false,
    },
  ),
);
