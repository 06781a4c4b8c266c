/**
 * A session's handshake, as a collaborator the session holds: the banner, EHLO (LHLO for LMTP;
 * HELO when EHLO is refused), STARTTLS with its TLS handshake timed as its own phase
 * (RFC 3207), and AUTH (RFC 4954), in that order, before the first transaction. It moves the
 * session through the handshake's states and hands over the capabilities when done.
 */

import type { TLSSocket } from "node:tls";
import type { ErrorRow } from "../result/result.js";
import { type Capabilities, capabilitiesOf, NO_CAPABILITIES } from "../smtp/capabilities.js";
import type { Phase } from "../smtp/phases.js";
import { NO_TIME, performance } from "../stats/clock.js";
import type { RunStats } from "../stats/collector.js";
import { Dialogue, type Lifecycle, State } from "./lifecycle.js";
import { Expect, PHASE_OF } from "./pending.js";
import type { SessionOptions } from "./run-interfaces.js";
import { authLoginAnswer, authPlainLine, chooseMechanism } from "./secure.js";
import { recordReply } from "./transactions.js";
import type { Wire } from "./wire.js";

const CRLF = "\r\n";
/** Sent on every connection over STARTTLS: its bytes made once. */
const STARTTLS_COMMAND = Buffer.from(`STARTTLS${CRLF}`, "latin1");
/** RFC 4954 §4: LOGIN without an initial response; the server asks for each part. */
const AUTH_LOGIN_COMMAND = Buffer.from(`AUTH LOGIN${CRLF}`, "latin1");

/** AUTH's lines for the run's one user (RFC 4954): the same on every connection. */
interface Credentials {
  readonly plain: Buffer;
  readonly user: Buffer;
  readonly pass: Buffer;
}

/** What the handshake asks of its session besides the wire: the lifecycle, and four steps. */
export interface HandshakeHost extends Lifecycle {
  /** STARTTLS's 220 came: drop what was read before it and start TLS over the socket. */
  startTls(): void;
  /** Ends the connection now; the reply that ended it is already counted, in `row`. */
  closeNow(row: ErrorRow): void;
  /** The handshake is done: transactions may start. */
  ready(caps: Capabilities, dialogue: Dialogue): void;
}

export class Handshake {
  private connectedAt = NO_TIME;
  private tlsStartedAt = NO_TIME;
  private ehloSentAt = NO_TIME;
  private authSentAt = NO_TIME;
  /** When the 220 banner came (performance.now()); 0 before it. */
  private bannerAt = NO_TIME;
  /** What EHLO offered, kept across the AUTH exchange. */
  private caps: Capabilities = NO_CAPABILITIES;
  /** EHLO (LHLO) and the name, built on the first connection: every one sends the same. */
  private greeting: Buffer | null = null;
  /** HELO and the name, built when a server first refuses EHLO. */
  private helo: Buffer | null = null;
  /** What AUTH sends (PLAIN's line, LOGIN's two answers), built on the first AUTH. */
  private credentials: Credentials | null = null;

  constructor(
    private readonly session: HandshakeHost,
    /** Where the handshake writes its commands and queues the replies they expect. */
    private readonly wire: Wire,
    private readonly config: SessionOptions,
    private readonly stats: RunStats,
  ) {}

  /** Back to the start, for the session's next connection. */
  clear(): void {
    this.connectedAt = NO_TIME;
    this.tlsStartedAt = NO_TIME;
    this.ehloSentAt = NO_TIME;
    this.authSentAt = NO_TIME;
    this.bannerAt = NO_TIME;
    this.caps = NO_CAPABILITIES;
  }

  /** Reached a 220 banner. */
  get established(): boolean {
    return this.bannerAt > 0;
  }

  /** The socket connected (TCP, or TCP before an implicit-TLS handshake). */
  connected(now: number): void {
    this.connectedAt = now;
    if (this.config.tls === "implicit") {
      this.tlsStartedAt = now; // the banner comes after the handshake
      this.session.enter(State.Tls);
      return;
    }
    // Nothing is sent before the banner: the client speaks once it has the 220 greeting
    // (RFC 5321 §3.1, §4.3.2).
    this.session.enter(State.Banner);
    this.wire.expect(Expect.Banner);
  }

  /** A TLS handshake finished: implicit TLS waits for the banner, STARTTLS says EHLO again. */
  secured(now: number, socket: TLSSocket): void {
    // Counted by kind: a resumed handshake skips the certificate and key exchange.
    const cipher = socket.getCipher();
    const version = socket.getProtocol() ?? cipher?.version ?? "unknown";
    const ms = now - this.tlsStartedAt;
    this.stats.tlsHandshake(socket.isSessionReused(), ms, version, cipher?.name ?? "unknown");
    if (this.config.tls === "implicit") {
      this.connectedAt = now;
      this.session.enter(State.Banner);
      this.wire.expect(Expect.Banner);
      return;
    }
    // RFC 3207 §4.2: forget what EHLO said before the handshake and ask again.
    this.greet(now);
  }

  /** A reply to a handshake step: the banner, EHLO/HELO, STARTTLS or AUTH. */
  onReply(kind: Expect, code: number, lines: string[] | null): void {
    switch (kind) {
      case Expect.Banner:
        this.onBanner(code, lines);
        return;
      case Expect.Ehlo:
      case Expect.Helo:
        this.onGreeting(kind, code, lines);
        return;
      default:
        this.onSecureStep(kind, code, lines);
    }
  }

  private greet(now: number): void {
    this.ehloSentAt = now;
    this.session.enter(State.Greeting);
    // RFC 2033 §4.1: LMTP greets with LHLO; its reply is read like EHLO's.
    const verb = this.config.lmtp ? "LHLO" : "EHLO";
    this.greeting ??= Buffer.from(`${verb} ${this.config.helo}${CRLF}`, "latin1");
    this.wire.send(this.greeting, Expect.Ehlo, 0);
  }

  private onBanner(code: number, lines: string[] | null): void {
    const now = this.session.phaseSince;
    this.stats.record("banner", now - this.connectedAt);
    if (code !== 220) {
      // 554 (or anything else) instead of 220: no service here (RFC 5321 §3.1).
      this.session.closeNow(
        recordReply(this.stats, code, lines, "banner", this.session.connection),
      );
      return;
    }
    this.bannerAt = now;
    this.stats.connectionEstablished();
    this.greet(now);
  }

  private onGreeting(kind: Expect, code: number, lines: string[] | null): void {
    if (code === 250) {
      this.stats.record("ehlo", this.session.phaseSince - this.ehloSentAt);
      const caps = kind === Expect.Ehlo && lines ? capabilitiesOf(lines) : NO_CAPABILITIES;
      this.secureOrStart(caps);
      return;
    }
    if (kind === Expect.Ehlo && code >= 500 && !this.config.lmtp) {
      // RFC 5321 §4.1.4: a server that does not know EHLO still knows HELO.
      this.helo ??= Buffer.from(`HELO ${this.config.helo}${CRLF}`, "latin1");
      this.wire.send(this.helo, Expect.Helo, 0);
      return;
    }
    recordReply(this.stats, code, lines, PHASE_OF[kind], this.session.connection);
    this.session.quit(State.Refusing);
  }

  /** After EHLO: STARTTLS, then AUTH, when the run asks for them; then the transactions. */
  private secureOrStart(caps: Capabilities): void {
    const { config, session, wire } = this;
    if (config.tls === "starttls" && !wire.encrypted) {
      if (!caps.starttls) {
        this.refuse("starttls", "STARTTLS not offered by the server");
        return;
      }
      session.enter(State.StartTls);
      wire.send(STARTTLS_COMMAND, Expect.StartTls, 0);
      return;
    }
    if (config.auth) {
      const mechanism = chooseMechanism(config, caps);
      if (!mechanism) {
        const offered = caps.auth.join(" ") || "none";
        this.refuse("auth", `no AUTH mechanism to use (offered: ${offered})`);
        return;
      }
      this.authSentAt = performance.now();
      session.enter(State.Auth);
      if (mechanism === "PLAIN") {
        wire.send(this.credentialsOf(config.auth).plain, Expect.Auth, 0, "AUTH PLAIN ****");
      } else {
        wire.send(AUTH_LOGIN_COMMAND, Expect.AuthUser, 0);
      }
      this.caps = caps;
      return;
    }
    this.ready(caps);
  }

  private ready(caps: Capabilities): void {
    // XVERP is Postfix's own MAIL parameter: a server that does not offer it answers 555.
    if (this.config.xverp && !caps.xverp) {
      this.refuse("mail", "XVERP not offered by the server");
      return;
    }
    const pipelined = caps.pipelining && this.config.pipelining === "auto";
    const chunked = pipelined && caps.chunking && this.config.chunking;
    const dialogue = chunked
      ? Dialogue.Chunked
      : pipelined
        ? Dialogue.Pipelined
        : Dialogue.LockStep;
    this.session.ready(caps, dialogue);
  }

  /** Replies to STARTTLS and to the AUTH exchange. */
  private onSecureStep(kind: Expect, code: number, lines: string[] | null): void {
    const { session } = this;
    if (code >= 400) {
      recordReply(this.stats, code, lines, PHASE_OF[kind], session.connection);
      session.quit(State.Refusing);
      return;
    }
    const auth = this.config.auth!;
    switch (kind) {
      case Expect.StartTls:
        this.tlsStartedAt = session.phaseSince;
        session.enter(State.Tls);
        session.startTls();
        return;
      case Expect.AuthUser:
        this.wire.send(this.credentialsOf(auth).user, Expect.AuthPassword, 0, "****");
        return;
      case Expect.AuthPassword:
        this.wire.send(this.credentialsOf(auth).pass, Expect.Auth, 0, "****");
        return;
      case Expect.Auth:
        this.stats.record("auth", session.phaseSince - this.authSentAt);
        this.ready(this.caps);
    }
  }

  private credentialsOf(auth: { user: string; pass: string }): Credentials {
    this.credentials ??= {
      plain: Buffer.from(authPlainLine(auth.user, auth.pass), "latin1"),
      user: Buffer.from(authLoginAnswer(auth.user), "latin1"),
      pass: Buffer.from(authLoginAnswer(auth.pass), "latin1"),
    };
    return this.credentials;
  }

  /** The server cannot give what the run requires: counted under `phase`, then QUIT. */
  private refuse(phase: Phase, text: string): void {
    this.stats.failure("unsupported", phase, text, 1, this.session.connection);
    this.session.quit(State.Refusing);
  }
}
