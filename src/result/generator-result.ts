/** The Result's `generator` section, defined in result/schema/generator.ts. */
import type { Static } from "@sinclair/typebox";
import type { ThreadLoad as LeafThreadLoad } from "../stats/generator-load.js";
import type { SameShape } from "./leaf-shape.js";
import type { Generator, LIMITED_BY, ThreadLoad } from "./schema/generator.js";

/**
 * Who set the run's rate (see GeneratorResult.limitedBy): the generator, the target, the
 * user's schedule (open model, every arrival on time), nobody (nothing reached the target).
 */
export type LimitedBy = (typeof LIMITED_BY)[number];

/** The generator's own load and the verdict on who set the rate. */
export type GeneratorResult = Static<typeof Generator>;

// Compiles only while a sampler's row (stats/generator-load.ts), its points and event-loop
// delays included, is the Result's thread row.
const _leafThreadLoad: SameShape<Static<typeof ThreadLoad>, LeafThreadLoad> = true;
