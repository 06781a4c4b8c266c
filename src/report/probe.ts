/** `mailvolley probe`'s answer in words: a pure function of a ProbeResult. */

import type { ProbeResult } from "../result/probe-result.js";
import { printable } from "../stats/printable.js";
import { fmt } from "./figures.js";
import { painter, row } from "./terminal.js";

const ALLOWED: Record<ProbeResult["probe"], string> = {
  concurrency: "connections held open at once (after EHLO)",
  "connection-rate": "connections opened one after another",
  "message-rate": "messages accepted in one session",
};

export function renderProbe(result: ProbeResult, options: { color: boolean }): string {
  const paint = painter(options.color);
  const lines = [
    paint.bold(`mailvolley probe ${result.probe} → ${result.target}`),
    "",
    row("Allowed", [`${paint.bold(fmt(result.allowed))} ${ALLOWED[result.probe]}`]),
    row("Time taken", [`${result.seconds.toFixed(3)} s (first connect to the refusal or the end)`]),
  ];
  const r = result.refusal;
  if (r && result.ended === "local") {
    lines.push(
      row("Stopped", [
        paint.yellow(
          `on this machine's side, not the gateway's: ${printable(r.text)} (raise ulimit -n, or lower --max)`,
        ),
      ]),
    );
  } else if (r) {
    const code = printable([r.reply, r.enhanced].filter(Boolean).join(" "));
    lines.push(row("Refused", [paint.red(`${code} at ${r.phase}: ${printable(r.text)}`)]));
  } else {
    const why = {
      max: "the --max bound was reached",
      time: "the --time-limit passed",
      interrupted: "stopped by a signal before a refusal",
    }[result.ended as "max" | "time" | "interrupted"];
    lines.push(row("Refused", [paint.green(`never: ${why}`)]));
  }
  if (result.freedSlotAccepted !== undefined) {
    lines.push(
      row("One closed", [
        result.freedSlotAccepted
          ? "a new connection was then accepted: a limit on concurrent connections"
          : "a new connection was refused again: not a concurrency limit (a connection rate, most likely)",
      ]),
    );
  }
  return `${lines.join("\n")}\n`;
}
