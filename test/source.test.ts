/** Many source addresses: a sender spreading its sessions over several local IPs. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { buildRunConfig } from "../src/config/run-config.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { runClient } from "./helpers/run-client.js";

test("--source lists and ranges", () => {
  assert.deepEqual(buildRunConfig({ source: "127.0.0.2-127.0.0.4" }).sourceAddresses, [
    "127.0.0.2",
    "127.0.0.3",
    "127.0.0.4",
  ]);
  assert.deepEqual(buildRunConfig({ source: ["127.0.0.5,::1"] }).sourceAddresses, [
    "127.0.0.5",
    "::1",
  ]);
  assert.throws(() => buildRunConfig({ source: "localhost" }), /--source/);
  assert.throws(() => buildRunConfig({ source: "127.0.0.9-127.0.0.2" }), /--source/);
});

test("sessions from several addresses pass a per-client connection limit that one address meets", async () => {
  const sink = await startSink(
    fillSinkOptions({
      listen: ["127.0.0.1:0"],
      starttls: false,
      maxConnectionsPerClient: 1,
    }),
  );
  try {
    const target = `127.0.0.1:${sink.addresses[0].port}`;
    const options = { sessions: 3, messages: 90, reconnectAttempts: 2, reconnectDelay: "5ms" };
    const one = await runClient(target, options);
    assert.ok(one.connections.refused > 0, "one address: the sink refuses the extra sessions");
    const three = await runClient(target, { ...options, source: "127.0.0.2-127.0.0.4" });
    assert.equal(three.connections.refused, 0);
    assert.equal(three.messages.accepted, 90);
  } finally {
    await sink.close();
  }
});
