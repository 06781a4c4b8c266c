/**
 * Every phase's timeout is a counted outcome of that phase: for each phase a scripted server
 * (or, for connect, a listener that never accepts) stalls the session there, and a short
 * timeout of that phase ends it as a `timeout` error of that phase. Outcomes only: no elapsed
 * time is asserted.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import type { Result } from "../src/result/result.js";
import { PHASE_NAMES, type Phase } from "../src/smtp/phases.js";
import { errorCount, runClient } from "./helpers/run-client.js";
import { type Script, withServer } from "./helpers/scripted-server.js";
import { startStalledListener } from "./helpers/stalled-listener.js";

const target = (server: { port: number }) => `127.0.0.1:${server.port}`;

/** The error rows of a result as "reply/phase", for assertion messages. */
const rows = (result: Result) => JSON.stringify(result.errors.map((e) => `${e.reply}/${e.phase}`));

/** Answers nothing at all once `flag` is set in the session's state. */
function silentAfter(flag: string, onCommand?: Script["onCommand"]): Script["onCommand"] {
  return (line, session) => {
    if (session.state[flag]) return null;
    return onCommand?.(line, session);
  };
}

describe("HELO after EHLO's 5xx has its own timeout (the HELO timeout bug)", () => {
  test("a HELO reply that takes 300 ms, default timeouts: every message accepted", async () => {
    // Before the fix the sweep looked up timeouts.helo, got undefined and failed the session
    // with "no reply within undefined ms" as soon as a HELO reply was pending at a sweep.
    const script: Script = {
      onCommand: (line) => {
        if (line.startsWith("EHLO")) return "502 5.5.2 Error: command not recognized";
        if (line.startsWith("HELO")) return { reply: "250 scripted", delayMs: 300 };
        return undefined;
      },
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), { sessions: 1, messages: 2 });
      assert.equal(result.messages.accepted, 2, rows(result));
      assert.equal(errorCount(result, "timeout"), 0, rows(result));
      assert.ok(server.connections[0].commands.some((l) => l.startsWith("HELO")));
    });
  });

  test("a HELO that is never answered: a timeout of phase helo", async () => {
    const script: Script = {
      onCommand: (line) => {
        if (line.startsWith("EHLO")) return "502 5.5.2 Error: command not recognized";
        if (line.startsWith("HELO")) return null;
        return undefined;
      },
    };
    await withServer(script, async (server) => {
      const result = await stalled(server, "helo");
      assert.equal(result.messages.failed, 2, rows(result));
      assert.equal(errorCount(result, "timeout", "helo"), 2, rows(result));
    });
  });
});

/** Two messages, a connection each, with a 200 ms timeout for `phase` (others default). */
function stalled(server: { port: number }, phase: Phase, options: RawRunOptions = {}) {
  return runClient(target(server), {
    sessions: 1,
    messages: 2,
    mode: "per-message",
    timeout: { [phase]: "200ms" },
    ...options,
  });
}

/**
 * The handshake phases: the session never reaches a transaction, so each message fails; the
 * failure is one timeout row of the phase per connection.
 */
const handshakeStalls: [Phase, Script, RawRunOptions][] = [
  ["banner", { banner: null }, {}],
  ["ehlo", { onCommand: stallAt("EHLO") }, {}],
  [
    "starttls",
    { capabilities: ["PIPELINING", "STARTTLS"], onCommand: stallAt("STARTTLS") },
    { starttls: true },
  ],
  [
    // STARTTLS is answered, then the server says nothing: the client's handshake waits.
    "tls",
    {
      capabilities: ["PIPELINING", "STARTTLS"],
      onCommand: silentAfter("tls", (line, session) => {
        if (line !== "STARTTLS") return undefined;
        session.state.tls = true;
        return "220 2.0.0 Ready to start TLS";
      }),
    },
    { starttls: true },
  ],
  [
    "auth",
    { capabilities: ["PIPELINING", "AUTH PLAIN LOGIN"], onCommand: stallAt("AUTH") },
    { auth: "alice:s3cret" },
  ],
];

/**
 * A server that stops answering at the first command `starts` matches: that reply and every
 * later one never come (replies to pipelined commands come in order, RFC 2920 §3.1).
 */
function stallAt(starts: string): Script["onCommand"] {
  return silentAfter("stalled", (line, session) => {
    if (!line.startsWith(starts)) return undefined;
    session.state.stalled = true;
    return null;
  });
}

/**
 * The transaction phases: each message fails in the phase, one timeout row per message; a
 * message whose data was sent whole (the dot's, BDAT's) is unconfirmed instead of failed.
 */
const transactionStalls: [Phase, Script, RawRunOptions][] = [
  ["mail", { onCommand: stallAt("MAIL") }, {}],
  ["rcpt", { onCommand: stallAt("RCPT") }, {}],
  ["data", { onCommand: stallAt("DATA") }, {}],
  [
    "dot",
    {
      onCommand: silentAfter("stalled"),
      onMessage: (_content, session) => {
        session.state.stalled = true;
        return null;
      },
    },
    {},
  ],
  // BDAT's chunk is not a command; from BDAT on, nothing is answered.
  [
    "bdat",
    { capabilities: ["PIPELINING", "CHUNKING"], onCommand: stallAt("BDAT") },
    { chunking: true },
  ],
];

describe("every phase's timeout is a counted outcome of that phase", () => {
  for (const [phase, script, options] of [...handshakeStalls, ...transactionStalls]) {
    test(`${phase}: a server that stalls there`, async () => {
      await withServer(script, async (server) => {
        const result = await stalled(server, phase, options);
        assert.equal(result.messages.attempted, 2, rows(result));
        const sentWhole = phase === "dot" || phase === "bdat";
        const m = result.messages;
        assert.deepEqual([m.failed, m.unconfirmed], sentWhole ? [0, 2] : [2, 0], rows(result));
        assert.equal(errorCount(result, "timeout", phase), 2, rows(result));
        assert.equal(errorCount(result, "timeout"), 2, rows(result));
      });
    });
  }

  test("rset: the RSET owed after a refused recipient is never answered", async () => {
    // Lock-step (no PIPELINING): the first message's only RCPT is refused after its MAIL was
    // taken, so the next message starts with RSET (a transaction is open; after a refused MAIL
    // none is, and no RSET is sent: issue 15), which gets no reply; the session fails there and
    // the message is sent again on a new connection, where no RSET is owed.
    const script: Script = {
      capabilities: ["8BITMIME"],
      onCommand: (line, session) => {
        if (line === "RSET") return null;
        if (line.startsWith("RCPT") && session.index === 0 && !session.state.refused) {
          session.state.refused = true;
          return "550 5.1.1 not this one";
        }
        return undefined;
      },
    };
    await withServer(script, async (server) => {
      const result = await runClient(target(server), {
        sessions: 1,
        messages: 2,
        timeout: { rset: "200ms" },
      });
      assert.equal(result.messages.rejected, 1, rows(result));
      assert.equal(result.messages.accepted, 1, rows(result));
      assert.equal(errorCount(result, "timeout", "rset"), 1, rows(result));
      assert.equal(errorCount(result, "timeout"), 1, rows(result));
      assert.ok(server.connections[0].commands.includes("RSET"));
    });
  });

  test("quit: the message is accepted, the unanswered QUIT is a timeout of phase quit", async () => {
    const script: Script = { onCommand: stallAt("QUIT") };
    await withServer(script, async (server) => {
      const result = await stalled(server, "quit");
      assert.equal(result.messages.accepted, 2, rows(result));
      assert.equal(errorCount(result, "timeout", "quit"), 2, rows(result));
      assert.equal(errorCount(result, "timeout"), 2, rows(result));
    });
  });

  test("connect: a listener whose accept queue is full never completes the handshake", async () => {
    const listener = await startStalledListener();
    try {
      // Two sessions connect at once: a thread that never got a connection through gives up
      // at its first connect timeout, so one session would leave the second message unsent.
      const result = await stalled(listener, "connect", { sessions: 2 });
      assert.equal(result.messages.failed, 2, rows(result));
      assert.equal(errorCount(result, "timeout", "connect"), 2, rows(result));
      assert.equal(errorCount(result, "timeout"), 2, rows(result));
    } finally {
      await listener.stop();
    }
  });

  test("the tests above cover every phase", () => {
    const covered = new Set<Phase>([
      "connect",
      "helo",
      "rset",
      "quit",
      ...[...handshakeStalls, ...transactionStalls].map(([phase]) => phase),
    ]);
    assert.deepEqual(
      PHASE_NAMES.filter((phase) => !covered.has(phase)),
      [],
    );
  });
});
