/**
 * --out ndjson=FILE and --out csv=FILE (k6's --out): the time series streamed while the run goes,
 * one line per interval as soon as the interval is complete across every worker, written
 * straight to the file (no buffering in the process), so `tail -f` can follow a long run and a
 * killed run leaves every interval it completed. At the end the intervals still open (the last
 * one, closed by the run's end) follow from the final Result, so the file holds exactly its
 * series. `compare` streams both runs into the same files; `mode` tells them apart.
 */
import { closeSync } from "node:fs";

import type { SeriesOut } from "../config/report-options.js";
import type { Result, SeriesPointResult } from "../result/result.js";
import { seriesResult } from "../result/summarise.js";
import { ERROR_CLASSES } from "../stats/errors.js";
import type { SeriesPoint } from "../stats/series.js";
import { UsageError } from "../usage/usage-error.js";
import { checkOutputPath, openForWriting, writeFully } from "./output.js";
import { PrometheusFile } from "./prometheus.js";

/**
 * One streamed line's fields: the series point with its time and mode, without its histograms and
 * without `generator` (the generator's load per interval is summed up only at the run's end).
 */
export type StreamedPoint = Omit<
  SeriesPointResult,
  "histogram" | "connectHistogram" | "generator"
> & {
  time: string;
  /** The run's mode; with compare --starttls "per-message full" or "per-message resumed". */
  mode: string;
};

/** The CSV's columns: the point's fields in order, then one column per error class. */
const CSV_FIELDS = [
  "time",
  "t",
  "mode",
  "sent",
  "dropped",
  "accepted",
  "rejected",
  "failed",
  "unconfirmed",
  "connectionsOpened",
  "openSessions",
  "p50Ms",
  "p99Ms",
] as const satisfies readonly (keyof StreamedPoint)[];
const CSV_HEADER = [...CSV_FIELDS, ...ERROR_CLASSES.map((c) => `errors.${c}`)].join(",");

function ndjsonLine(p: StreamedPoint): string {
  return `${JSON.stringify(p)}\n`;
}

function csvLine(p: StreamedPoint): string {
  const fields = [...CSV_FIELDS.map((f) => p[f]), ...ERROR_CLASSES.map((c) => p.errors[c])];
  return `${fields.join(",")}\n`;
}

/** Throws a UsageError naming --out when a stream's file cannot be created (before traffic). */
export function checkSeriesOut(outs: readonly SeriesOut[]): void {
  for (const out of outs) checkOutputPath("--out", out.path);
}

export class SeriesStreams {
  private readonly files: { fd: number; line: (p: StreamedPoint) => string }[];
  private readonly totals: PrometheusFile[];
  private lastT = Number.NEGATIVE_INFINITY;

  /** Creates (truncates) the files and writes the CSV header; call once the input is valid. */
  constructor(
    outs: readonly SeriesOut[],
    private readonly intervalMs: number,
  ) {
    this.totals = outs
      .filter((out) => out.format === "prometheus")
      .map((out) => new PrometheusFile(out.path));
    this.files = outs.flatMap((out) => {
      if (out.format === "prometheus") return [];
      let fd: number;
      try {
        fd = openForWriting(out.path);
      } catch (error) {
        const why = (error as NodeJS.ErrnoException).code ?? String(error);
        throw new UsageError("--out", `cannot write "${out.path}" (${why}); give a writable file`);
      }
      if (out.format === "csv") writeFully(fd, `${CSV_HEADER}\n`);
      return [{ fd, line: out.format === "csv" ? csvLine : ndjsonLine }];
    });
  }

  /** A run begins: its intervals follow (compare's second run may start in the first's last). */
  begin(): void {
    this.lastT = Number.NEGATIVE_INFINITY;
  }

  /** Intervals complete across the workers, as a progress report brings them. */
  write(mode: string, points: readonly SeriesPoint[]): void {
    if (points.length === 0 || this.files.length + this.totals.length === 0) return;
    this.emit(mode, seriesResult({ intervalMs: this.intervalMs, points: [...points] }).points);
    for (const file of this.totals) file.flush();
  }

  /** The run's end: the intervals not yet streamed, from the final Result's series. */
  finish(result: Result, mode: string = result.mode): void {
    this.emit(mode, result.series.points);
    for (const file of this.totals) file.finish(result, mode);
  }

  close(): void {
    for (const file of this.files) closeSync(file.fd);
  }

  private emit(mode: string, points: readonly SeriesPointResult[]): void {
    for (const whole of points) {
      const { histogram: _h, connectHistogram: _c, generator: _g, ...point } = whole;
      if (point.t <= this.lastT) continue;
      this.lastT = point.t;
      const streamed = { time: new Date(point.t).toISOString(), mode, ...point };
      for (const file of this.files) writeFully(file.fd, file.line(streamed));
      for (const file of this.totals) file.add(mode, streamed);
    }
  }
}
