/**
 * `mailvolley probe`: finds where a gateway starts refusing one client, one limit at a time.
 *
 *   concurrency      connections opened one by one and held open after EHLO, until one is
 *                    refused; then one held connection is closed and another tried, which
 *                    tells a concurrent-connection limit (it is accepted) from a rate limit.
 *   connection-rate  connections opened one after another (banner, QUIT), until one is refused.
 *   message-rate     messages sent in one session, lock-step, until one is refused.
 *
 * Every probe stops at the first refusal, at `max` steps, or at `timeLimitMs`, whichever
 * comes first, and closes what it opened.
 */
import { ProbeConnection, type ProbeReply } from "../client/probe-connection.js";
import { authLoginAnswer, authPlainLine, chooseMechanism } from "../client/secure.js";
import { formatTarget } from "../config/parse.js";
import type { ProbeConfig } from "../config/probe-config.js";
import {
  PROBE_SCHEMA,
  type ProbeKind,
  type ProbeResult,
  type Refusal,
} from "../result/probe-result.js";
import type { Phase } from "../result/result.js";
import { parseCapabilities } from "../smtp/capabilities.js";
import { END_OF_DATA, generateBody, HeaderTemplate } from "../smtp/message.js";

/** The reply of a wait a signal ended (ProbeConnection.interrupt): never a refusal. */
const INTERRUPTED = "interrupted";

/** A gateway is told of a closed connection asynchronously (Postfix: smtpd → anvil). */
const SETTLE_MS = 200;

/**
 * Stopping a probe from outside (a signal). `drain`: no further step; a wait for a reply ends
 * now (the reply "interrupted", no refusal), and every connection that saw its banner gets its
 * QUIT. `stop`: every connection is closed at once, without QUIT.
 */
export class ProbeStop {
  draining = false;
  cut = false;
  private readonly open = new Set<ProbeConnection>();

  drain(): void {
    this.draining = true;
    for (const connection of this.open) connection.interrupt();
  }

  stop(): void {
    this.draining = true;
    this.cut = true;
    for (const connection of this.open) connection.close();
    this.open.clear();
  }

  /** Opens a connection that a hard stop can close. */
  connect(config: ProbeConfig): ReturnType<typeof ProbeConnection.open> {
    return ProbeConnection.open(config, config.replyTimeoutMs, (connection) => {
      if (this.cut) connection.close();
      else this.open.add(connection);
    });
  }
}

export async function runProbe(
  config: ProbeConfig,
  stop: ProbeStop = new ProbeStop(),
): Promise<ProbeResult> {
  const started = performance.now();
  const deadline = started + config.timeLimitMs;
  const going = () => !stop.draining && performance.now() < deadline;
  const outcome = await PROBES[config.kind](config, { going, stop });
  return {
    schema: PROBE_SCHEMA,
    probe: config.kind,
    target: formatTarget(config.target),
    allowed: outcome.allowed,
    seconds: Math.round(outcome.atMs - started) / 1000,
    refusal: outcome.refusal,
    ended: outcome.refusal
      ? outcome.refusal.reply === "local-limit"
        ? "local"
        : "refused"
      : stop.draining
        ? "interrupted"
        : outcome.allowed >= config.max
          ? "max"
          : "time",
    ...(outcome.freedSlotAccepted === undefined
      ? {}
      : { freedSlotAccepted: outcome.freedSlotAccepted }),
  };
}

/** A refusing reply without its other lines, and the phase it answered. */
function refusal({ lines: _lines, ...reply }: ProbeReply, phase: Phase): Refusal {
  return { ...reply, phase };
}

interface Outcome {
  allowed: number;
  /** performance.now() of the refusal, or of the last step. */
  atMs: number;
  refusal: Refusal | null;
  freedSlotAccepted?: boolean;
}

/** `going`: false once the time limit passed or a signal asked to stop; `stop` opens. */
type Probe = (
  config: ProbeConfig,
  run: { going: () => boolean; stop: ProbeStop },
) => Promise<Outcome>;

/**
 * Opens a connection and greets as `run` does: EHLO (HELO after a 5xx), then with the run's
 * options STARTTLS and EHLO again, then AUTH. The refusal, with its phase, if any step fails.
 */
async function greet(
  config: ProbeConfig,
  stop: ProbeStop,
): Promise<{ connection: ProbeConnection; refusal: Refusal | null }> {
  const { connection, banner, phase } = await stop.connect(config);
  const refused = (reply: ProbeReply, phase: Phase) => {
    if (reply.reply !== INTERRUPTED) connection.close(); // an interrupted one gets its QUIT
    return { connection, refusal: refusal(reply, phase) };
  };
  if (banner.code !== 220) return refused(banner, phase);
  let hello = await hail(connection, config);
  if (hello.code !== 250) return refused(hello, hello.phase);
  if (config.tls === "starttls") {
    // As run does: a server that does not offer STARTTLS is not sent it (RFC 3207 §4).
    if (!parseCapabilities(hello.lines).starttls) {
      const text = "STARTTLS not offered by the server";
      return refused({ code: 0, reply: "unsupported", enhanced: "", text, lines: [] }, "starttls");
    }
    const started = await connection.startTls(config);
    if (started.code !== 220) {
      // A reply (or none) to STARTTLS is phase starttls; a failed handshake after its 220, tls.
      return refused(started, started.reply === "tls" ? "tls" : "starttls");
    }
    hello = await hail(connection, config);
    if (hello.code !== 250) return refused(hello, hello.phase);
  }
  if (config.auth) {
    const authed = await authenticate(connection, config, hello.lines);
    if (authed.code !== 235) return refused(authed, "auth");
  }
  return { connection, refusal: null };
}

/** EHLO, or HELO after a 5xx to it (RFC 5321 §4.1.1.1), as `run` does. */
async function hail(
  connection: ProbeConnection,
  config: ProbeConfig,
): Promise<ProbeReply & { phase: Phase }> {
  const ehlo = await connection.command(`EHLO ${config.helo}`);
  if (ehlo.code === 250 || ehlo.code < 500) return { ...ehlo, phase: "ehlo" };
  return { ...(await connection.command(`HELO ${config.helo}`)), phase: "helo" };
}

/** AUTH PLAIN (one round trip) or LOGIN (three), as offered; 235 when it worked. */
async function authenticate(
  connection: ProbeConnection,
  config: ProbeConfig,
  ehloLines: readonly string[],
): Promise<ProbeReply> {
  const auth = config.auth!;
  const mechanism = chooseMechanism(config, parseCapabilities(ehloLines));
  if (mechanism === null) {
    return {
      code: 0,
      reply: "unsupported",
      enhanced: "",
      text: "the server offers no AUTH mechanism that fits (PLAIN or LOGIN)",
      lines: [],
    };
  }
  if (mechanism === "PLAIN")
    return connection.send(Buffer.from(authPlainLine(auth.user, auth.pass)));
  const login = await connection.command("AUTH LOGIN");
  if (login.code !== 334) return login;
  const user = await connection.send(Buffer.from(authLoginAnswer(auth.user)));
  if (user.code !== 334) return user;
  return connection.send(Buffer.from(authLoginAnswer(auth.pass)));
}

const concurrency: Probe = async (config, { going, stop }) => {
  const held: ProbeConnection[] = [];
  let refusal: Outcome["refusal"] = null;
  let atMs = performance.now();
  try {
    while (held.length < config.max && going()) {
      const greeted = await greet(config, stop);
      atMs = performance.now();
      if (stop.cut) break;
      if (greeted.refusal?.reply === INTERRUPTED) {
        await greeted.connection.quit();
        break;
      }
      if (greeted.refusal) {
        refusal = greeted.refusal;
        break;
      }
      held.push(greeted.connection);
    }
    const allowed = held.length;
    if (!refusal || allowed === 0 || refusal.reply === "local-limit" || stop.draining) {
      return { allowed, atMs, refusal };
    }
    await held.pop()?.quit();
    await sleep(SETTLE_MS);
    if (stop.draining) return { allowed, atMs, refusal }; // no new connection after a signal
    const retry = await greet(config, stop);
    if (!retry.refusal || retry.refusal.reply === INTERRUPTED) await retry.connection.quit();
    if (stop.draining) return { allowed, atMs, refusal }; // the retry did not finish
    return { allowed, atMs, refusal, freedSlotAccepted: retry.refusal === null };
  } finally {
    await Promise.all(held.map((c) => c.quit()));
  }
};

const connectionRate: Probe = async (config, { going, stop }) => {
  let allowed = 0;
  let atMs = performance.now();
  while (allowed < config.max && going()) {
    const { connection, banner, phase } = await stop.connect(config);
    atMs = performance.now();
    if (stop.cut || banner.reply === INTERRUPTED) {
      connection.close(); // no banner yet: nothing may be sent, not even QUIT
      break;
    }
    if (banner.code !== 220) {
      connection.close();
      return { allowed, atMs, refusal: refusal(banner, phase) };
    }
    await connection.quit();
    allowed++;
  }
  return { allowed, atMs, refusal: null };
};

const messageRate: Probe = async (config, { going, stop }) => {
  const greeted = await greet(config, stop);
  let atMs = performance.now();
  if (stop.cut) return { allowed: 0, atMs, refusal: null };
  if (greeted.refusal?.reply === INTERRUPTED) {
    await greeted.connection.quit();
    return { allowed: 0, atMs, refusal: null };
  }
  if (greeted.refusal) return { allowed: 0, atMs, refusal: greeted.refusal };
  const connection = greeted.connection;
  const header = new HeaderTemplate({
    from: config.from,
    to: config.to,
    subject: "mailvolley probe",
    runId: config.runId,
  });
  const body = Buffer.concat([generateBody(config.size), END_OF_DATA]);
  let allowed = 0;
  try {
    while (allowed < config.max && going()) {
      const steps: [Phase, () => Promise<ProbeReply>, (code: number) => boolean][] = [
        ["mail", () => connection.command(`MAIL FROM:<${config.from}>`), (c) => c === 250],
        ["rcpt", () => connection.command(`RCPT TO:<${config.to}>`), (c) => c === 250 || c === 251],
        ["data", () => connection.command("DATA"), (c) => c === 354],
        [
          "dot",
          () => connection.send(Buffer.concat([header.render(allowed, Date.now()), body])),
          (c) => c === 250,
        ],
      ];
      for (const [phase, step, ok] of steps) {
        const reply = await step();
        atMs = performance.now();
        if (stop.cut || reply.reply === INTERRUPTED) return { allowed, atMs, refusal: null };
        if (!ok(reply.code)) return { allowed, atMs, refusal: refusal(reply, phase) };
      }
      allowed++;
    }
    return { allowed, atMs, refusal: null };
  } finally {
    await connection.quit();
  }
};

const PROBES: Record<ProbeKind, Probe> = {
  concurrency,
  "connection-rate": connectionRate,
  "message-rate": messageRate,
};

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
