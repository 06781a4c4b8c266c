/**
 * The capacity document (`mailvolley capacity --json`): types only, defined with their
 * descriptions in result/schema/capacity.ts; src/capacity/ computes the figures.
 */
import type { Static } from "@sinclair/typebox";
import type { CapacitySchema, CapacitySection } from "./schema/capacity.js";

export { CAPACITY_SCHEMA } from "./schema/names.js";

export type CapacityDocument = Static<typeof CapacitySchema>;
export type Capacity = Static<typeof CapacitySection>;
export type CapacityStep = Capacity["steps"][number];
export type CapacityCheck = CapacityStep["checks"][number];
export type CapacityLevel = Capacity["levels"][number];
export type CapacityLimitedBy = Capacity["limitedBy"];
export type StepPurpose = CapacityStep["purpose"];
export type BacklogJudgement = NonNullable<CapacityStep["backlog"]>;
