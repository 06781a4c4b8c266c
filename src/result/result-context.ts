/**
 * Parts of the Result that place what happened and what was run: where each error class first
 * appeared (FirstSeen), where success fell below 100% (Knee), and the run's own record
 * (RunRecord). Their fields are defined in result/schema/; result.ts re-exports them.
 */
import type { Static } from "@sinclair/typebox";
import type { Knee as KneeSchema, RunRecord as RunRecordSchema } from "./schema/context.js";
import type { FirstSeen as FirstSeenSchema } from "./schema/errors.js";

export type FirstSeen = Static<typeof FirstSeenSchema>;
export type Knee = Static<typeof KneeSchema>;
export type RunRecord = Static<typeof RunRecordSchema>;
