/**
 * Time and rates as users write them, the one grammar of `run`'s and the sink's options
 * (config/parse.ts and config/sink-config.ts each wrap it with the error naming the option; the
 * sink's fault delays read it too, config/fault-rules.ts):
 *
 * - a duration: `250ms`, `1.5s`, `2m`, `1h`, several as k6 and Go write them (`1m30s`), or a
 *   bare number of seconds (as Postfix smtp-source's -w);
 * - a count over a window: `N/60s`, `N/1m`, `N/m` (one unit), or `N` alone (per 60 s, as
 *   Postfix anvil counts).
 */

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or null when `text` is not a duration. */
export function durationMs(text: string): number | null {
  const t = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(t)) return Math.round(Number(t) * DURATION_UNITS.s);
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== t) return null;
  return Math.round(parts.reduce((ms, p) => ms + Number(p[1]) * DURATION_UNITS[p[2]], 0));
}

/** A count over a window, or null when `text` is not one (the values are not checked). */
export function windowRate(text: string): { count: number; windowMs: number } | null {
  const match = /^(\d+)(?:\/(\d*)(ms|s|m|h)?)?$/.exec(text.trim());
  if (!match) return null;
  const amount = match[2] ? Number(match[2]) : match[3] ? 1 : 60;
  return { count: Number(match[1]), windowMs: amount * DURATION_UNITS[match[3] ?? "s"] };
}
