/**
 * The client session's states (issue 11 item 7): one named state, entered in the order
 * src/client/lifecycle.ts draws, for each way a session goes, against scripted servers and the
 * built-in sink (for TLS and AUTH).
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRunOptions } from "../src/config/run-config.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { type Script, withServer } from "./helpers/scripted-server.js";
import { driveSession, NOT_YET, State } from "./helpers/session-driver.js";

interface Case {
  name: string;
  script: Script;
  options?: RawRunOptions;
  takes?: number[];
  states: string[];
  cleanly: boolean;
  /** Acts when the session enters a state: e.g. the sweeper finding a timeout passed. */
  at?: { state: State; act: "timeout" };
}

const CASES: Case[] = [
  {
    name: "pipelined: handshake, transactions, QUIT",
    script: {},
    takes: [0, 1],
    states: ["Banner", "Greeting", "Ready", "Quitting", "Closed"],
    cleanly: true,
  },
  {
    name: "lock-step (no PIPELINING): the same states",
    script: { capabilities: ["8BITMIME"] },
    takes: [0, 1],
    states: ["Banner", "Greeting", "Ready", "Quitting", "Closed"],
    cleanly: true,
  },
  {
    name: "EHLO refused, HELO taken: still Greeting until Ready",
    script: { onCommand: (line) => (line.startsWith("EHLO") ? "502 5.5.2 no EHLO" : undefined) },
    takes: [0],
    states: ["Banner", "Greeting", "Ready", "Quitting", "Closed"],
    cleanly: true,
  },
  {
    name: "EHLO and HELO refused: Refusing, not a clean end",
    script: { onCommand: (line) => (/^(EHLO|HELO)/.test(line) ? "550 5.7.1 go away" : undefined) },
    takes: [0],
    states: ["Banner", "Greeting", "Refusing", "Closed"],
    cleanly: false,
  },
  {
    name: "STARTTLS required but not offered: Refusing",
    script: {},
    options: { starttls: true },
    states: ["Banner", "Greeting", "Refusing", "Closed"],
    cleanly: false,
  },
  {
    name: "554 instead of the banner: Failed",
    script: { banner: "554 5.3.2 no service" },
    states: ["Banner", "Failed", "Closed"],
    cleanly: false,
  },
  {
    name: "a silent server: the banner timeout fails the session",
    script: { banner: null },
    states: ["Banner", "Failed", "Closed"],
    cleanly: false,
    at: { state: State.Banner, act: "timeout" },
  },
  {
    name: "421 in answer to MAIL: Failed",
    script: {
      onCommand: (line) => (line.startsWith("MAIL") ? "421 4.3.2 shutting down" : undefined),
    },
    takes: [0],
    states: ["Banner", "Greeting", "Ready", "Failed", "Closed"],
    cleanly: false,
  },
  {
    name: "no message due (open model): Idle, then Ready again when resumed",
    script: {},
    options: { pipelining: "off" },
    takes: [0, NOT_YET, 1],
    states: ["Banner", "Greeting", "Ready", "Idle", "Ready", "Quitting", "Closed"],
    cleanly: true,
  },
  {
    name: "nothing to send: QUIT right after the handshake",
    script: {},
    takes: [],
    states: ["Banner", "Greeting", "Ready", "Quitting", "Closed"],
    cleanly: true,
  },
];

describe("client session states", () => {
  for (const c of CASES) {
    test(c.name, async () => {
      await withServer(c.script, async (server) => {
        const driven = await driveSession(
          `127.0.0.1:${server.port}`,
          { pipelining: "auto", ...c.options },
          c.takes ?? [],
          (state, session) => {
            if (c.at?.state === state) setImmediate(() => session.checkTimeout(1e12));
          },
        );
        const cleanly = await driven.ended;
        // Connecting is where every session starts; the rest is entered.
        assert.deepEqual(driven.states, c.states);
        assert.equal(cleanly, c.cleanly);
        assert.equal(driven.session.state, State.Closed);
        const counters = driven.stats.counters;
        assert.equal(counters.attempted, counters.accepted + counters.rejected + counters.failed);
      });
    });
  }

  test("STARTTLS and AUTH: Tls between two Greetings, then Auth", async () => {
    const sink = await startSink(
      fillSinkOptions({ listen: ["127.0.0.1:0"], starttls: true, auth: "al:pw" }),
    );
    try {
      const { host, port } = sink.addresses[0];
      const driven = await driveSession(`${host}:${port}`, { starttls: true, auth: "al:pw" }, [0]);
      assert.equal(await driven.ended, true);
      assert.deepEqual(driven.states, [
        "Banner",
        "Greeting",
        "StartTls",
        "Tls",
        "Greeting",
        "Auth",
        "Ready",
        "Quitting",
        "Closed",
      ]);
      assert.equal(driven.stats.counters.accepted, 1);
    } finally {
      await sink.close();
    }
  });

  test("implicit TLS: Tls before the banner", async () => {
    const sink = await startSink(fillSinkOptions({ listen: ["tls://127.0.0.1:0"] }));
    try {
      const { host, port } = sink.addresses[0];
      const driven = await driveSession(`${host}:${port}`, { tlsOnConnect: true }, [0]);
      assert.equal(await driven.ended, true);
      assert.deepEqual(driven.states, ["Tls", "Banner", "Greeting", "Ready", "Quitting", "Closed"]);
    } finally {
      await sink.close();
    }
  });
});
