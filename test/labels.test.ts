/**
 * Failures carry the right name, phase and class (issue 17 item 9 and item 3's last bullet,
 * issue 15's probe --starttls): sessions the client cuts are `local`, not "closed by the
 * server" nor refused; a stray reply after QUIT is phase quit; any 4xx/5xx in place of the
 * banner is `refused`; a probe's banner timeout or over-long banner is phase banner; and probe
 * --starttls sends no STARTTLS to a server that does not offer it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildProbeConfig } from "../src/config/probe-config.js";
import { runProbe } from "../src/run/probe.js";
import { errorCount, runClient } from "./helpers/run-client.js";
import { type Script, withServer } from "./helpers/scripted-server.js";
import { driveSession, State } from "./helpers/session-driver.js";

describe("failure labels", () => {
  for (const at of [State.Banner, State.Ready] as const) {
    test(`a session the client cuts (in state ${State[at]}) is a local failure, not a refusal`, async () => {
      const script: Script = at === State.Banner ? { banner: null } : { onMessage: () => null };
      await withServer(script, async (server) => {
        const driven = await driveSession(`127.0.0.1:${server.port}`, {}, [0], (state, s) => {
          if (state === at) setImmediate(() => s.stop());
        });
        assert.equal(await driven.ended, false);
        assert.deepEqual(driven.states.slice(-2), ["Stopped", "Closed"]);
        const { counters, errors } = driven.stats.snapshot();
        assert.deepEqual(
          errors.map((e) => [e.reply, e.text]),
          [["local", "session cut by the client (stop)"]],
        );
        assert.equal(counters.connectionsRefused, 0);
        assert.equal(counters.attempted, counters.accepted + counters.rejected + counters.failed);
      });
    });
  }

  test("a stray 221 after QUIT's is a protocol error of phase quit, not mail", async () => {
    const script: Script = {
      onCommand: (line) =>
        line === "QUIT"
          ? { reply: "221 2.0.0 Bye\r\n221 2.0.0 Bye again", close: true }
          : undefined,
    };
    await withServer(script, async (server) => {
      const result = await runClient(`127.0.0.1:${server.port}`, { sessions: 1, messages: 2 });
      assert.equal(result.messages.accepted, 2);
      assert.equal(errorCount(result, "protocol", "mail"), 0, JSON.stringify(result.errors));
      assert.equal(errorCount(result, "protocol", "quit"), 1, JSON.stringify(result.errors));
    });
  });

  for (const banner of ["450 4.3.2 busy, try later", "500 go away", "554 5.3.2 no service"]) {
    test(`"${banner}" in place of the banner is refused`, async () => {
      await withServer({ banner }, async (server) => {
        const result = await runClient(`127.0.0.1:${server.port}`, {
          sessions: 1,
          messages: 1,
          mode: "per-message",
        });
        assert.equal(result.messages.failed, 1);
        assert.equal(result.connections.refused, 1);
        assert.deepEqual(
          result.errors.map((e) => [e.reply, e.phase, e.class]),
          [[banner.slice(0, 3), "banner", "refused"]],
        );
        assert.equal(result.errorClasses.refused, 1);
      });
    });
  }
});

describe("probe labels", () => {
  const probe = (port: number, options: Record<string, unknown>) =>
    runProbe(buildProbeConfig({ target: `127.0.0.1:${port}`, ...options }));

  test("a banner that never comes: the refusal is a timeout of phase banner", async () => {
    await withServer({ banner: null }, async (server) => {
      const result = await probe(server.port, { probe: "connection-rate", timeout: "200ms" });
      assert.deepEqual([result.refusal?.reply, result.refusal?.phase], ["timeout", "banner"]);
    });
  });

  test("an over-long banner: a protocol error of phase banner", async () => {
    await withServer({ banner: `220 ${"x".repeat(5000)}` }, async (server) => {
      const result = await probe(server.port, { probe: "connection-rate", timeout: "2s" });
      assert.deepEqual([result.refusal?.reply, result.refusal?.phase], ["protocol", "banner"]);
    });
  });

  test("probe --starttls against a server without STARTTLS: unsupported, never sent", async () => {
    await withServer({}, async (server) => {
      const result = await probe(server.port, { probe: "message-rate", starttls: true });
      assert.deepEqual([result.refusal?.reply, result.refusal?.phase], ["unsupported", "starttls"]);
      assert.equal(result.ended, "refused");
      const commands = server.connections.flatMap((c) => c.commands);
      assert.ok(!commands.includes("STARTTLS"), commands.join(" | "));
    });
  });
});
