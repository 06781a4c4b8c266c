/**
 * `mailvolley capacity`: the finding in words, a table of every step, and SPECmail's table of
 * the steps at 80, 100 and 120 % of the rate found (each level's % compliant). Pure: the
 * capacity document in, text out.
 */
import type {
  Capacity,
  CapacityCheck,
  CapacityDocument,
  CapacityStep,
} from "../result/capacity-result.js";
import { printable } from "../stats/printable.js";
import { fmt } from "./figures.js";
import { painter, table } from "./terminal.js";

/** "190/s", "1,250/s", "7.5/s". */
export function rateText(perSecond: number): string {
  const digits = perSecond >= 100 || Number.isInteger(perSecond) ? 0 : perSecond >= 10 ? 1 : 2;
  return `${fmt(perSecond, digits)}/s`;
}

/** A latency as a person reads it: "4.7 ms", "5.7 s". */
export function latencyText(ms: number | null): string {
  if (ms === null) return "–";
  if (ms >= 1000) return `${Number((ms / 1000).toPrecision(3))} s`;
  return `${Number(ms.toPrecision(3))} ms`;
}

/** What a failed check measured, in words: "the backlog grew 41/s", "delivery p95 reached 73 s". */
export function failureWords(c: CapacityCheck): string {
  const actual = c.actual;
  const what = c.expression.replace(/(<=|>=|==|<|>).*$/, "").trim();
  if (c.criterion === "backlog") {
    return actual === null
      ? "the backlog was not measured"
      : `the backlog grew ${fmt(actual, 1)}/s`;
  }
  if (c.criterion === "waiting") {
    return actual === null
      ? "the arrivals waiting were not measured"
      : `arrivals waiting for a session grew ${fmt(actual, 1)}/s`;
  }
  if (actual === null) return `${what} had no sample`;
  if (c.criterion === "errors") return `${fmt(actual, 2)} % of arrivals ended in an error`;
  if (c.criterion === "lost") return `${fmt(actual)} messages were lost`;
  if (c.unit === "ms") return `${what} reached ${latencyText(actual)}`;
  return `${what} was ${fmt(actual, 3)}${c.unit === "%" ? " %" : c.unit}`;
}

/** "the backlog grew 41/s and delivery p95 reached 73 s". */
function joinWords(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

function stepFailures(step: CapacityStep): string {
  return joinWords(step.checks.filter((c) => !c.pass).map(failureWords));
}

/**
 * The finding in one or two sentences: "Sustains 190 messages/s (11,400/min) through the
 * gateway within the service levels; at 120 % (228/s) the backlog grew 41/s and delivery p95
 * reached 73 s."
 */
export function capacityHeadline(c: Capacity): string {
  const where = c.throughGateway ? "through the gateway" : "at the front door";
  const rate = c.sustainedPerSecond;
  if (c.limitedBy === "nobody" && rate === null) return `Nothing was measured: ${c.reason}.`;
  if (rate === null) {
    const last = c.steps[c.steps.length - 1];
    const at =
      last?.purpose === "estimate"
        ? "in the first, closed-model step"
        : `at ${rateText(last?.ratePerSecond ?? 0)}`;
    const why = last && !last.pass ? `: ${at} ${stepFailures(last)}` : "";
    return `No step met the service levels${why}.`;
  }
  const amount = `${fmt(rate, rate >= 100 || Number.isInteger(rate) ? 0 : 1)} messages/s (${fmt(rate * 60)}/min)`;
  if (c.atLeast) {
    const ceiling =
      c.limitedBy === "generator" ? "this machine's ceiling, not the target's" : c.reason;
    return `Sustains at least ${amount} ${where} within the service levels: ${ceiling}.`;
  }
  const above = c.levels.find((l) => l.percent === 120);
  const step = above ? c.steps[above.step] : undefined;
  const margin =
    step === undefined
      ? ""
      : step.pass
        ? `; at 120 % (${rateText(step.ratePerSecond)}) it still met them`
        : `; at 120 % (${rateText(step.ratePerSecond)}) ${stepFailures(step)}`;
  return `Sustains ${amount} ${where} within the service levels${margin}.`;
}

/** The step's verdict: "pass", the criteria that failed, or "estimate". */
export function verdictText(step: CapacityStep): string {
  if (step.purpose === "estimate") return "estimate";
  return step.pass ? "pass" : step.failed.join(", ");
}

/**
 * A trend level's cell: its slope, "growing" only where the level failed on it. A slope past
 * the trend's tolerance that a short window's noise explains passed, and says so.
 */
function trendCell(step: CapacityStep, criterion: "backlog" | "waiting"): string {
  const check = step.checks.find((c) => c.criterion === criterion);
  if (!check || check.actual === null) return "–";
  const slope = `${check.actual > 0 ? "+" : ""}${fmt(check.actual, 1)}/s`;
  if (!check.pass) return `growing ${slope}`;
  const tolerance = criterion === "backlog" ? step.backlog?.tolerancePerSecond : undefined;
  const beyond = tolerance !== undefined && Math.abs(check.actual) > tolerance;
  return beyond ? `${slope} (noise)` : `flat ${slope}`;
}

function backlogCell(step: CapacityStep): string {
  return trendCell(step, "backlog");
}

/** The step table's columns: the terminal and the HTML show the same. */
export const STEP_HEADER = [
  "step",
  "offered",
  "accepted",
  "delivered",
  "connect p95",
  "transaction p95",
  "delivery p95",
  "errors",
  "backlog",
  "verdict",
] as const;

/** One step's cells, in STEP_HEADER's order. */
export function stepCells(s: CapacityStep, i: number): string[] {
  return [
    `${i + 1}${s.percent === null ? "" : ` (${s.percent} %)`}`,
    s.purpose === "estimate" ? "closed" : rateText(s.ratePerSecond),
    rateText(s.acceptedPerSecond),
    s.deliveredPerSecond === null ? "–" : rateText(s.deliveredPerSecond),
    latencyText(s.connectP95Ms),
    latencyText(s.transactionP95Ms),
    latencyText(s.deliveryP95Ms),
    `${fmt(s.errorPercent, 2)} %`,
    backlogCell(s),
    verdictText(s),
  ];
}

/** Every step: rate offered, what came of it, and its verdict. */
export function stepTable(c: Capacity, paint: ReturnType<typeof painter>): string {
  const rows = c.steps.map((s, i) => {
    const cells = stepCells(s, i);
    const verdict = cells[cells.length - 1];
    cells[cells.length - 1] =
      s.purpose === "estimate"
        ? paint.dim(verdict)
        : s.pass
          ? paint.green(verdict)
          : paint.red(verdict);
    return cells;
  });
  const right = STEP_HEADER.map((_, i) => i > 0 && i < 9);
  return table([[...STEP_HEADER], ...rows], right);
}

/** The compliance table's header: the service level, what its cells show, then each level step. */
export function complianceHeader(c: Capacity): string[] {
  return [
    "service level",
    "shown",
    ...c.levels.map((l) => `${l.percent} % (${rateText(l.ratePerSecond)})`),
  ];
}

/** The limit as the level was written: "5s" of "connect p95<=5s". */
const limitOf = (expression: string) => expression.replace(/^.*?(<=|>=|==|<|>)\s*/, "");

/** What the level measures: "connect p95" of "connect p95<=5s". */
const measureOf = (expression: string) => expression.replace(/(<=|>=|==|<|>).*$/, "").trim();

/**
 * What a level's cells show: SPECmail's % compliant where the level has one, else what was
 * measured ("messages lost", a trend). The label names it, so no figure is read as another.
 */
export function complianceShown(check: CapacityCheck): string {
  const limit = limitOf(check.expression);
  switch (check.criterion) {
    case "connect":
      return `% connects within ${limit}`;
    case "transaction":
      return `% transactions within ${limit}`;
    case "errors":
      return "% arrivals error-free";
    case "delivery":
      return `% delivered within ${limit}`;
    case "lost":
      return "messages lost";
    case "waiting":
      return "trend of arrivals waiting";
    case "backlog":
      return "trend of the backlog";
    default:
      return "measured over the whole step";
  }
}

/** A % compliant cell without a share: the window had nothing of that kind. */
const NO_SAMPLE: Record<string, string> = {
  connect: "no connect",
  transaction: "no transaction",
  errors: "no arrival",
  delivery: "no message",
};

/** What one level step measured for a level, as its cell shows it (before pass or fail). */
function complianceValue(s: CapacityStep, check: CapacityCheck): string {
  const actual = check.actual;
  // The level is on the count: a count, however small a share of the accepted it is.
  if (check.criterion === "lost") return actual === null ? "–" : fmt(actual);
  if (check.compliancePercent !== null) return `${fmt(check.compliancePercent, 2)} %`;
  if (check.criterion === "backlog" || check.criterion === "waiting") {
    return trendCell(s, check.criterion);
  }
  if (check.criterion in NO_SAMPLE) {
    // A document saved before a level had its share gives what it measured instead.
    if (actual === null) return NO_SAMPLE[check.criterion];
    return `${measureOf(check.expression)} ${latencyText(actual)}`;
  }
  if (actual === null) return "–";
  if (check.unit === "ms") return latencyText(actual);
  return `${fmt(actual, 3)}${check.unit === "%" ? " %" : check.unit}`;
}

/**
 * SPECmail's table, one row per service level: what its cells show, and at each level step
 * the % compliant (or, where the level has no share, what was measured) and pass or fail.
 */
export function complianceRows(c: Capacity): {
  expression: string;
  shown: string;
  cells: { text: string; pass: boolean }[];
}[] {
  const steps = c.levels.map((l) => c.steps[l.step]);
  return c.levelsJudged.map((expression, i) => ({
    expression,
    shown: steps.length > 0 ? complianceShown(steps[0].checks[i]) : "",
    cells: steps.map((s) => {
      const check = s.checks[i];
      return {
        text: `${complianceValue(s, check)} ${check.pass ? "pass" : "fail"}`,
        pass: check.pass,
      };
    }),
  }));
}

/** SPECmail's table: per level, the % compliant at 80, 100 and 120 % of the rate found. */
export function complianceTable(c: Capacity, paint: ReturnType<typeof painter>): string | null {
  if (c.levels.length === 0) return null;
  const header = complianceHeader(c);
  const rows = complianceRows(c).map((r) => [
    r.expression,
    r.shown,
    ...r.cells.map((cell) => (cell.pass ? cell.text : paint.red(cell.text))),
  ]);
  const verdicts = [
    "all levels",
    "",
    ...c.levels.map((l) => (l.pass ? paint.green("pass") : paint.red("fail"))),
  ];
  return table(
    [header, ...rows, verdicts],
    header.map((_, i) => i > 1),
  );
}

/** One mode's capacity: headline, reason, steps, levels. */
function renderSection(c: Capacity, paint: ReturnType<typeof painter>): string {
  const lines = [
    paint.bold(printable(`${c.mode}: ${c.headline}`)),
    `  search ended: ${printable(c.reason)} (limited by ${c.limitedBy}; ${fmt(c.elapsedMs / 1000)} s, ${c.steps.length} steps, ${c.arrivals} arrivals)`,
    "",
    stepTable(c, paint),
  ];
  const compliance = complianceTable(c, paint);
  if (compliance) lines.push("", compliance);
  return lines.join("\n");
}

/** The terminal's summary: each mode searched, and with both, the two side by side. */
export function renderCapacity(doc: CapacityDocument, options: { color: boolean }): string {
  const paint = painter(options.color);
  const sections = doc.perMessage ? [doc.perMessage, doc.capacity] : [doc.capacity];
  const parts = sections.map((c) => renderSection(c, paint));
  if (doc.perMessage) parts.push(sideBySide(doc.perMessage, doc.capacity));
  return `${parts.join("\n\n")}\n`;
}

/**
 * --mode both in one line: the connection limits a gateway hits with a connection per message
 * against what it sustains over held sessions.
 */
export function sideBySide(perMessage: Capacity, reuse: Capacity): string {
  const text = (c: Capacity) =>
    c.sustainedPerSecond === null
      ? "no rate"
      : `${c.atLeast ? "at least " : ""}${rateText(c.sustainedPerSecond)}`;
  const a = perMessage.sustainedPerSecond;
  const b = reuse.sustainedPerSecond;
  const times =
    a !== null && b !== null && a > 0
      ? `: reuse carries ×${fmt(b / a, 2)} the per-message rate`
      : "";
  return `Side by side: per-message sustains ${text(perMessage)}, reuse ${text(reuse)}${times}.`;
}
