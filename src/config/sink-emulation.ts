/**
 * The built-in sink playing a gateway under limits in a self-test (`--sink-max-…`), checked
 * here with the other options, before any run starts.
 */
import type { SINK_EMULATION_OPTIONS } from "./option-table.js";
import type { RawOf } from "./options.js";
import { parseCount, parseWindowRate, type WindowRate } from "./parse.js";

export type RawSinkEmulation = RawOf<typeof SINK_EMULATION_OPTIONS>;

/** Limits in the shape the sink's options take them; absent: no limit. */
export interface SinkEmulation {
  /** Sessions held at once; more get 421 4.7.0 at the banner. */
  readonly maxConnections?: number;
  /** New connections per client per window; more get 421 at the banner. */
  readonly maxConnectionRate?: WindowRate;
  /** MAIL commands per client per window; more get 450 4.7.1. */
  readonly maxMessageRate?: WindowRate;
}

export function buildSinkEmulation(raw: RawSinkEmulation): SinkEmulation {
  const sink: {
    maxConnections?: number;
    maxConnectionRate?: WindowRate;
    maxMessageRate?: WindowRate;
  } = {};
  if (raw.sinkMaxConnections !== undefined) {
    sink.maxConnections = parseCount("--sink-max-connections", raw.sinkMaxConnections, 1);
  }
  if (raw.sinkMaxConnectionRate !== undefined) {
    sink.maxConnectionRate = parseWindowRate(
      "--sink-max-connection-rate",
      raw.sinkMaxConnectionRate,
    );
  }
  if (raw.sinkMaxMessageRate !== undefined) {
    sink.maxMessageRate = parseWindowRate("--sink-max-message-rate", raw.sinkMaxMessageRate);
  }
  return Object.freeze(sink);
}
