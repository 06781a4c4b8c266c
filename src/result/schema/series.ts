/** The Result's `series`: one point per `--interval`. */
import { Type } from "@sinclair/typebox";
import { def, nullable, ref } from "./define.js";
import { Count, EpochMs, ErrorClassCounts, Histogram, NonNegative } from "./kinds.js";

const IntervalGenerator = Type.Object(
  {
    busy: ref(
      NonNegative,
      "The busiest thread's busy fraction, nominally 0..1; a short interval can show a hair over 1 (its CPU and wall clocks are read a moment apart).",
    ),
    busiestThread: Type.String({ description: "The busiest thread's name." }),
    eventLoopDelayP99Ms: ref(
      NonNegative,
      "The highest event-loop delay p99 of any thread in the interval, ms.",
    ),
    cpuSeconds: ref(NonNegative, "CPU seconds of all threads in the interval."),
  },
  {
    description:
      "The generator's load in the interval, over its threads (see `generator`). Absent where no thread was sampled.",
    additionalProperties: false,
  },
);

export const SeriesPoint = def(
  "seriesPoint",
  Type.Object(
    {
      t: ref(EpochMs, "Start of the interval, epoch ms (a multiple of series.intervalMs)."),
      sent: ref(
        Count,
        "Messages started in the interval (MAIL written; also messages given up as unsent).",
      ),
      dropped: ref(
        Count,
        "Open model: arrivals dropped in the interval (no session could start them within --max-delay, or beyond --max-queue). sent + dropped is what the load model scheduled there (an arrival still queued at the interval's end counts where it starts). 0 in results saved before it existed.",
      ),
      accepted: ref(Count, "Messages whose final verdict, 2xx, came in the interval."),
      rejected: ref(Count, "Messages refused with a reply in the interval."),
      failed: ref(Count, "Messages that failed (no final verdict) in the interval."),
      unconfirmed: Type.Optional(
        ref(
          Count,
          "Messages sent in full whose final reply never came, settled in the interval (messages.unconfirmed). Absent in results written before it existed.",
        ),
      ),
      connectionsOpened: ref(Count, "Connections attempted in the interval."),
      openSessions: ref(Count, "Sessions open at the end of the interval."),
      openSessionsMean: Type.Optional(
        ref(
          NonNegative,
          "Sessions open on average over the interval: the mean of its samples (one a sweep, every 100 ms), summed over worker threads. The charts draw this. Absent in results saved before it existed.",
        ),
      ),
      errors: ref(ErrorClassCounts, "Error occurrences in the interval by class."),
      p50Ms: nullable(
        ref(NonNegative),
        "Median transaction latency of the messages accepted in the interval; null when none was.",
      ),
      p99Ms: nullable(
        ref(NonNegative),
        "99th percentile transaction latency of the messages accepted in the interval; null when none was.",
      ),
      histogram: ref(
        Histogram,
        "The interval's transaction histogram, HDR compressed base64, µs (for re-grouping).",
      ),
      connectHistogram: Type.Optional(
        ref(
          Histogram,
          "The connect latency of the connections made in the interval (TCP connect), HDR compressed base64, µs; absent when the interval made none (and in results saved before it existed). capacity judges a step's connects over its measured window from these.",
        ),
      ),
      generator: Type.Optional(IntervalGenerator),
    },
    { description: "One interval of the time series.", additionalProperties: false },
  ),
);
