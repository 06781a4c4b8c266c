/**
 * Session.reopen: the run's slot hands a closed session its next connection instead of building
 * a new Session (connection-per-message mode opens one per message). Each connection must start
 * as a new session would: its own ordinal, states, handshake, capabilities and settlement,
 * whatever the connection before it left behind.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { NO_WORK, Session, type SessionHost, State } from "../src/client/session.js";
import { buildRunConfig } from "../src/config/run-config.js";
import { MessageWire } from "../src/messages/message-wire.js";
import { RunStats } from "../src/stats/collector.js";
import { withServer } from "./helpers/scripted-server.js";
import { hostParts } from "./helpers/session-driver.js";

test("a reopened session starts each connection afresh: refused, lock-step, pipelined, failed", async () => {
  await withServer(
    {
      // Connection 0 is refused at the banner; 1 offers no PIPELINING; 2 offers it; 3 breaks
      // off in the data.
      banner: (s) => (s.index === 0 ? "554 5.3.2 no service" : "220 scripted ESMTP"),
      onCommand: (line, s) =>
        s.index === 1 && line.startsWith("EHLO") ? "250 scripted, nothing offered" : undefined,
      onDataChunk: (_chunk, s) => (s.index === 3 ? { close: true } : undefined),
    },
    async (server) => {
      const target = `${server.host}:${server.port}`;
      const config = buildRunConfig({ target, mode: "per-message", sessions: 1, messages: 4 });
      const wire = await MessageWire.create(config);
      const stats = new RunStats();
      const states: string[][] = [];
      const seen: { connection: number; id: number; started: number; cleanly: boolean }[] = [];
      let next = 0;
      const done = new Promise<void>((resolve) => {
        const host: SessionHost = {
          ...hostParts(config, wire, stats),
          takeMessage: () => NO_WORK,
          sessionIdle: () => assert.fail("per-message sessions never idle"),
          sessionEnded: (s, cleanly) => {
            const session = s as Session;
            seen.push({
              connection: session.connection,
              id: session.id,
              started: session.messagesStarted,
              cleanly,
            });
            if (next === 4) resolve();
            else session.reopen(next, next++, 0);
          },
          stateEntered: (s, state) => {
            if (state === State.Banner) states.push([]);
            states[states.length - 1]?.push(State[state]);
            assert.equal(s.id, states.length - 1);
          },
        };
        new Session(host, next, next++, 0);
      });
      await done;
      assert.deepEqual(seen, [
        { connection: 1, id: 0, started: 0, cleanly: false },
        { connection: 2, id: 1, started: 1, cleanly: true },
        { connection: 3, id: 2, started: 1, cleanly: true },
        { connection: 4, id: 3, started: 1, cleanly: false },
      ]);
      assert.deepEqual(states, [
        ["Banner", "Failed", "Closed"],
        ["Banner", "Greeting", "Ready", "Quitting", "Closed"],
        ["Banner", "Greeting", "Ready", "Quitting", "Closed"],
        // QUIT rode with the data, so the server's close finds it Quitting, the dot unanswered.
        ["Banner", "Greeting", "Ready", "Quitting", "Closed"],
      ]);
      const c = stats.counters;
      assert.equal(c.connectionsOpened, 4);
      assert.equal(c.connectionsRefused, 1);
      assert.equal(c.accepted, 2);
      assert.equal(c.failed, 1); // the refused connection's message
      assert.equal(c.unconfirmed, 1); // the one cut off after its data was written whole
      assert.equal(c.attempted, 4);
      // Connection 1 spoke lock-step (one command a write), connection 2 pipelined its envelope.
      const commands = server.connections.map((r) => r.commands);
      assert.deepEqual(commands[1].slice(0, 4).map(verb), ["EHLO", "MAIL", "RCPT", "DATA"]);
      const grouped = (i: number) =>
        server.connections[i].commandChunks.some(
          (lines) => lines.map(verb).join() === "MAIL,RCPT,DATA",
        );
      assert.equal(grouped(1), false);
      assert.equal(grouped(2), true);
    },
  );
});

const verb = (line: string) => line.split(" ", 1)[0];
