/**
 * The configuration hash a shard records: sha256 over a canonical JSON of the checked options
 * that define the load, so `merge` can refuse shards that ran different loads. Two configs hash
 * alike exactly when they are equal after dropping the excluded keys, whatever their key order.
 */
import { createHash } from "node:crypto";

/**
 * Options of a RunConfig that do not define the load: which shard this is, when and where it
 * runs, where it writes, how it prints, how many threads carry it (the union of sequence numbers
 * is the same for any --workers), the machine's own source addresses, and the AUTH password
 * (a published hash over known options and a weak password would give the password away), and
 * the hash itself. Dotted entries name nested keys.
 */
export const NOT_LOAD_KEYS: readonly string[] = Object.freeze([
  "shard",
  "startAt",
  "host",
  "runId",
  "json",
  "html",
  "verbose",
  "quiet",
  "workers",
  "sourceAddresses",
  "auth.pass",
  "configHash",
]);

/**
 * JSON with object keys sorted at every depth. Unlike JSON.stringify, Infinity and NaN stay
 * themselves ("-m" without a count is Infinity, not null); undefined members are left out.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === "number")
    return Number.isFinite(value) ? JSON.stringify(value) : `"${value}"`;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  }
  const members = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map(
      (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
    );
  return `{${members.join(",")}}`;
}

/** A copy of `options` without the excluded keys (dotted: nested), the input left as it is. */
export function withoutKeys(options: object, excluded: readonly string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...options };
  const nested = new Map<string, string[]>();
  for (const path of excluded) {
    const dot = path.indexOf(".");
    if (dot === -1) {
      delete copy[path];
      continue;
    }
    const head = path.slice(0, dot);
    nested.set(head, [...(nested.get(head) ?? []), path.slice(dot + 1)]);
  }
  for (const [head, rest] of nested) {
    const inner = copy[head];
    if (inner !== null && typeof inner === "object" && !Array.isArray(inner)) {
      copy[head] = withoutKeys(inner, rest);
    }
  }
  return copy;
}

/** `sha256:` and 64 hex digits over the canonical JSON of `options` less `excluded`. */
export function configHash(options: object, excluded: readonly string[] = NOT_LOAD_KEYS): string {
  const canonical = canonicalJson(withoutKeys(options, excluded));
  return `sha256:${createHash("sha256").update(canonical).digest("hex")}`;
}
