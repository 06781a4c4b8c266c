/**
 * Turning raw option text into checked values. Every failure is a UsageError that names the
 * option and the fix; the CLI prints its message as one line and exits 2.
 */

import { isIP } from "node:net";
import { UsageError } from "../usage/usage-error.js";
import { durationMs, windowRate } from "./units.js";

export type Target =
  | { readonly kind: "tcp"; readonly host: string; readonly port: number }
  | { readonly kind: "unix"; readonly path: string };

export const DEFAULT_SMTP_PORT = 25;

/**
 * `host:port`, `host` (port 25), `[v6addr]:port`, `[v6addr]`, a bare IPv6 address (port 25), or
 * `unix:/path`.
 */
export function parseTarget(option: string, text: string): Target {
  const fix = "give host:port, [ipv6]:port or unix:/path, e.g. 127.0.0.1:2525";
  if (text.startsWith("unix:")) {
    const path = text.slice(5);
    if (!path) throw new UsageError(option, `"${text}" has no socket path; ${fix}`);
    return { kind: "unix", path };
  }
  // `-l 10 MB` leaves the unit behind as the positional target; no SMTP host is named so.
  if (/^[kmg]i?b$/i.test(text)) {
    throw new UsageError(
      option,
      `"${text}" is a size unit, not a host; write a size without a space (-l 10MB)`,
    );
  }
  let host: string;
  let portText: string | undefined;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) throw new UsageError(option, `"${text}" lacks the closing "]"; ${fix}`);
    host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) {
      throw new UsageError(option, `"${text}" has text after "]"; ${fix}`);
    }
    portText = rest === "" ? undefined : rest.slice(1);
    if (isIP(host) !== 6) throw new UsageError(option, `"${host}" is not an IPv6 address; ${fix}`);
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    const colon = text.lastIndexOf(":");
    host = colon === -1 ? text : text.slice(0, colon);
    portText = colon === -1 ? undefined : text.slice(colon + 1);
  }
  if (!host || /[\s/]/.test(host)) throw new UsageError(option, `"${text}" has no host; ${fix}`);
  if (host.includes(":") && isIP(host) !== 6) {
    throw new UsageError(option, `"${text}" has more than one ":"; ${fix}`);
  }
  const port = portText === undefined ? DEFAULT_SMTP_PORT : parsePort(option, portText, fix);
  return { kind: "tcp", host, port };
}

function parsePort(option: string, text: string, fix: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(option, `port "${text}" is not a number; ${fix}`);
  const port = Number(text);
  if (port < 1 || port > 65535) {
    throw new UsageError(option, `port ${port} is out of range; use 1 to 65535`);
  }
  return port;
}

export function formatTarget(target: Target): string {
  if (target.kind === "unix") return `unix:${target.path}`;
  return target.host.includes(":")
    ? `[${target.host}]:${target.port}`
    : `${target.host}:${target.port}`;
}

/** A whole number within [min, max]; yargs hands numbers or strings, both are checked here. */
export function parseCount(option: string, raw: unknown, min: number, max = 1e12): number {
  const text = String(raw).trim();
  const value = typeof raw === "number" ? raw : Number(text);
  if (!/^-?\d+(\.\d+)?(e\d+)?$/i.test(text) || !Number.isInteger(value)) {
    throw new UsageError(option, `"${text}" is not a whole number; give e.g. ${option} ${min}`);
  }
  if (value < min || value > max) {
    const range = max >= 1e12 ? `at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(option, `${value} is out of range; give a whole number ${range}`);
  }
  return value;
}

/**
 * A duration in milliseconds: `250ms`, `1.5s`, `2m`, `1h`, or several as k6 and Go write them
 * (`1m30s`, `1h5m`); a bare number is seconds, as in Postfix smtp-source's -w.
 */
export function parseDuration(option: string, raw: unknown): number {
  const text = String(raw).trim();
  const ms = durationMs(text);
  if (ms === null) {
    throw new UsageError(option, `"${text}" is not a duration; give e.g. 500ms, 10s, 2m or 1m30s`);
  }
  return ms;
}

const RATE_UNITS: Record<string, number> = { s: 1, m: 1 / 60, h: 1 / 3600 };

/** `2000`, `2000/s`, `120/m`, `10/h`, or over any window (`100/1s`, `30/10s`) → per second. */
export function parseRate(option: string, raw: unknown): number {
  const text = String(raw).trim();
  const match = /^(\d+(?:\.\d+)?)(?:\/(s|m|h))?$/.exec(text);
  if (match) return Number(match[1]) * RATE_UNITS[match[2] ?? "s"];
  const windowed = /^(\d+(?:\.\d+)?)\/(.+)$/.exec(text);
  const windowMs = windowed ? durationMs(windowed[2]) : null;
  if (!windowed || windowMs === null || windowMs <= 0) {
    throw new UsageError(
      option,
      `"${text}" is not a rate; give e.g. 2000, 2000/s, 120/m or 30/10s`,
    );
  }
  return (Number(windowed[1]) * 1000) / windowMs;
}

/** A limit counted over a sliding window, as the sink enforces it. */
export interface WindowRate {
  readonly count: number;
  readonly windowMs: number;
}

/**
 * A gateway's rate limit: `30/60s`, `30/1m`, `30/m` (one minute), or `30` (per 60 s, as
 * Postfix's anvil counts by default).
 */
export function parseWindowRate(option: string, raw: unknown): WindowRate {
  const text = String(raw).trim();
  const rate = windowRate(text);
  if (!rate) throw new UsageError(option, `"${text}" is not a rate; give N/60s, e.g. 30/60s`);
  if (rate.count <= 0 || rate.windowMs <= 0) {
    throw new UsageError(option, "the count and the window must be above 0");
  }
  return Object.freeze(rate);
}

export function parseChoice<T extends string>(
  option: string,
  raw: unknown,
  choices: readonly T[],
): T {
  const text = String(raw);
  if ((choices as readonly string[]).includes(text)) return text as T;
  throw new UsageError(option, `"${text}" is not one of ${choices.join(", ")}`);
}

/**
 * An address for MAIL FROM / RCPT TO: local@domain without angle brackets, spaces or line
 * breaks, or `postmaster`, which RFC 5321 §4.1.1.3 lets stand without a domain. A word without
 * an @ is another tool's option value (ab's `-t 30`, a time limit), not a mailbox.
 */
export function parseAddress(option: string, raw: unknown, allowEmpty = false): string {
  const text = String(raw);
  if (text === "" && allowEmpty) return text;
  const mailbox = /^[^\s<>@]+@[^\s<>@]+$/.test(text) || text.toLowerCase() === "postmaster";
  if (!mailbox) {
    // ab and HTTP tools take -t as a time limit; here -t is the recipient.
    const timeLimit = option === "--to" && /^\d+$/.test(text) ? "; a time limit is -d 30s" : "";
    throw new UsageError(
      option,
      `"${text}" is not a mail address (local@domain); give e.g. user@example.com${timeLimit}`,
    );
  }
  return text;
}

/** Text that goes on one header or command line: no CR or LF. */
export function parseLine(option: string, raw: unknown): string {
  const text = String(raw);
  if (/[\r\n]/.test(text)) throw new UsageError(option, "must be one line (no line breaks)");
  return text;
}
