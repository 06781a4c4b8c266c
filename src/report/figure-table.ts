/**
 * The figures the reports show as rows, one entry each: where the figure is in a Result (its
 * JSON path, which is also the HTML cell's `data-field`, the key of its description in the JSON
 * Schema, the row's tooltip, and the key of its merge rule in result/merge-rules.ts), the row's
 * label, and how its number is written. The HTML overview and delivery section, the compare
 * table and the terminal's lines of counts list which rows they show; a new figure is one entry
 * here and one name in a list. Tables whose rows are many things of one kind (phases, classes,
 * error rows) take their columns from figure-columns.ts. test/report-figures.test.ts checks
 * every path against the schema: it exists there, with a description.
 */
import type { Result } from "../result/result.js";
import { fmt, ms } from "./figures.js";

/** How a figure's number is written. */
export const FORMATS = {
  count: (v: number) => fmt(v),
  rate: (v: number) => fmt(v, 1),
  seconds: (v: number) => v.toFixed(3),
  ms: (v: number) => ms(v),
  perMessage: (v: number) => fmt(v, 4),
  /** A percentage as the statistics table writes it: 12.50. */
  percent: (v: number) => v.toFixed(2),
  /** A fraction of 1 (an Apdex score): 0.975. */
  fraction: (v: number) => v.toFixed(3),
  /** Whole numbers as counts, others to one decimal: figures that are either. */
  auto: (v: number) => (Number.isInteger(v) ? fmt(v) : fmt(v, 1)),
} as const;

/**
 * The dotted paths of a Result's numbers ("messages.accepted", "tls.fullMs.p50"), so that a
 * row naming a field the Result does not have fails to compile. Lists are not walked: a row
 * shows one number per run.
 */
type NumberPath<T, Depth extends unknown[] = []> = Depth["length"] extends 4
  ? never
  : {
      [K in keyof T & string]: NonNullable<T[K]> extends number
        ? K
        : NonNullable<T[K]> extends readonly unknown[]
          ? never
          : NonNullable<T[K]> extends object
            ? `${K}.${NumberPath<NonNullable<T[K]>, [...Depth, unknown]>}`
            : never;
    }[keyof T & string];

export type ResultPath = NumberPath<Result>;

export interface Figure {
  /** Dotted path in a Result: "messages.accepted", "tls.fullMs.p50". */
  path: ResultPath;
  /** The row's label. */
  label: string;
  /** The compare table's label, where it is shorter; else `label`. */
  short?: string;
  format: keyof typeof FORMATS;
  /** What a Result without the field shows: null ("n/a"), or a number (0 for older results). */
  missing?: number;
  /** Painted as bad when not 0 (a lost message). */
  bad?: boolean;
  /** Shown only when this holds (a latency with samples); else "n/a". */
  when?: (r: Result) => boolean;
}

const count = (path: ResultPath, label: string, more: Partial<Figure> = {}): Figure => ({
  path,
  label,
  format: "count",
  ...more,
});

/**
 * The delivery section's counts and rates (--receive), named "delivery.FIELD"; `bad` marks the
 * ones the HTML paints when not 0. Whole numbers as counts, rates to one decimal.
 */
const DELIVERY = [
  ["accepted", "accepted by the gateway"],
  ["delivered", "delivered"],
  ["lost", "lost", true],
  ["partial", "partial", true],
  ["bounced", "bounced", true],
  ["duplicated", "duplicated", true],
  ["late", "late"],
  ["notWaited", "not waited for"],
  ["retried", "retried"],
  ["retryAttempts", "retry attempts"],
  ["foreign", "foreign"],
  ["extra", "extra recipients"],
  ["notices", "notices"],
  ["unconfirmed", "unconfirmed"],
  ["backlogMax", "most inside the gateway"],
  ["acceptedPerSecond", "accepted/s"],
  ["relayedPerSecond", "relayed/s"],
  ["drainMs", "drain (ms)"],
  ["windowMs", "window (ms)"],
] as const;

type DeliveryField = (typeof DELIVERY)[number][0];

function deliveryFigures(): Record<`delivery.${DeliveryField}`, Figure> {
  return Object.fromEntries(
    DELIVERY.map(([field, label, bad]) => [
      `delivery.${field}`,
      { path: `delivery.${field}`, label, format: "auto", ...(bad ? { bad } : {}) },
    ]),
  ) as Record<`delivery.${DeliveryField}`, Figure>;
}

/** The HTML delivery section's rows of counts, in order. */
export const DELIVERY_ROWS: readonly FigureName[] = DELIVERY.flatMap(([field]) =>
  field === "unconfirmed" ? [] : [`delivery.${field}` as const],
);

/** Every figure a report shows as a row, by name. */
export const FIGURES = {
  meanRate: {
    path: "throughput.messagesPerSecond",
    label: "Messages/s (whole-run mean)",
    short: "Messages/s (mean)",
    format: "rate",
  },
  plateauRate: {
    path: "throughput.plateau.messagesPerSecond",
    label: "Messages/s (plateau)",
    format: "rate",
  },
  elapsed: { path: "elapsedSeconds", label: "Time taken (s)", format: "seconds" },
  attempted: count("messages.attempted", "Messages attempted"),
  accepted: count("messages.accepted", "Accepted"),
  rejected: count("messages.rejected", "Rejected"),
  failed: count("messages.failed", "Failed"),
  unconfirmed: count("messages.unconfirmed", "Unconfirmed (sent, no final reply)", {
    short: "Unconfirmed",
    missing: 0,
  }),
  dropped: count("messages.dropped", "Dropped arrivals", { missing: 0 }),
  uncorrectedP99: {
    path: "latencyUncorrected.transactionMs.p99",
    label: "Transaction p99 uncorrected (ms)",
    format: "ms",
    when: (r) => (r.latencyUncorrected?.transactionMs.count ?? 0) > 0,
  },
  connectionsOpened: count("connections.opened", "Connections opened"),
  connectionsEstablished: count("connections.established", "Connections established"),
  connectionsRefused: count("connections.refused", "Connections refused"),
  reconnects: count("connections.reconnects", "Reconnects"),
  perMessage: {
    path: "connections.perMessage",
    label: "Connections per message",
    format: "perMessage",
  },
  recipientsAttempted: count("recipients.attempted", "Recipients attempted"),
  recipientsAccepted: count("recipients.accepted", "Recipients accepted"),
  recipientsRejected: count("recipients.rejected", "Recipients rejected"),
  asked: count("accounting.asked", "Messages asked for"),
  started: count("accounting.started", "Started"),
  unsent: count("accounting.unsent", "Unsent (every session gave up)"),
  stopped: count("accounting.stopped", "Stopped before sending"),
  tlsFull: count("tls.full", "TLS handshakes full"),
  tlsResumed: count("tls.resumed", "TLS handshakes resumed"),
  tlsFullP50: {
    path: "tls.fullMs.p50",
    label: "TLS handshake p50 full (ms)",
    format: "ms",
    when: (r) => (r.tls?.full ?? 0) > 0,
  },
  tlsResumedP50: {
    path: "tls.resumedMs.p50",
    label: "TLS handshake p50 resumed (ms)",
    format: "ms",
    when: (r) => (r.tls?.resumed ?? 0) > 0,
  },
  ...deliveryFigures(),
} as const satisfies Record<string, Figure>;

export type FigureName = keyof typeof FIGURES;

/** The HTML overview's rows, in order; the TLS rows only when a run made a handshake. */
export const OVERVIEW_ROWS: readonly FigureName[] = [
  "meanRate",
  "plateauRate",
  "elapsed",
  "attempted",
  "accepted",
  "rejected",
  "failed",
  "unconfirmed",
  "dropped",
  "uncorrectedP99",
  "connectionsOpened",
  "connectionsRefused",
  "perMessage",
  "recipientsAccepted",
];
/** Where every message asked for went (Result.accounting), when a run has it. */
export const ACCOUNTING_ROWS: readonly FigureName[] = ["asked", "started", "unsent", "stopped"];
export const TLS_ROWS: readonly FigureName[] = [
  "tlsFull",
  "tlsResumed",
  "tlsFullP50",
  "tlsResumedP50",
];

/** The compare table's rows (before its error classes); TLS counts only with TLS. */
export const COMPARE_ROWS: readonly FigureName[] = [
  "meanRate",
  "plateauRate",
  "elapsed",
  "accepted",
  "rejected",
  "failed",
  "unconfirmed",
  "connectionsOpened",
  "connectionsRefused",
  "perMessage",
];
export const COMPARE_TLS_ROWS: readonly FigureName[] = ["tlsFull", "tlsResumed"];

/**
 * How the terminal summary writes a figure in one of its lines: "attempted 10,000", or with
 * `after` "0.0010 per message". `tone` paints it: good always, warn and bad when not 0;
 * `whenAny` leaves the cell out when the figure is 0 or absent.
 */
export interface TerminalCell {
  figure: FigureName;
  word: string;
  after?: boolean;
  tone?: "good" | "warn" | "bad";
  whenAny?: boolean;
}

/** The terminal summary's lines of counts, by label, each a list of cells. */
export const TERMINAL_LINES = {
  Messages: [
    { figure: "attempted", word: "attempted" },
    { figure: "accepted", word: "accepted", tone: "good" },
    { figure: "rejected", word: "rejected", tone: "warn" },
    { figure: "failed", word: "failed", tone: "bad" },
    { figure: "unconfirmed", word: "unconfirmed", tone: "warn" },
  ],
  Connections: [
    { figure: "connectionsOpened", word: "opened" },
    { figure: "connectionsEstablished", word: "established" },
    { figure: "connectionsRefused", word: "refused", tone: "bad" },
    { figure: "reconnects", word: "reconnects", tone: "warn", whenAny: true },
    { figure: "perMessage", word: "per message", after: true },
  ],
  /** The delivery section's line of states (--receive), after its "delivered N/M" cell. */
  Delivery: [
    { figure: "delivery.lost", word: "lost", tone: "bad" },
    { figure: "delivery.partial", word: "partial", tone: "bad" },
    { figure: "delivery.bounced", word: "bounced", tone: "bad" },
    { figure: "delivery.duplicated", word: "duplicated", tone: "bad" },
    { figure: "delivery.late", word: "late" },
    { figure: "delivery.notWaited", word: "not waited for", whenAny: true },
  ],
  /** Its second line, after the "retried N (M attempts)" cell. */
  DeliveryMore: [
    { figure: "delivery.foreign", word: "foreign" },
    { figure: "delivery.extra", word: "extra" },
    { figure: "delivery.notices", word: "notices" },
    { figure: "delivery.unconfirmed", word: "unconfirmed", whenAny: true },
  ],
  Recipients: [
    { figure: "recipientsAttempted", word: "attempted" },
    { figure: "recipientsAccepted", word: "accepted" },
    { figure: "recipientsRejected", word: "rejected" },
  ],
} as const satisfies Record<string, readonly TerminalCell[]>;

/** The value at a dotted path of any object: a number, or null when absent or not a number. */
export function valueAt(root: unknown, path: string): number | null {
  let at: unknown = root;
  for (const key of path.split(".")) {
    if (typeof at !== "object" || at === null) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === "number" ? at : null;
}

/** A figure's value in a Result; null shows as "n/a". */
export function figureValue(figure: Figure, r: Result): number | null {
  if (figure.when && !figure.when(r)) return null;
  return valueAt(r, figure.path) ?? figure.missing ?? null;
}

/** A figure's number as the reports write it. */
export function figureText(figure: Figure, value: number): string {
  return FORMATS[figure.format](value);
}

/** The colours a terminal cell may take (terminal.ts's painter). */
export interface Tones {
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
}

/** A terminal line's cells: "attempted 10,000", painted by tone; "n/a" for an absent figure. */
export function figureCells(
  result: Result,
  cells: readonly TerminalCell[],
  paint: Tones,
): string[] {
  const tones = { good: paint.green, warn: paint.yellow, bad: paint.red };
  return cells.flatMap((cell) => {
    const figure: Figure = FIGURES[cell.figure];
    const value = figureValue(figure, result);
    if (cell.whenAny && !value) return [];
    const shown = value === null ? "n/a" : figureText(figure, value);
    const text = cell.after ? `${shown} ${cell.word}` : `${cell.word} ${shown}`;
    return [cell.tone && (cell.tone === "good" || value) ? tones[cell.tone](text) : text];
  });
}
