/**
 * The Result's `shard` (and, merged, `shards[]`): what one shard of a run spread over machines
 * records about itself, so that `merge` can check the shards belong together
 * (result/shard-check.ts). Defined, field by field, in result/schema/shard.ts.
 */
import type { Static } from "@sinclair/typebox";
import type { ShardHeader as ShardHeaderSchema } from "./schema/shard.js";

export type ShardHeader = Static<typeof ShardHeaderSchema>;
