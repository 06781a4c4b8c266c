/**
 * The SMTP phases: the one table of what a reply, a failure, a timeout or a latency is
 * attributed to. Everything that lists phases (the Phase type, per-phase timeouts and their
 * options, latency fields and histograms, thresholds) derives from this table.
 *
 * Default timeouts follow RFC 5321 §4.5.3.2 in spirit, shortened for a load test: a gateway that
 * takes longer than these under load is reported, not waited for.
 */

export interface PhaseSpec {
  /** Default timeout in milliseconds: reaching it is a counted outcome of the phase. */
  readonly timeoutMs: number;
  /**
   * The latency the phase is measured into: the Result's `latency.<name>Ms` and the histogram
   * `<name>`; null when no latency covers it. Phases may share one: MAIL, RCPT and DATA are
   * the envelope, the final dot and BDAT … LAST the data, HELO (after EHLO's 5xx) is ehlo.
   */
  readonly latency: string | null;
  /** What the phase covers, for --help and docs/reference.md. */
  readonly covers: string;
}

/** In the order a session goes through them; the latencies are reported in this order too. */
export const PHASES = {
  connect: { timeoutMs: 10_000, latency: "connect", covers: "TCP connect" },
  banner: { timeoutMs: 30_000, latency: "banner", covers: "the 220 banner" },
  ehlo: { timeoutMs: 30_000, latency: "ehlo", covers: "EHLO (LHLO) to its reply" },
  helo: { timeoutMs: 30_000, latency: "ehlo", covers: "HELO, after a 5xx to EHLO, to its reply" },
  // The tls latency starts at STARTTLS's 220: the STARTTLS round trip itself is in none.
  starttls: { timeoutMs: 30_000, latency: null, covers: "STARTTLS to its 220" },
  tls: { timeoutMs: 30_000, latency: "tls", covers: "the TLS handshake itself" },
  auth: { timeoutMs: 30_000, latency: "auth", covers: "AUTH to its final 235" },
  mail: { timeoutMs: 30_000, latency: "envelope", covers: "MAIL FROM to its reply" },
  rcpt: { timeoutMs: 30_000, latency: "envelope", covers: "RCPT TO to its reply" },
  data: { timeoutMs: 30_000, latency: "envelope", covers: "DATA to its 354" },
  dot: {
    timeoutMs: 60_000,
    latency: "data",
    covers: "the message content and its final dot to the reply",
  },
  bdat: { timeoutMs: 60_000, latency: "data", covers: "BDAT … LAST to its reply" },
  rset: { timeoutMs: 30_000, latency: null, covers: "RSET to its reply" },
  quit: { timeoutMs: 10_000, latency: "quit", covers: "QUIT to its 221" },
} as const satisfies Record<string, PhaseSpec>;

/** The SMTP phases a reply, a failure or a timeout is attributed to. */
export type Phase = keyof typeof PHASES;

/** Every phase has a timeout; the type says so where a timeout is looked up. */
export type TimedPhase = Phase;

export function isPhase(name: string): name is Phase {
  return Object.hasOwn(PHASES, name);
}

/** The phases in the table's order. */
export const PHASE_NAMES: readonly Phase[] = Object.freeze(Object.keys(PHASES).filter(isPhase));

/**
 * An object with one entry per name, in the names' order. Object.fromEntries cannot type its
 * keys; this is the one place that says they are exactly `names`.
 */
export function recordOf<K extends string, V>(
  names: readonly K[],
  value: (name: K) => V,
): Record<K, V> {
  const out = {} as Record<K, V>;
  for (const name of names) out[name] = value(name);
  return out;
}

/** Per-phase timeouts in milliseconds; reaching one is a counted outcome of that phase. */
export type Timeouts = Readonly<Record<TimedPhase, number>>;

export const DEFAULT_TIMEOUTS: Timeouts = Object.freeze(
  recordOf(PHASE_NAMES, (phase) => PHASES[phase].timeoutMs),
);

/** A latency some phase is measured into (see PhaseSpec.latency). */
export type PhaseLatency = NonNullable<(typeof PHASES)[Phase]["latency"]>;

/**
 * Every latency the Result reports, as `latency.<name>Ms` and histogram `<name>`: a message's
 * transaction (which spans its phases), each phase's latency, and the whole session.
 */
export type Latency = "transaction" | PhaseLatency | "session";

/** The Result's field of a latency. */
export type LatencyField = `${Latency}Ms`;

/** The latencies in report order: the transaction, the phases' in session order, the session. */
export const LATENCIES: readonly Latency[] = Object.freeze([
  "transaction",
  ...new Set(
    PHASE_NAMES.map((phase) => PHASES[phase].latency).filter(
      (latency): latency is PhaseLatency => latency !== null,
    ),
  ),
  "session",
]);

export function isLatency(name: string): name is Latency {
  return LATENCIES.some((latency) => latency === name);
}

export function latencyField(latency: Latency): LatencyField {
  return `${latency}Ms`;
}

/**
 * An object with one entry per latency field, in the order of `latencies` (which must name each
 * latency once; report order by default).
 */
export function latencyRecord<V>(
  value: (latency: Latency) => V,
  latencies: readonly Latency[] = LATENCIES,
): Record<LatencyField, V> {
  const out = {} as Record<LatencyField, V>;
  for (const latency of latencies) out[latencyField(latency)] = value(latency);
  return out;
}
