/**
 * After the 221 to QUIT the client resets the connection (SO_LINGER 0), as Postfix smtp-source
 * does, so that a connection per message leaves no TIME_WAIT behind on the client's ports. The
 * server here answers QUIT and keeps its side open, to see how the client's side ends.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runClient } from "./helpers/run-client.js";
import { withServer } from "./helpers/scripted-server.js";

for (const mode of ["per-message", "reuse"] as const) {
  test(`${mode}: each answered QUIT ends in a reset, every message accepted`, async () => {
    const ends: string[] = [];
    const closed: Promise<void>[] = [];
    await withServer(
      {
        onCommand: (line, session) => {
          if (line !== "QUIT") return undefined;
          const { socket } = session;
          closed.push(
            new Promise((resolve) => {
              socket.once("end", () => ends.push("FIN"));
              socket.once("error", (e: NodeJS.ErrnoException) => ends.push(e.code ?? e.message));
              socket.once("close", () => resolve());
            }),
          );
          return "221 2.0.0 Bye"; // and no close: the client ends the connection
        },
      },
      async (server) => {
        const result = await runClient(`${server.host}:${server.port}`, {
          mode,
          sessions: 1,
          messages: 3,
        });
        assert.equal(result.messages.accepted, 3);
        await Promise.all(closed);
      },
    );
    assert.deepEqual(
      ends,
      mode === "per-message" ? ["ECONNRESET", "ECONNRESET", "ECONNRESET"] : ["ECONNRESET"],
    );
  });
}
