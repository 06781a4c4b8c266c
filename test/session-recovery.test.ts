/**
 * How a session goes on after refusals, against scripted servers that behave like real MTAs
 * (issue 15): RSET only when a transaction is open (Exim counts RSET as a non-mail command),
 * BDAT after a refused transaction (Exim keeps the sender), and per-session limits
 * (OpenSMTPD's 452 4.5.3).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runClient } from "./helpers/run-client.js";
import { type Script, type ScriptedSession, withServer } from "./helpers/scripted-server.js";

const target = (port: number) => `127.0.0.1:${port}`;

/** Exim's smtp_accept_max_nonmail (default 10): too many RSETs in a row end the session. */
function nonmailLimit(s: ScriptedSession, line: string): string | undefined {
  const verb = line.split(" ", 1)[0].toUpperCase();
  if (verb === "RSET" || verb === "NOOP") {
    const n = ((s.state.nonmail as number) ?? 0) + 1;
    s.state.nonmail = n;
    if (n > 10) return "554 Too many nonmail commands";
  }
  return undefined;
}

describe("RSET only when a transaction is open (issue 15 item 3)", () => {
  for (const pipelining of ["auto", "off"]) {
    test(`refused MAIL, pipelining ${pipelining}: no RSET, the session survives 12 refusals`, async () => {
      const script: Script = {
        onCommand: (line, s) => {
          const limit = nonmailLimit(s, line);
          if (limit) return { reply: limit, close: true };
          if (line.startsWith("MAIL")) return "552 5.3.4 message size exceeds fixed limit";
          if (line.startsWith("RCPT") || line === "DATA") return "503 5.5.1 sender not yet given";
          return undefined;
        },
      };
      await withServer(script, async (server) => {
        const result = await runClient(target(server.port), {
          sessions: 1,
          messages: 12,
          pipelining,
        });
        assert.equal(result.messages.rejected, 12);
        assert.equal(result.messages.failed, 0);
        assert.equal(result.connections.opened, 1);
        const commands = server.connections[0].commands;
        assert.ok(!commands.includes("RSET"), commands.join(" | "));
      });
    });
  }
});
