/**
 * The SMTP phases: the one table of what a reply, a failure, a timeout or a latency is
 * attributed to. Everything that lists phases (the Phase type, per-phase timeouts and their
 * options, latency fields, thresholds) derives from this table.
 *
 * Default timeouts follow RFC 5321 §4.5.3.2 in spirit, shortened for a load test: a gateway that
 * takes longer than these under load is reported, not waited for.
 */

export interface PhaseSpec {
  /** Default timeout in milliseconds: reaching it is a counted outcome of the phase. */
  readonly timeoutMs: number;
  /** What the phase covers, for --help and the README. */
  readonly covers: string;
}

export const PHASES = {
  connect: { timeoutMs: 10_000, covers: "TCP connect" },
  banner: { timeoutMs: 30_000, covers: "the 220 banner" },
  ehlo: { timeoutMs: 30_000, covers: "EHLO (LHLO) to its reply" },
  helo: { timeoutMs: 30_000, covers: "HELO, after a 5xx to EHLO, to its reply" },
  mail: { timeoutMs: 30_000, covers: "MAIL FROM to its reply" },
  rcpt: { timeoutMs: 30_000, covers: "RCPT TO to its reply" },
  data: { timeoutMs: 30_000, covers: "DATA to its 354" },
  dot: { timeoutMs: 60_000, covers: "the message content and its final dot to the reply" },
  rset: { timeoutMs: 30_000, covers: "RSET to its reply" },
  quit: { timeoutMs: 10_000, covers: "QUIT to its 221" },
  starttls: { timeoutMs: 30_000, covers: "STARTTLS to its 220" },
  tls: { timeoutMs: 30_000, covers: "the TLS handshake itself" },
  auth: { timeoutMs: 30_000, covers: "AUTH to its final 235" },
  bdat: { timeoutMs: 60_000, covers: "BDAT … LAST to its reply" },
} as const satisfies Record<string, PhaseSpec>;

/** The SMTP phases a reply, a failure or a timeout is attributed to. */
export type Phase = keyof typeof PHASES;

/** Every phase has a timeout; the type says so where a timeout is looked up. */
export type TimedPhase = Phase;

export const PHASE_NAMES: readonly Phase[] = Object.freeze(Object.keys(PHASES) as Phase[]);

/** Per-phase timeouts in milliseconds; reaching one is a counted outcome of that phase. */
export type Timeouts = Readonly<Record<TimedPhase, number>>;

export const DEFAULT_TIMEOUTS: Timeouts = Object.freeze(
  Object.fromEntries(PHASE_NAMES.map((phase) => [phase, PHASES[phase].timeoutMs])) as Record<
    TimedPhase,
    number
  >,
);

export function isPhase(name: string): name is Phase {
  return Object.hasOwn(PHASES, name);
}
