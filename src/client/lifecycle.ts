/**
 * Where a session is in its life: one named state instead of a set of flags. The phase a reply,
 * failure or timeout is counted under derives from it (Session.phase()).
 *
 *   Connecting → [Tls →] Banner → Greeting → [StartTls → Tls → Greeting →] [Auth →] Ready
 *   Ready ⇄ Idle; Ready → Quitting (QUIT after the work); Greeting, StartTls, Auth → Refusing
 *   (QUIT: the server refused what the run needs); any → Failed (a failure counted, the socket
 *   torn down); any → Stopped (the run cut it); any → Closed (the socket closed; every message
 *   settled).
 *
 * The order matters: states from Quitting on send nothing more, and from Failed on the
 * session's outcome is counted.
 */
export enum State {
  /** TCP connect under way (the connect phase). */
  Connecting = 0,
  /** A TLS handshake: implicit TLS before the banner, or after STARTTLS's 220 (RFC 3207). */
  Tls = 1,
  /** Connected, waiting for the 220 greeting; nothing is sent before it (RFC 5321 §3.1). */
  Banner = 2,
  /** EHLO (LHLO) sent, or HELO after a 5xx to EHLO. */
  Greeting = 3,
  /** STARTTLS sent, waiting for its 220. */
  StartTls = 4,
  /** The AUTH exchange (RFC 4954). */
  Auth = 5,
  /** Transactions: the session takes messages and sends them. */
  Ready = 6,
  /** Connection open, no message due (open model); `resume()` wakes it. */
  Idle = 7,
  /** QUIT sent after the session's work. */
  Quitting = 8,
  /** QUIT sent because the server refused EHLO and HELO, STARTTLS or AUTH: no work was possible. */
  Refusing = 9,
  /** A failure was counted and the socket destroyed; later bytes are moot. */
  Failed = 10,
  /**
   * The run cut the session itself (a hard stop): counted as a `stopped` failure, not as the
   * server closing it, and not as a refused connection. Later bytes are moot.
   */
  Stopped = 11,
  /** The socket closed and the session settled its messages and told the run. */
  Closed = 12,
}

/** How the session's transactions travel, decided by the EHLO reply and the run's options. */
export enum Dialogue {
  /** One command, one reply (no PIPELINING, or --pipelining off). */
  LockStep = 0,
  /** RFC 2920: envelope groups, and content with the next envelope. */
  Pipelined = 1,
  /** RFC 3030 with RFC 2920: whole BDAT transactions, a window at a time. */
  Chunked = 2,
}

/**
 * The session's lifecycle as its parts (handshake, pipeline) see it: where it is, the time the
 * reply being handled arrived, which connection this is, and the way out (QUIT).
 */
export interface Lifecycle {
  readonly state: State;
  enter(state: State): void;
  /** When the reply being handled arrived (or the step began): the time its step is counted to. */
  readonly phaseSince: number;
  /** This connection's ordinal in the run, for where an error first came. */
  readonly connection: number;
  /**
   * Sends QUIT and moves to `as` (Quitting; Refusing when no work was possible); `writtenAt`
   * (ms): it already went in the last content's write.
   */
  quit(as: State.Quitting | State.Refusing, writtenAt?: number): void;
}
