/**
 * Fault injection: per command, answer 4xx/5xx, 421-and-close, close without a reply, delay the
 * reply, or abort during DATA; always, every Nth time or with a probability. Rules come parsed
 * (config/fault-rules.ts reads `--fault`'s grammar) and their replies are built once; the hot
 * path asks `pick` only for commands that have rules.
 */
import { formatReply } from "../smtp/reply-format.js";

const DIGIT_2 = 50;

export const FAULT_COMMANDS = [
  "connect",
  "ehlo",
  "mail",
  "rcpt",
  "data",
  "dot",
  "bdat",
  "rset",
  "quit",
  "noop",
  "auth",
  "starttls",
] as const;
export type FaultCommand = (typeof FAULT_COMMANDS)[number];

export const F_CONNECT = 0;
export const F_EHLO = 1;
export const F_MAIL = 2;
export const F_RCPT = 3;
export const F_DATA = 4;
export const F_DOT = 5;
export const F_BDAT = 6;
export const F_RSET = 7;
export const F_QUIT = 8;
export const F_NOOP = 9;
export const F_AUTH = 10;
export const F_STARTTLS = 11;

export interface FaultRule {
  command: FaultCommand;
  /** reply: answer `code`; close: close without a reply; ok: the normal reply (with a delay);
   * abort: close the connection during DATA after `afterBytes` octets of content. */
  action: "reply" | "close" | "ok" | "abort";
  code?: number;
  /** Reply text after the code; the enhanced code, if wanted, is part of it. */
  text?: string;
  /** Fire on every Nth occurrence of the command (1 = always). */
  every?: number;
  /** Fire with this probability (0..1), drawn from the seeded PRNG. */
  probability?: number;
  /** Delay before the reply: fixed, or uniform in [delayMs, delayMaxMs]. */
  delayMs?: number;
  delayMaxMs?: number;
  afterBytes?: number;
}

/** A rule ready for the hot path. */
export interface CompiledFault {
  readonly rule: FaultRule;
  /** The reply to send instead of the normal one, or null (close, ok, abort). */
  readonly reply: Buffer | null;
  /** Close the connection after the reply (421) or instead of it (close). */
  readonly close: boolean;
  seen: number;
}

/** The longest a rule among `rules` holds a reply (its delay's upper end), ms; 0 without delays. */
export function longestDelayMs(rules: readonly FaultRule[]): number {
  let longest = 0;
  for (const { delayMs = 0, delayMaxMs = 0 } of rules) {
    longest = Math.max(longest, delayMs, delayMaxMs);
  }
  return longest;
}

/** mulberry32: small, fast and seedable; faults need repeatability, not cryptography. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  /** Rules per FAULT_COMMANDS index; null where a command has none (the common case). */
  readonly byCommand: (CompiledFault[] | null)[];
  private readonly random: () => number;

  constructor(rules: readonly FaultRule[], seed: number, enhanced: boolean) {
    this.random = seededRandom(seed);
    this.byCommand = FAULT_COMMANDS.map(() => null);
    for (const rule of rules) {
      const index = FAULT_COMMANDS.indexOf(rule.command);
      const list = this.byCommand[index] ?? [];
      list.push(compile(rule, enhanced));
      this.byCommand[index] = list;
    }
  }

  /** The first rule for command `index` that fires this time, or null. */
  pick(index: number): CompiledFault | null {
    const list = this.byCommand[index];
    if (list === null) return null;
    for (const fault of list) {
      fault.seen++;
      const rule = fault.rule;
      if (rule.every !== undefined && fault.seen % rule.every !== 0) continue;
      if (rule.probability !== undefined && this.random() >= rule.probability) continue;
      return fault;
    }
    return null;
  }

  /** Milliseconds to wait before the reply of `fault`. */
  delay(fault: CompiledFault): number {
    const { delayMs = 0, delayMaxMs } = fault.rule;
    if (delayMaxMs === undefined || delayMaxMs <= delayMs) return delayMs;
    return delayMs + this.random() * (delayMaxMs - delayMs);
  }
}

/** What a firing fault may do to a session: delay its replies, answer, close, abort content. */
export interface FaultTarget {
  readonly ctx: { readonly faults: FaultInjector };
  /** Queues a reply for the end of this read chunk. */
  reply(buf: Buffer): void;
  /** Sends what is queued, then closes. */
  closeAfterReplies(): void;
  /** Flushes replies held so far; the next ones (and reading) wait `ms`. */
  hold(ms: number): void;
  /** Destroys the connection once this much of the coming message content has arrived. */
  abortAfter(octets: number): void;
}

/**
 * Applies the fault rule for command `index` if one fires. Returns the fault when it replaced
 * the normal reply (its reply is queued, or the connection is closing); null when the command
 * goes on normally (perhaps with a delay or a DATA abort armed).
 */
export function applyFault(s: FaultTarget, index: number): CompiledFault | null {
  const faults = s.ctx.faults;
  if (faults.byCommand[index] === null) return null;
  const fault = faults.pick(index);
  if (fault === null) return null;
  const delay = faults.delay(fault);
  if (delay > 0) s.hold(delay);
  const action = fault.rule.action;
  if (action === "ok") return null;
  if (action === "abort") {
    s.abortAfter(fault.rule.afterBytes ?? 0);
    return null;
  }
  if (fault.reply !== null) s.reply(fault.reply);
  if (fault.close) s.closeAfterReplies();
  return fault;
}

/** True when the fault's reply is 2xx (a fault may answer "250 …" with custom text). */
export function isPositive(fault: CompiledFault): boolean {
  return fault.reply !== null && fault.reply[0] === DIGIT_2;
}

function compile(rule: FaultRule, enhanced: boolean): CompiledFault {
  let reply: Buffer | null = null;
  if (rule.action === "reply") {
    const code = rule.code ?? 451;
    reply =
      rule.text !== undefined
        ? Buffer.from(`${code} ${rule.text}\r\n`, "utf8")
        : formatReply(code, defaultEnhanced(code), defaultText(code), enhanced);
  }
  return {
    rule,
    reply,
    close: rule.action === "close" || rule.code === 421,
    seen: 0,
  };
}

function defaultEnhanced(code: number): string {
  if (code < 300) return "2.0.0";
  return code < 500 ? "4.3.0" : "5.3.0";
}

function defaultText(code: number): string {
  if (code === 421) return "Error: injected fault, closing connection";
  if (code < 300) return "Ok: injected reply";
  return code < 500 ? "Error: injected temporary failure" : "Error: injected permanent failure";
}
