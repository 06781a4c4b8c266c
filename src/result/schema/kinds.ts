/**
 * The kinds of value the Result's figures are made of (counts, milliseconds, ISO times, HDR
 * histograms, phases, error classes) and the latency summary. Each is one entry of the JSON
 * Schema's `$defs`; a figure refers to one with `ref(Kind, "what this figure means")`.
 */
import { Type } from "@sinclair/typebox";
import { type Latency, PHASE_NAMES } from "../../smtp/phases.js";
import { ERROR_CLASSES } from "../../stats/errors.js";
import { def, enumOf, recordOf, ref } from "./define.js";
import { RESULT_LATENCIES } from "./names.js";

export const Count = def("count", Type.Integer({ minimum: 0 }));
export const PositiveInteger = def("positiveInteger", Type.Integer({ minimum: 1 }));
export const NonNegative = def("nonNegative", Type.Number({ minimum: 0 }));
export const EpochMs = def(
  "epochMs",
  Type.Integer({ minimum: 0, description: "Milliseconds since the Unix epoch." }),
);
export const Seconds = def(
  "seconds",
  Type.Number({ minimum: 0, description: "Seconds since the run's first connect." }),
);
export const Fraction = def("fraction", Type.Number({ minimum: 0, maximum: 1 }));
export const IsoTime = def(
  "isoTime",
  Type.String({
    pattern:
      "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$",
    description: "ISO 8601 date and time, as Date.prototype.toISOString writes it.",
  }),
);
export const Histogram = def(
  "histogram",
  Type.String({
    pattern: "^[A-Za-z0-9+/]*={0,2}$",
    description: "An HDR histogram, compressed base64, microseconds.",
  }),
);
export const Phase = def(
  "phase",
  enumOf(PHASE_NAMES, "The SMTP phase a command belongs to (src/smtp/phases.ts)."),
);
export const ErrorClass = def(
  "errorClass",
  enumOf(ERROR_CLASSES, "The error's class, by docs/result.md's \"Error classes\"."),
);
export const ErrorClassCounts = def(
  "errorClassCounts",
  recordOf(ERROR_CLASSES, (name) => ref(Count, `Error occurrences of the class ${name}.`)),
);

export const LatencySummary = def(
  "latencySummary",
  Type.Object(
    {
      count: ref(Count, "Number of samples."),
      min: ref(NonNegative, "The smallest sample, ms (microsecond resolution, as every figure)."),
      mean: ref(NonNegative, "The mean, ms."),
      p50: ref(NonNegative, "The median, ms."),
      p90: ref(NonNegative, "The 90th percentile, ms."),
      p95: ref(NonNegative, "The 95th percentile, ms."),
      p99: ref(NonNegative, "The 99th percentile, ms."),
      max: ref(NonNegative, "The largest sample, ms."),
    },
    {
      description: "A latency's sample count and milliseconds (µs resolution).",
      additionalProperties: false,
    },
  ),
);

/** What each latency of `latency` measures: the figure's one definition. */
export const LATENCY_DOCS: Readonly<Record<Latency, string>> = {
  transaction:
    "For accepted messages: from the message's intended send time (open model: its arrival, so waiting for a free session counts; closed model: writing MAIL) to the final reply.",
  connect: "From the connect call to the socket's connect event.",
  banner: "From the socket's connect event to the banner's last line.",
  ehlo: "From writing EHLO (or HELO) to its reply.",
  envelope: "From writing MAIL to the 354 reply to DATA (MAIL, every RCPT and DATA).",
  data: "From writing the message content to the final reply to it, accepted messages only.",
  quit: "From writing QUIT to its reply.",
  session: "From the connect call to the connection's close, sessions that reached a banner.",
  tls: "The TLS handshake: from the 220 to STARTTLS (or, with --tls-on-connect, from the TCP connect) to the handshake's end.",
  auth: "From writing AUTH to its 235 (for LOGIN, across the three round trips).",
};

export const Latencies = def(
  "latencies",
  recordOf(
    RESULT_LATENCIES.map((latency) => `${latency}Ms` as const),
    (field) => ref(LatencySummary, LATENCY_DOCS[field.slice(0, -2) as Latency]),
    "One summary per latency (docs/result.md's latency.*Ms rows).",
  ),
);
