/**
 * The report options `run` and `compare` share (--html, --apdex, --threshold, --abort-on-fail),
 * checked.
 */

import type { Threshold } from "../stats/thresholds.js";
import { DEFAULTS, type REPORT_OPTIONS } from "./option-table.js";
import type { RawOf } from "./options.js";
import { ConfigError, parseDuration } from "./parse.js";
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
  /** A run whose rate the generator set (generator.limitedBy) fails as a breach does: exit 99. */
  readonly failOnGeneratorBound: boolean;
}

export function buildReportOptions(raw: RawReportOptions): ReportOptions {
  const apdexMs = parseDuration("--apdex", raw.apdex ?? DEFAULTS.apdex);
  if (apdexMs <= 0) throw new ConfigError("--apdex", "must be above 0");
  const thresholds = parseThresholds(raw.threshold);
  if (raw.abortOnFail && thresholds.length === 0) {
    throw new ConfigError("--abort-on-fail", "give at least one --threshold to abort on");
  }
  return Object.freeze({
    html: raw.html === undefined ? null : String(raw.html),
    apdexMs,
    thresholds: Object.freeze(thresholds),
    abortOnFail: Boolean(raw.abortOnFail),
    failOnGeneratorBound: Boolean(raw.failOnGeneratorBound),
  });
}
