/** The Result's `errors` rows and `firstSeen`: which errors, and where each class began. */
import { Type } from "@sinclair/typebox";
import { FAILURE_CLASS } from "../../stats/errors.js";
import { def, nullable, ref } from "./define.js";
import { Count, ErrorClass, Phase, PositiveInteger, Seconds } from "./kinds.js";

/** An error row as a thread counts it: the Result's row without its class. */
export const ErrorRowFields = {
  reply: Type.String({
    pattern: `^([0-9]{3}|${Object.keys(FAILURE_CLASS).join("|")})$`,
    description:
      'The reply code as text ("421", "550"), or for failures without a reply: "timeout", "closed" (peer closed the connection), "refused" (TCP connection refused), "reset", "protocol" (the peer sent something that is not SMTP), "socket" (other socket error), "local-limit" (this machine ran out of file descriptors or ports), "unsupported" (the server lacks what the run requires, STARTTLS or AUTH), "unsent" (the run ended with the message never started because no session could be opened), "stopped" (cut by this client: a second signal, --abort-on-fail, or --grace over).',
  }),
  enhanced: Type.String({
    pattern: "^([245]\\.[0-9]{1,3}\\.[0-9]{1,3})?$",
    description: 'RFC 3463 enhanced status code from the reply text ("4.7.0"), or "".',
  }),
  phase: ref(Phase, "The phase the command that got this reply (or failure) belongs to."),
  text: Type.String({
    description:
      "Reply text of the first occurrence (without code and enhanced code), or failure detail.",
  }),
  count: ref(Count, "How many times this (reply, enhanced, phase, normalised text) occurred."),
};

export const ErrorRow = def(
  "errorRow",
  Type.Object(
    {
      ...ErrorRowFields,
      class: ref(
        ErrorClass,
        'The class it is counted in; docs/result.md\'s "Error classes" gives the rules.',
      ),
    },
    { additionalProperties: false },
  ),
);

export const FirstSeen = def(
  "firstSeen",
  Type.Object(
    {
      class: ref(ErrorClass, "The error class this row places."),
      atSeconds: Type.Optional(
        ref(Seconds, "When it happened, in seconds since the first connect."),
      ),
      connection: Type.Optional(
        ref(
          Count,
          "Ordinal of the connection it came on, from 1 in the order connections were opened; 0 when it came on none (`unsent`: no session could be opened).",
        ),
      ),
      message: Type.Optional(
        nullable(
          ref(PositiveInteger),
          "Ordinal of the message it hit, from 1 in the order messages started; null when it hit no started message (a refusal at the banner, or a failure between messages).",
        ),
      ),
      fromSeconds: ref(
        Seconds,
        "Start of the `--interval` holding it, in seconds since the first connect.",
      ),
      toSeconds: ref(Seconds, "End of the `--interval` holding it."),
      openSessions: ref(
        Count,
        "Sessions (connections) open at that moment, the one it came on included.",
      ),
      connectionsOpened: ref(Count, "Connections opened from the run's start up to that moment."),
      sent: ref(Count, "Messages started from the run's start up to that moment."),
    },
    {
      description:
        "Where an error class first appeared: recorded at the moment of its first occurrence (across worker threads, the earliest), so exact to the connection and the message. Results saved before that, and shards merged from saved results, have only the interval: then `atSeconds`, `connection` and `message` are absent and the counts are those at the interval's end.",
      additionalProperties: false,
    },
  ),
);
