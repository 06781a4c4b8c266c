/**
 * The handshake layer of a session: the banner, EHLO (LHLO for LMTP; HELO when EHLO is
 * refused), STARTTLS with its TLS handshake timed as its own phase (RFC 3207), and AUTH
 * (RFC 4954), in that order, before the first transaction.
 */
import type tls from "node:tls";
import { NO_CAPABILITIES, parseCapabilities } from "../smtp/capabilities.js";
import type { Phase } from "../stats/result.js";
import { Expect, PHASE_OF } from "./pending.js";
import { authLoginAnswer, authPlainLine, chooseMechanism, upgradeToTls } from "./secure.js";
import { SessionBase } from "./session-base.js";
import { recordReply } from "./transactions.js";

const CRLF = "\r\n";

export abstract class HandshakeSession extends SessionBase {
  protected onConnect(): void {
    const now = performance.now();
    this.host.stats.record("connect", now - this.phaseSince);
    this.connecting = false;
    this.connectedAt = now;
    this.phaseSince = now;
    if (this.host.config.tls === "implicit") {
      this.handshaking = true; // the banner comes after the handshake
      this.tlsStartedAt = now;
      return;
    }
    // Nothing is sent before the banner: the client speaks once it has the 220 greeting
    // (RFC 5321 §3.1, §4.3.2).
    this.pending.push(Expect.Banner, 0);
  }

  /** The TLS handshake finished: implicit TLS waits for the banner, STARTTLS says EHLO again. */
  protected onSecure(): void {
    const now = performance.now();
    this.host.stats.record("tls", now - this.tlsStartedAt);
    this.handshaking = false;
    this.tlsDone = true;
    this.phaseSince = now;
    if (this.host.trace && this.id === 0) {
      const s = this.socket as tls.TLSSocket;
      this.host.trace(`= TLS ${s.getProtocol()} ${s.getCipher()?.name ?? ""}`);
    }
    if (this.host.config.tls === "implicit") {
      this.connectedAt = now;
      this.pending.push(Expect.Banner, 0);
      return;
    }
    // RFC 3207 §4.2: forget what EHLO said before the handshake and ask again.
    this.caps = NO_CAPABILITIES;
    this.greet(now);
  }

  protected greet(now: number): void {
    this.parser.captureText = true;
    this.ehloSentAt = now;
    // RFC 2033 §4.1: LMTP greets with LHLO; its reply is read like EHLO's.
    const verb = this.host.config.lmtp ? "LHLO" : "EHLO";
    this.command(`${verb} ${this.host.config.helo}${CRLF}`, Expect.Ehlo, 0);
  }

  protected onBanner(code: number, lines: string[] | null): void {
    const now = this.phaseSince;
    this.host.stats.record("banner", now - this.connectedAt);
    if (code !== 220) {
      // 554 (or anything else) instead of 220: no service here (RFC 5321 §3.1).
      this.closeNow(recordReply(this.host.stats, code, lines, "banner", this.connection));
      return;
    }
    this.established = true;
    this.host.stats.connectionEstablished();
    this.greet(now);
  }

  protected onGreeting(kind: Expect, code: number, lines: string[] | null): void {
    this.parser.captureText = this.host.trace !== null;
    if (code === 250) {
      this.host.stats.record("ehlo", this.phaseSince - this.ehloSentAt);
      this.caps = kind === Expect.Ehlo && lines ? parseCapabilities(lines) : NO_CAPABILITIES;
      this.pipelined = this.caps.pipelining && this.host.config.pipelining === "auto";
      this.chunked = this.pipelined && this.caps.chunking && this.host.config.chunking;
      this.secureOrStart();
      return;
    }
    if (kind === Expect.Ehlo && code >= 500 && !this.host.config.lmtp) {
      // RFC 5321 §4.1.4: a server that does not know EHLO still knows HELO.
      this.parser.captureText = true;
      this.command(`HELO ${this.host.config.helo}${CRLF}`, Expect.Helo, 0);
      return;
    }
    recordReply(this.host.stats, code, lines, PHASE_OF[kind], this.connection);
    this.greetingRefused = true;
    this.quit();
  }

  /** After EHLO: STARTTLS, then AUTH, when the run asks for them; then the transactions. */
  protected secureOrStart(): void {
    const { config } = this.host;
    if (config.tls === "starttls" && !this.tlsDone) {
      if (this.caps.starttls) this.command(`STARTTLS${CRLF}`, Expect.StartTls, 0);
      else this.refuse("starttls", "STARTTLS not offered by the server");
      return;
    }
    if (config.auth && !this.authDone) {
      const mechanism = chooseMechanism(config, this.caps);
      if (!mechanism) {
        const offered = this.caps.auth.join(" ") || "none";
        this.refuse("auth", `no AUTH mechanism to use (offered: ${offered})`);
        return;
      }
      this.authSentAt = performance.now();
      if (mechanism === "PLAIN") {
        this.command(
          authPlainLine(config.auth.user, config.auth.pass),
          Expect.Auth,
          0,
          "AUTH PLAIN ****",
        );
      } else {
        this.command(`AUTH LOGIN${CRLF}`, Expect.AuthUser, 0);
      }
      return;
    }
    // XVERP is Postfix's own MAIL parameter: a server that does not offer it answers 555.
    if (config.xverp && !this.caps.xverp) this.refuse("mail", "XVERP not offered by the server");
    else this.nextStep();
  }

  /** Replies to STARTTLS and to the AUTH exchange. */
  protected onSecureStep(kind: Expect, code: number, lines: string[] | null): void {
    if (code >= 400) {
      recordReply(this.host.stats, code, lines, PHASE_OF[kind], this.connection);
      this.greetingRefused = true;
      this.quit();
      return;
    }
    const auth = this.host.config.auth!;
    switch (kind) {
      case Expect.StartTls:
        // RFC 3207 §5: nothing the server sent before the handshake may be acted on.
        this.parser.reset();
        this.handshaking = true;
        this.tlsStartedAt = this.phaseSince;
        this.socket = upgradeToTls(this.socket, this.host.config, this.onBytes);
        this.socket.on("secureConnect", () => this.onSecure());
        this.socket.on("error", (err: NodeJS.ErrnoException) => this.onSocketError(err));
        this.socket.on("close", () => this.onClose());
        return;
      case Expect.AuthUser:
        this.command(authLoginAnswer(auth.user), Expect.AuthPassword, 0, "****");
        return;
      case Expect.AuthPassword:
        this.command(authLoginAnswer(auth.pass), Expect.Auth, 0, "****");
        return;
      case Expect.Auth:
        this.host.stats.record("auth", this.phaseSince - this.authSentAt);
        this.authDone = true;
        this.nextStep();
    }
  }

  /** The server cannot give what the run requires: counted under `phase`, then QUIT. */
  protected refuse(phase: Phase, text: string): void {
    this.host.stats.failure("unsupported", phase, text, 1, this.connection);
    this.greetingRefused = true;
    this.quit();
  }

  /** Starts the next transaction (or QUIT) once the handshake is done. */
  protected abstract nextStep(): void;
}
