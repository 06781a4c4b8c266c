/** The Result's `shard` (and, merged, `shards[]`): what one shard of a run records. */
import { Type } from "@sinclair/typebox";
import { def, nullable, ref } from "./define.js";
import { Count, IsoTime, PositiveInteger } from "./kinds.js";

export const ShardHeader = def(
  "shardHeader",
  Type.Object(
    {
      index: ref(
        Count,
        "This shard, 0 … count−1 (--shard I/N); 0 of 1 for a run with --start-at alone.",
      ),
      count: ref(PositiveInteger, "Shards the run was split into (N)."),
      configHash: Type.String({
        pattern: "^sha256:[0-9a-f]{64}$",
        description:
          "`sha256:` and 64 hex digits over the options that define the load (config/config-hash.ts: every run option but the shard, start time, outputs, verbosity, --workers, --source and the AUTH password): equal on every shard of one run.",
      }),
      host: Type.String({ description: "The machine's host name." }),
      clockStart: ref(
        IsoTime,
        "This machine's clock at the shard's first connect attempt (= startedAt), ISO 8601 with milliseconds.",
      ),
      clockEnd: ref(
        IsoTime,
        "This machine's clock at the shard's last reply or failure (= startedAt + elapsedSeconds).",
      ),
      startAt: nullable(ref(IsoTime), "--start-at as asked, ISO 8601; null without --start-at."),
      startLatenessMs: nullable(
        Type.Number(),
        "Milliseconds the load started after startAt (clockStart − startAt); null without it. Negative only when the run was stopped (Ctrl-C) before it started, having sent nothing.",
      ),
    },
    {
      description:
        "What one shard of a run spread over machines records about itself, so that `merge` can check the shards belong together.",
      additionalProperties: false,
    },
  ),
);
