/** The HTML overview's TLS rows: full and resumed handshakes, counted apart. */
import type { Result } from "../stats/result.js";
import { fmt, ms } from "./figures.js";

/** An overview row: label, JSON field, the value (null: n/a) and how it is shown. */
export type OverviewRow = [string, string, (r: Result) => number | null, (v: number) => string];

/** Full and resumed TLS handshakes and each kind's median, when a run made any. */
export function tlsOverviewRows(runs: readonly Result[]): OverviewRow[] {
  if (!runs.some((r) => r.tls)) return [];
  return [
    ["TLS handshakes full", "tls.full", (r) => r.tls?.full ?? null, (v) => fmt(v)],
    ["TLS handshakes resumed", "tls.resumed", (r) => r.tls?.resumed ?? null, (v) => fmt(v)],
    [
      "TLS handshake p50 full (ms)",
      "tls.fullMs.p50",
      (r) => (r.tls?.full ? r.tls.fullMs.p50 : null),
      (v) => ms(v),
    ],
    [
      "TLS handshake p50 resumed (ms)",
      "tls.resumedMs.p50",
      (r) => (r.tls?.resumed ? r.tls.resumedMs.p50 : null),
      (v) => ms(v),
    ],
  ];
}
