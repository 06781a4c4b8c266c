/**
 * stats/ is the leaf: it defines the plain shapes it produces (a latency summary, a thread's
 * load, an error row, TLS counts) and knows nothing of the Result. The Result's types are read
 * from their TypeBox definitions (result/schema/), where each figure is described once. Where
 * the two meet, `SameShape` ties them at compile time.
 */

/**
 * `true` while `A` and `B` are each assignable to the other, `never` otherwise: a line
 * `const _x: SameShape<Leaf, Result> = true` compiles only while the leaf's shape and the
 * definition's agree.
 */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
