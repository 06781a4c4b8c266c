/**
 * The report options `run` and `compare` share (--html, --apdex, --threshold, --abort-on-fail),
 * checked.
 */

import type { Threshold } from "../result/threshold-verdicts.js";
import { UsageError } from "../usage/usage-error.js";
import type { RawOf } from "./option-rows.js";
import { DEFAULTS, type REPORT_OPTIONS } from "./option-table.js";
import { parseDuration } from "./parse.js";
import { parseThresholds } from "./thresholds.js";

export type RawReportOptions = RawOf<typeof REPORT_OPTIONS>;

export interface ReportOptions {
  /** Path of the HTML report, or null for none. */
  readonly html: string | null;
  /** Apdex T in ms: satisfied ≤ T, tolerating ≤ 4T. */
  readonly apdexMs: number;
  readonly thresholds: readonly Threshold[];
  /** Stop the run as soon as an error_rate threshold is breached. */
  readonly abortOnFail: boolean;
  /** --out: files the time series streams to while the run goes, one line per interval. */
  readonly seriesOut: readonly SeriesOut[];
  /** A run whose rate the generator set (generator.limitedBy) fails as a breach does: exit 99. */
  readonly failOnGeneratorBound: boolean;
}

/**
 * The formats --out streams: k6's `--out csv=FILE` and `--out json=FILE` as NDJSON, and the
 * running totals for Prometheus' textfile collector.
 */
export const SERIES_FORMATS = ["ndjson", "csv", "prometheus"] as const;

export interface SeriesOut {
  readonly format: (typeof SERIES_FORMATS)[number];
  readonly path: string;
}

/** `ndjson=FILE`, `csv=FILE` or `prometheus=FILE`, repeatable. */
function parseSeriesOut(values: unknown): SeriesOut[] {
  const list = values === undefined ? [] : Array.isArray(values) ? values : [values];
  return list.map((value) => {
    const text = String(value);
    const at = text.indexOf("=");
    const format = text.slice(0, at);
    const path = text.slice(at + 1);
    if (at < 0 || path === "" || !(SERIES_FORMATS as readonly string[]).includes(format)) {
      throw new UsageError("--out", `"${text}": give ndjson=FILE, csv=FILE or prometheus=FILE`);
    }
    if (path === "-") {
      throw new UsageError("--out", `"${text}": stream to a file; --json - gives stdout`);
    }
    return Object.freeze({ format: format as SeriesOut["format"], path });
  });
}

export function buildReportOptions(raw: RawReportOptions): ReportOptions {
  const apdexMs = parseDuration("--apdex", raw.apdex ?? DEFAULTS.apdex);
  if (apdexMs <= 0) throw new UsageError("--apdex", "must be above 0");
  const thresholds = parseThresholds(raw.threshold);
  if (raw.abortOnFail && thresholds.length === 0) {
    throw new UsageError("--abort-on-fail", "give at least one --threshold to abort on");
  }
  return Object.freeze({
    html: raw.html === undefined ? null : String(raw.html),
    apdexMs,
    thresholds: Object.freeze(thresholds),
    abortOnFail: Boolean(raw.abortOnFail),
    seriesOut: Object.freeze(parseSeriesOut(raw.out)),
    failOnGeneratorBound: Boolean(raw.failOnGeneratorBound),
  });
}
