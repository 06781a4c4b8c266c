/** The Result's `sink`: the built-in sink's own count, in a self-test against it. */
import { Type } from "@sinclair/typebox";
import { mapOf, ref } from "./define.js";
import { Count } from "./kinds.js";

export const SinkSection = Type.Object(
  {
    messagesAccepted: ref(Count, "Messages the sink accepted (its 250 to the data)."),
    sessions: ref(Count, "Sessions the sink served."),
    connectionsRefused: Type.Optional(
      ref(Count, "Connections the sink's emulated gateway limits refused at the banner."),
    ),
    classes: Type.Optional(
      mapOf(
        Type.Object(
          {
            accepted: ref(Count, "The class's messages the sink accepted."),
            rejected: ref(Count, "The class's messages the sink refused."),
            endToEndP99Ms: Type.Number({
              description:
                "99th percentile from the message's X-Mailvolley-Sent time to the sink's reply, ms.",
            }),
          },
          { additionalProperties: false },
        ),
        "Per message class as the sink counted it (from X-Mailvolley-Class).",
      ),
    ),
  },
  {
    description: "Self-test only: the built-in sink's own counts.",
    additionalProperties: false,
  },
);
