/**
 * What a Result records of the run that made it (Result.run): the checked options, the load in
 * one line, the tool's version, the host and Node.js, so that a result file is enough to read
 * what was run and to run it again.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { grouped } from "../stats/number-format.js";
import { formatTarget } from "./parse.js";
import type { RunConfig } from "./run-config.js";
import type { StagePoint } from "./stages.js";

/** package.json's version, put here by the bundle's build (scripts/bundle.mjs); not in dist/src. */
declare const MAILVOLLEY_VERSION: string | undefined;

/** mailvolley's version from its package.json. */
export function toolVersion(): string {
  if (typeof MAILVOLLEY_VERSION === "string") return MAILVOLLEY_VERSION;
  const pkg = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}

/** Result.run: see its definition in result/result.ts. */
export function runRecord(config: RunConfig) {
  return {
    version: toolVersion(),
    node: process.version,
    host: hostname(),
    load: describeLoad(config),
    options: normalisedOptions(config),
  };
}

/**
 * The checked options as plain JSON: the target as written, Infinity as the string "Infinity",
 * the AUTH password replaced by "****".
 */
export function normalisedOptions(config: RunConfig): Record<string, unknown> {
  const options: Record<string, unknown> = {
    ...config,
    target: config.target === null ? null : formatTarget(config.target),
    auth: config.auth === null ? null : { ...config.auth, pass: "****" },
  };
  return JSON.parse(
    JSON.stringify(options, (_key, value) =>
      typeof value === "number" && !Number.isFinite(value) ? String(value) : value,
    ),
  ) as Record<string, unknown>;
}

/**
 * The load in one line: "constant arrival 2,000/s for 10 s, 20 sessions, 1 KiB",
 * "10,000 messages, 20 sessions, 1 KiB", "arrival ramp 0/s → 2,000/s over 60 s, …".
 */
export function describeLoad(config: RunConfig): string {
  const { load } = config;
  const parts: string[] = [];
  const seconds = (ms: number) => `${count(ms / 1000)} s`;
  if (load.rate) {
    const last = load.rate[load.rate.length - 1];
    const ramp = load.rate.some((s) => s.value !== load.rate?.[0].value);
    // A ramp that ends with the run says its length once.
    const until = ramp && last.atMs === load.durationMs ? "" : forDuration(config);
    const stages = describeStages(load.rate, "arrival", "/s");
    // "constant arrival 200/s" names the rate's shape; Poisson arrivals vary around it.
    const poisson = load.arrivals.kind === "poisson";
    parts.push(`${poisson ? stages.replace(/^constant /, "") : stages}${until}`);
    if (poisson) parts.push(`poisson (seed ${load.arrivals.seed})`);
  } else {
    const upTo = Number.isFinite(config.messages) ? `${count(config.messages)} messages` : "";
    const time = load.durationMs > 0 ? `for ${seconds(load.durationMs)}` : "";
    parts.push(`closed, ${[upTo, time].filter(Boolean).join(" or ") || "until stopped"}`);
  }
  if (load.rampSessions) parts.push(describeStages(load.rampSessions, "sessions", ""));
  parts.push(`${count(config.sessions)} session${config.sessions === 1 ? "" : "s"}`);
  if (load.rampUpMs > 0) parts.push(`ramp-up ${seconds(load.rampUpMs)}`);
  parts.push(describeSizes(config.sizes));
  if (config.classes.length > 1) parts.push(`${config.classes.length} classes`);
  return parts.join(", ");
}

/** " for 10 s", " or 10,000 messages", or both, after an arrival rate. */
function forDuration(config: RunConfig): string {
  const { durationMs } = config.load;
  const time = durationMs > 0 ? ` for ${count(durationMs / 1000)} s` : "";
  const upTo = Number.isFinite(config.messages) ? `${count(config.messages)} messages` : "";
  if (time && upTo) return `${time} or ${upTo}`;
  return time || (upTo ? `, ${upTo}` : "");
}

function describeStages(stages: readonly StagePoint[], what: string, unit: string): string {
  const values = stages.map((s) => s.value);
  if (values.every((v) => v === values[0])) return `constant ${what} ${count(values[0])}${unit}`;
  const last = stages[stages.length - 1];
  const steps = values.filter((v, i) => i === 0 || v !== values[i - 1]);
  const path = steps.map((v) => `${count(v)}${unit}`).join(" → ");
  return `${what} ramp ${path} over ${count(last.atMs / 1000)} s`;
}

function describeSizes(sizes: RunConfig["sizes"]): string {
  if (sizes.length === 1) return octets(sizes[0].size);
  const all = sizes.map((s) => s.size);
  return `${octets(Math.min(...all))}–${octets(Math.max(...all))} (${sizes.length} sizes)`;
}

/** "512 B", "1 KiB", "1.5 MiB". */
export function octets(n: number): string {
  if (n >= 1 << 20) return `${count(Math.round((n / (1 << 20)) * 10) / 10)} MiB`;
  if (n >= 1024) return `${count(Math.round((n / 1024) * 10) / 10)} KiB`;
  return `${n} B`;
}

function count(n: number): string {
  return grouped(n, 0, 1);
}
