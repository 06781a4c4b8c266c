/**
 * The tables whose rows are many things of one kind (a phase, a message class) and whose columns
 * are figures: each column a path inside the row's object and a format, read by the terminal and
 * the HTML alike, so a new column is one entry here. The companion of figure-table.ts, whose rows
 * are one figure each.
 */
import { FORMATS, valueAt } from "./figure-table.js";

export interface Column {
  /** The column's heading. */
  heading: string;
  /** The figure's path inside the row's object: "attempted", "transactionMs.p99". */
  key: string;
  format: keyof typeof FORMATS;
  /** A latency: "-" when its summary has no samples, not 0.000. */
  latency?: boolean;
  /** What a row without the figure shows: a number (0 for older results), else "-". */
  missing?: number;
}

const LATENCY_KEYS = ["min", "mean", "p50", "p90", "p95", "p99", "max"] as const;

/** A latency table's columns over one LatencySummary: its count, then its figures in ms. */
export const LATENCY_COLUMNS: readonly Column[] = [
  { heading: "count", key: "count", format: "count", missing: 0 },
  ...LATENCY_KEYS.map((key) => ({ heading: key, key, format: "ms", latency: true, missing: 0 })),
] as Column[];

/** The statistics table's columns over one ClassResult (JMeter's dashboard statistics). */
export const STATISTICS_COLUMNS: readonly Column[] = [
  { heading: "count", key: "attempted", format: "count" },
  { heading: "error %", key: "errorPercent", format: "percent" },
  ...LATENCY_KEYS.filter((key) => key !== "min").map(
    (key): Column => ({ heading: key, key: `transactionMs.${key}`, format: "ms", latency: true }),
  ),
  { heading: "msg/s", key: "messagesPerSecond", format: "rate" },
  { heading: "Apdex", key: "apdex", format: "fraction" },
];

/** A column's value in a row: null when the row lacks it or a latency has no samples. */
export function columnValue(column: Column, row: unknown): number | null {
  if (column.latency) {
    const count = valueAt(row, column.key.replace(/[^.]+$/, "count"));
    if (count === 0) return null;
  }
  return valueAt(row, column.key) ?? column.missing ?? null;
}

/** A column's cell as text: "-" for no value. */
export function columnText(column: Column, row: unknown): string {
  const value = columnValue(column, row);
  return value === null ? "-" : FORMATS[column.format](value);
}

/** A column of words, not a figure: the text at `key` in the row, or `empty` when there is none. */
export interface TextColumn {
  heading: string;
  key: string;
  empty?: string;
  /** The reply's own text: long, so the terminal cuts it. */
  long?: boolean;
}

/** The error table's columns over one ErrorRow: its count, then what the reply was. */
export const ERROR_COLUMNS: readonly (Column | TextColumn)[] = [
  { heading: "count", key: "count", format: "count" },
  { heading: "class", key: "class", empty: "" },
  { heading: "reply", key: "reply", empty: "" },
  { heading: "enhanced", key: "enhanced", empty: "-" },
  { heading: "phase", key: "phase", empty: "" },
  { heading: "text", key: "text", empty: "", long: true },
];

export function isTextColumn(column: Column | TextColumn): column is TextColumn {
  return !("format" in column);
}

/** A text column's words in a row (not yet escaped for the terminal or HTML). */
export function columnWords(column: TextColumn, row: unknown): string {
  const value = (row as Record<string, unknown>)[column.key];
  return typeof value === "string" && value !== "" ? value : (column.empty ?? "");
}
