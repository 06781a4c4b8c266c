/** A row of the statistics table (`allClasses`, `classes[]`): one message class, or all. */
import { Type } from "@sinclair/typebox";
import { def, nullable, ref } from "./define.js";
import { Count, Fraction, LatencySummary, NonNegative } from "./kinds.js";

export const ClassResult = def(
  "classResult",
  Type.Object(
    {
      name: Type.String({
        description: 'The class name; "all" for the row over every message of the run.',
      }),
      attempted: ref(Count, "accepted + rejected + failed + unconfirmed."),
      accepted: ref(Count, "The class's messages whose final reply to the data was 2xx."),
      rejected: ref(Count, "The class's messages the server refused with a reply."),
      failed: ref(
        Count,
        "The class's messages that got no final verdict from the server, which cannot have taken them.",
      ),
      unconfirmed: Type.Optional(
        ref(
          Count,
          "The class's messages sent in full whose final reply never came (messages.unconfirmed). Absent in results written before it existed.",
        ),
      ),
      errorPercent: Type.Number({
        minimum: 0,
        maximum: 100,
        description:
          "(rejected + failed + unconfirmed) / attempted × 100: the messages the server did not confirm it took; 0 when nothing was attempted.",
      }),
      transactionMs: ref(
        LatencySummary,
        "Transaction latency (MAIL to the final reply), accepted messages only.",
      ),
      envelopeMs: Type.Optional(
        ref(
          LatencySummary,
          'The class\'s envelope phase (MAIL to the 354), as latency.envelopeMs; absent for "all".',
        ),
      ),
      dataMs: Type.Optional(
        ref(
          LatencySummary,
          'The class\'s data phase (content to the final reply), as latency.dataMs; absent for "all".',
        ),
      ),
      messagesPerSecond: ref(
        NonNegative,
        "accepted / elapsedSeconds (the whole run's elapsed time).",
      ),
      apdex: nullable(
        ref(Fraction),
        "Apdex over attempted messages: (satisfied + tolerating / 2) / attempted, where satisfied is an accepted message with transaction latency ≤ apdex.satisfiedMs, tolerating one ≤ apdex.toleratingMs, and every rejected, failed or unconfirmed message counts as frustrated. null when nothing was attempted. Three decimals.",
      ),
    },
    {
      description: "One row of the statistics table: a message class, or all of them.",
      additionalProperties: false,
    },
  ),
);
