/** The Result's `generator` section, defined in result/schema/generator.ts. */
import type { Static } from "@sinclair/typebox";
import type { Generator, LIMITED_BY } from "./schema/generator.js";

/**
 * Who set the run's rate (see GeneratorResult.limitedBy): the generator, the target, the
 * user's schedule (open model, every arrival on time), nobody (nothing reached the target).
 */
export type LimitedBy = (typeof LIMITED_BY)[number];

/** The generator's own load and the verdict on who set the rate. */
export type GeneratorResult = Static<typeof Generator>;
