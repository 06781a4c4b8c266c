/**
 * The one way the join's and the ledger's column stores grow: a typed array with room for at
 * least `length` elements, doubled as often as that takes, the old contents copied.
 */
type Column = Float64Array | Uint32Array | Uint8Array;

export function withRoom<T extends Column>(a: T, length: number): T {
  if (length <= a.length) return a;
  let n = Math.max(1, a.length);
  while (n < length) n *= 2;
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
