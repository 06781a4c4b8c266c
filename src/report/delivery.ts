/**
 * The terminal's delivery section (--receive): what came out of the gateway's back door, each
 * accepted message in one state, the relay rate beside the accept rate, end-to-end latency from
 * the intended send time, and the first lost messages to look up in the gateway's log.
 */
import { deliveryVerdict, drainText, keysStripped } from "../delivery/delivery-verdict.js";
import type { DeliveryResult, MessageRef } from "../result/delivery-result.js";
import type { LatencySummary, Result } from "../result/result.js";
import { figureCells, TERMINAL_LINES, type Tones } from "./figure-table.js";
import { fmt, ms } from "./figures.js";

/** The colours the terminal summary paints with (terminal.ts's painter). */
interface Paint extends Tones {
  bold(s: string): string;
}

const row = (label: string, cells: string[]) => `${label.padEnd(14)}${cells.join("   ")}`;
const summary = (l: LatencySummary) =>
  l.count === 0 ? "n/a" : `p50 ${ms(l.p50)}  p99 ${ms(l.p99)}  max ${ms(l.max)} ms`;

export function deliverySection(result: Result, paint: Paint): string {
  const d = result.delivery;
  if (!d) return "";
  const bad = (n: number, text: string) => (n > 0 ? paint.red : (s: string) => s)(text);
  const lines = [
    paint.bold(`Through the gateway → received at ${d.receiver}`),
    row("Verdict", [deliveryVerdict(d)]),
    row("Delivery", [
      paint.green(`delivered ${fmt(d.delivered)}/${fmt(d.accepted)}`),
      ...figureCells(result, TERMINAL_LINES.Delivery, paint),
    ]),
    row("", [
      `retried ${fmt(d.retried)} (${fmt(d.retryAttempts)} attempts)`,
      ...figureCells(result, TERMINAL_LINES.DeliveryMore, paint),
    ]),
    ...drainLines(d, paint),
    ...clockLines(d),
    row("End to end", [summary(d.endToEndMs), "(intended send → first arrival)"]),
    row("In gateway", [summary(d.insideGatewayMs), "(250 → first arrival)"]),
  ];
  if (d.retried > 0) lines.push(row("Retry delay", [summary(d.retryDelayMs)]));
  lines.push(...stateLines(d));
  const classes = Object.entries(d.classes);
  if (classes.length > 1) {
    for (const [name, c] of classes) {
      lines.push(
        row(`  ${name}`, [
          `delivered ${fmt(c.delivered)}/${fmt(c.accepted)}`,
          bad(c.lost, `lost ${fmt(c.lost)}`),
          ...(c.bounced > 0
            ? [bad(c.bounced, `bounced ${fmt(c.bounced)} (${statusesText(c.bounceStatuses)})`)]
            : []),
          ...(c.extra > 0 ? [`extra ${fmt(c.extra)}`] : []),
          `e2e ${summary(c.endToEndMs)}`,
        ]),
      );
    }
  }
  if (d.bounced > 0) lines.push(row("Bounced", [statusesText(d.bounceStatuses)]));
  if (d.firstLost.length > 0) lines.push(row("First lost", [refsText(d.firstLost)]));
  if (d.firstDuplicated.length > 0) {
    lines.push(row("First dup.", [refsText(d.firstDuplicated)]));
  }
  return lines.join("\n");
}

/** The first messages of a list, to grep the gateway's log for: id, class, queue id. */
export function refsText(refs: readonly MessageRef[], n = 5): string {
  const shown = refs.slice(0, n).map((l) => `${l.id} ${l.className} ${l.queueId || "-"}`);
  return `${shown.join(", ")}${refs.length > n ? ", …" : ""}`;
}

/** Bounce statuses with their counts: "5.3.0 ×44, 5.1.1 ×4". */
export function statusesText(statuses: Readonly<Record<string, number>>): string {
  const entries = Object.entries(statuses).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return entries.length === 0
    ? "status unknown"
    : entries.map(([status, n]) => `${status} ×${fmt(n)}`).join(", ");
}

/** How the drain ended, the job's window, and stripped keys when nothing could be joined. */
function drainLines(d: DeliveryResult, paint: Paint): string[] {
  return [
    row("Drain", [
      d.drainTimedOut ? paint.red(drainText(d)) : drainText(d),
      d.windowMs > 0
        ? `last arrival ${fmt(d.drainMs / 1000, 3)} s after the last acceptance`
        : "nothing arrived",
    ]),
    row("Window", [
      `${fmt(d.windowMs / 1000, 3)} s first connect to last arrival`,
      `${fmt(d.deliveredPerSecond, 1)} delivered/s`,
      `most inside the gateway ${fmt(d.backlogMax)}`,
    ]),
    ...(keysStripped(d)
      ? [
          row("Keys", [
            paint.red(
              `every arrival was foreign (${fmt(d.foreign)}): the gateway stripped the keys; run with --tag-recipients`,
            ),
          ]),
        ]
      : []),
  ];
}

/** Two hosts' clocks: the latencies are as measured, offset included; say so. */
function clockLines(d: DeliveryResult): string[] {
  if (d.receiverClock !== "other") return [];
  const behind =
    d.clockBehindMs > 0
      ? `; arrivals timed up to ${fmt(d.clockBehindMs, 1)} ms before their 250 (the receiver's clock behind, or a relay faster than the reply)`
      : "";
  return [
    row("Clocks", [
      `two hosts: the latencies below include the offset between the receiver's clock and the client's${behind}`,
    ]),
  ];
}

/** The latencies of each final state, when more than one state had arrivals. */
function stateLines(d: DeliveryResult): string[] {
  const states = Object.entries(d.byState);
  if (states.length < 2) return [];
  return states.map(([state, l]) =>
    row(`  ${state}`, [`e2e ${summary(l.endToEndMs)}`, `in gateway ${summary(l.insideGatewayMs)}`]),
  );
}
