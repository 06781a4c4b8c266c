/** The Result's `warnings`: replies mailvolley accepted though they bent a rule (stats/warnings.ts). */
import { Type } from "@sinclair/typebox";
import { ref } from "./define.js";
import { PositiveInteger } from "./kinds.js";

export const WarningsSection = Type.Array(
  Type.Object(
    {
      code: Type.String({
        minLength: 1,
        description:
          "The warning's stable code: rset-status (a 2xx to RSET with an address status X.1.Y, as Postfix smtp-sink's `250 2.1.0 Ok`).",
      }),
      description: Type.String({ description: "What the code means, in words." }),
      count: ref(
        PositiveInteger,
        "How many replies showed it, over every thread and every merged shard.",
      ),
      firstReply: Type.String({
        description:
          "The first such reply's code and text, as received (the terminal escapes control characters, the HTML escapes for HTML).",
      }),
    },
    { additionalProperties: false },
  ),
  {
    description:
      "Replies that bent a rule in a way mailvolley accepted (the session went on, no message failed for them), one row per stable code, most frequent first. Absent when none occurred.",
  },
);
