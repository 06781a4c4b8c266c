/**
 * Drives one client Session directly, with a host of the test's making: the states it enters,
 * the messages it is given (a list of takeMessage answers), and how it ended. For tests of the
 * session's own behaviour, below the run's slots, ramps and reconnects.
 */
import { NO_WORK, NOT_YET, Session, type SessionHost, State } from "../../src/client/session.js";
import { buildRunConfig, type RawRunOptions, type RunConfig } from "../../src/config/run-config.js";
import { MessageFactory } from "../../src/messages/factory.js";
import { MessageWire } from "../../src/messages/message-wire.js";
import { RunStats } from "../../src/stats/collector.js";

export { NO_WORK, NOT_YET, State };

export interface DrivenSession {
  readonly session: Session;
  readonly stats: RunStats;
  /** The states entered, by name, in order. */
  readonly states: string[];
  /** Resolves with `cleanly` when the session has ended. */
  readonly ended: Promise<boolean>;
}

/** What every test host of a session gives: the run's config, messages and stats, no trace. */
export function hostParts(config: RunConfig, wire: MessageWire, stats: RunStats) {
  return {
    config,
    stats,
    trace: null,
    intendedMs: Number.NaN,
    messagesFor: (slots: number) => new MessageFactory(wire, slots),
    classIndexOf: (seq: number) => wire.classOf(seq).index,
  };
}

/**
 * Opens one reuse-mode session to `target`. `takes` are takeMessage's answers in turn (then
 * NO_WORK); after a NOT_YET the session is resumed at once, as the run does when work arrives.
 * `onState` sees each state as it is entered (to act at a given point, e.g. a timeout).
 */
export async function driveSession(
  target: string,
  options: RawRunOptions,
  takes: number[],
  onState?: (state: State, session: Session) => void,
): Promise<DrivenSession> {
  const config = buildRunConfig({ target, ...options });
  const wire = await MessageWire.create(config);
  const stats = new RunStats();
  const states: string[] = [];
  const answers = [...takes];
  let end: (cleanly: boolean) => void = () => {};
  const ended = new Promise<boolean>((resolve) => {
    end = resolve;
  });
  const host: SessionHost = {
    ...hostParts(config, wire, stats),
    takeMessage: () => answers.shift() ?? NO_WORK,
    sessionIdle: (s) => setImmediate(() => (s as Session).resume()),
    sessionEnded: (_s, cleanly) => end(cleanly),
    stateEntered: (s, state) => {
      states.push(State[state]);
      onState?.(state, s as Session);
    },
  };
  const session = new Session(host, 0, -1, 0);
  return { session, stats, states, ended };
}
