/**
 * Parts of the Result that place what happened and what was run: where success fell below
 * 100% (`knee`), the run's own record (`run`) and the thresholds' outcomes (`thresholds`).
 */
import { Type } from "@sinclair/typebox";
import { def, nullable, ref } from "./define.js";
import { Count, NonNegative, Seconds } from "./kinds.js";

const Fell = Type.Object(
  {
    atSeconds: ref(
      Seconds,
      "Seconds since the first connect: the earliest error's exact time (firstSeen) when it lies in that interval, else the interval's start.",
    ),
    fromSeconds: ref(Seconds, "Start of that interval, seconds since the first connect."),
    toSeconds: ref(Seconds, "End of that interval."),
    successPercent: Type.Number({
      minimum: 0,
      maximum: 100,
      description: "Success in that interval, %.",
    }),
    sentPerSecond: ref(NonNegative, "Messages started per second in that interval."),
    scheduledPerSecond: ref(
      NonNegative,
      "Messages scheduled (started + dropped) per second in that interval.",
    ),
    acceptedPerSecond: ref(NonNegative, "Messages accepted per second in that interval."),
  },
  { additionalProperties: false },
);

const CleanWindow = Type.Object(
  {
    fromSeconds: ref(Seconds, "Start of the window, seconds since the first connect."),
    toSeconds: ref(Seconds, "End of the window."),
    intervals: ref(Count, "Intervals in the window."),
    messagesPerSecond: ref(NonNegative, "Mean accepted messages per second over the window."),
  },
  { additionalProperties: false },
);

export const Knee = def(
  "knee",
  Type.Object(
    {
      fell: nullable(
        Fell,
        "The first interval where success was below 100%; null when it never was.",
      ),
      cleanWindow: nullable(
        CleanWindow,
        "The window where success stayed at 100%: from the first interval that settled a message up to the knee (or the run's end), and its mean accepted per second. null when the first interval that settled anything already fell short.",
      ),
    },
    {
      description:
        "Where success fell below 100%, read off the time series. Success in an interval = accepted / (accepted + rejected + failed + unconfirmed + dropped): the messages settled in it and, open model, the arrivals dropped in it (no session could start them). Times are clamped to the run's last event, so every window lies inside the run.",
      additionalProperties: false,
    },
  ),
);

export const RunRecord = def(
  "runRecord",
  Type.Object(
    {
      version: Type.String({ description: "mailvolley's version (its package.json)." }),
      node: Type.String({ description: 'Node.js version (process.version), e.g. "v20.11.1".' }),
      host: Type.String({ description: "The generating machine's host name (os.hostname())." }),
      load: Type.String({
        description:
          'The load in one line: "constant arrival 2,000/s for 10 s, 20 sessions, 1 KiB".',
      }),
      options: Type.Unsafe<Record<string, unknown>>({
        type: "object",
        description:
          'The checked options (config/run-config.ts RunConfig) as JSON: the target as written, Infinity as "Infinity", the AUTH password as "****". Open, as the options grow.',
      }),
    },
    {
      description: "What was run: enough to read it and run it again.",
      additionalProperties: false,
    },
  ),
);

export const ThresholdOutcome = def(
  "thresholdOutcome",
  Type.Object(
    {
      expression: Type.String({
        description: 'The threshold as given, e.g. "p99{phase:envelope}<5ms".',
      }),
      actual: nullable(
        Type.Number(),
        "The measured value in the threshold's unit (ms, %, /s, or a plain number); null without data.",
      ),
      // Typed string, as thresholds.ts words it; the schema still admits only these units.
      unit: Type.Optional(
        Type.Unsafe<string>({
          description:
            'That unit: "ms", "%", "/s", or "" (a plain number); absent in results saved before.',
          enum: ["ms", "%", "/s", ""],
        }),
      ),
      passed: Type.Boolean({ description: "Whether the threshold held." }),
    },
    { additionalProperties: false },
  ),
);
