/**
 * `--fault`'s grammar: a rule as the user writes it becomes the sink's FaultRule
 * (sink/faults.ts), which the sink takes parsed. Errors are plain messages; config/sink-config.ts
 * wraps them in a UsageError naming the option.
 */
import { FAULT_COMMANDS, type FaultCommand, type FaultRule } from "../sink/faults.js";
import { durationMs } from "./units.js";

/**
 * Parses `COMMAND:ACTION[:key=value…]`, e.g. `rcpt:450`, `rcpt:550:every=3`, `dot:451:p=0.1`,
 * `mail:ok:delay=200ms`, `dot:451:delay=3s`, `data:abort:after=1000`, `ehlo:421`, `connect:close`,
 * `dot:554:text=5.7.1 Spam detected` (text= takes the rest of the spec, colons included).
 */
export function parseFaultRule(spec: string): FaultRule {
  const textAt = spec.indexOf(":text=");
  const head = textAt === -1 ? spec : spec.slice(0, textAt);
  const parts = head.split(":");
  const command = parts[0].toLowerCase() as FaultCommand;
  if (!FAULT_COMMANDS.includes(command)) {
    throw new Error(`unknown command ${JSON.stringify(parts[0])}: use ${FAULT_COMMANDS.join(",")}`);
  }
  const rule: FaultRule = { command, action: "ok" };
  const action = (parts[1] ?? "").toLowerCase();
  if (/^[245]\d\d$/.test(action)) {
    rule.action = "reply";
    rule.code = Number(action);
  } else if (action === "close" || action === "ok" || action === "abort") {
    rule.action = action;
  } else {
    throw new Error(
      `unknown action ${JSON.stringify(parts[1] ?? "")}: use a code, close, ok, abort`,
    );
  }
  if (rule.action === "abort" && command !== "data") throw new Error("abort applies to data only");
  for (const kv of parts.slice(2)) applyParameter(rule, kv);
  if (textAt !== -1) rule.text = spec.slice(textAt + 6);
  return rule;
}

function applyParameter(rule: FaultRule, kv: string): void {
  const eq = kv.indexOf("=");
  const key = kv.slice(0, eq).toLowerCase();
  const value = kv.slice(eq + 1);
  const num = (text: string) => {
    const n = Number(text.replace(/ms$/, ""));
    if (!Number.isFinite(n) || n < 0) throw new Error(`${key}=${value}: not a number`);
    return n;
  };
  if (eq === -1) throw new Error(`${kv}: expected key=value`);
  if (key === "every") {
    // every=0 would never fire, or (as it was once read) always: neither is what it says.
    const every = num(value);
    if (!Number.isInteger(every) || every < 1) {
      throw new Error(`every=${value}: N must be a whole number from 1 (every=1: every time)`);
    }
    rule.every = every;
  } else if (key === "p") {
    rule.probability = num(value);
    if (rule.probability > 1) throw new Error(`p=${value}: a probability is 0..1`);
  } else if (key === "delay") {
    const [low, high] = value.split("-");
    rule.delayMs = delay(low, value);
    if (high !== undefined) rule.delayMaxMs = delay(high, value);
  } else if (key === "after") rule.afterBytes = Math.floor(num(value));
  else throw new Error(`unknown parameter ${key}: use every, p, delay, after, text`);
}

/**
 * A fault delay: `250ms`, `3s`, `1m`, or a bare number, which stays milliseconds as fault delays
 * have always been written (unlike the options' bare seconds).
 */
function delay(text: string, value: string): number {
  const ms = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : durationMs(text);
  if (ms === null || !Number.isFinite(ms)) {
    throw new Error(`delay=${value}: write a delay like 250ms or 3s (a range: 100ms-2s)`);
  }
  return ms;
}
