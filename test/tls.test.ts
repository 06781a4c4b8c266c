/**
 * The client's STARTTLS, implicit TLS and AUTH, against the built-in sink, the npm smtp-server
 * package and a raw server that tries STARTTLS injection.
 */

import assert from "node:assert/strict";
import net from "node:net";
import { describe, test } from "node:test";
import tls from "node:tls";
import { fillSinkOptions, type SinkOptions } from "../src/config/sink-config.js";
import { startSink } from "../src/sink/index.js";
import { selfSignedMaterial } from "../src/sink/tls-material.js";
import { errorCount, runClient } from "./helpers/run-client.js";
import { startSmtpServer } from "./helpers/smtp-server.js";

async function withSink<T>(options: SinkOptions, body: (target: string) => Promise<T>) {
  const sink = await startSink(fillSinkOptions(options));
  try {
    const { host, port } = sink.addresses[0];
    return await body(`${host}:${port}`);
  } finally {
    await sink.close();
  }
}

describe("TLS", () => {
  test("STARTTLS in both modes: each session handshakes once, timed as its own phase", async () => {
    await withSink({ listen: ["127.0.0.1:0"], starttls: true }, async (target) => {
      const reuse = await runClient(target, { sessions: 2, messages: 50, starttls: true });
      assert.equal(reuse.messages.accepted, 50);
      assert.equal(reuse.latency.tlsMs.count, 2);
      const perMessage = await runClient(target, {
        sessions: 2,
        messages: 10,
        starttls: true,
        mode: "per-message",
      });
      assert.equal(perMessage.messages.accepted, 10);
      assert.equal(perMessage.latency.tlsMs.count, 10);
    });
  });

  test("implicit TLS (--tls-on-connect): the banner comes after the handshake", async () => {
    await withSink({ listen: ["tls://127.0.0.1:0"] }, async (target) => {
      const result = await runClient(target, { sessions: 2, messages: 20, tlsOnConnect: true });
      assert.equal(result.messages.accepted, 20);
      assert.equal(result.latency.tlsMs.count, 2);
      assert.equal(result.latency.bannerMs.count, 2);
    });
  });

  test("STARTTLS required but not offered: counted, and no message is sent in the clear", async () => {
    await withSink({ listen: ["127.0.0.1:0"], starttls: false }, async (target) => {
      const result = await runClient(target, {
        sessions: 1,
        messages: 3,
        starttls: true,
        reconnectAttempts: 2,
        reconnectDelay: "5ms",
      });
      assert.equal(result.messages.failed, 3);
      assert.equal(result.messages.accepted, 0);
      assert.equal(errorCount(result, "unsupported", "starttls"), 2);
    });
  });

  test("--tls-verify refuses a self-signed certificate in the tls phase", async () => {
    await withSink({ listen: ["127.0.0.1:0"], starttls: true }, async (target) => {
      const result = await runClient(target, {
        sessions: 1,
        messages: 1,
        mode: "per-message",
        starttls: true,
        tlsVerify: true,
      });
      assert.equal(result.messages.failed, 1);
      assert.equal(result.errors[0]?.phase, "tls", JSON.stringify(result.errors));
    });
  });

  test("STARTTLS injection: replies pipelined behind the 220 are dropped, never acted on", async () => {
    const { cert, key } = await selfSignedMaterial();
    const context = tls.createSecureContext({ cert, key });
    const server = net.createServer((raw) => {
      raw.write("220 injection.test ESMTP\r\n");
      let buffered = "";
      const onPlain = (chunk: Buffer) => {
        buffered += chunk.toString("latin1");
        if (buffered.includes("STARTTLS\r\n")) {
          raw.off("data", onPlain);
          // RFC 3207 §5: a man in the middle appends a reply to the 220; the client must drop it.
          raw.write("220 2.0.0 go ahead\r\n250 2.1.0 injected\r\n");
          serveSecure(new tls.TLSSocket(raw, { isServer: true, secureContext: context }));
        } else if (buffered.startsWith("EHLO")) {
          buffered = "";
          raw.write("250-injection.test\r\n250 STARTTLS\r\n");
        }
      };
      raw.on("data", onPlain);
      raw.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const result = await runClient(`127.0.0.1:${port}`, {
        sessions: 1,
        messages: 2,
        starttls: true,
      });
      assert.equal(result.messages.accepted, 2, JSON.stringify(result.errors));
      assert.equal(errorCount(result, "protocol"), 0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A lock-step server over TLS: EHLO, MAIL, RCPT, DATA, the message, QUIT. */
function serveSecure(socket: tls.TLSSocket): void {
  let inData = false;
  let buffered = "";
  socket.on("error", () => {});
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("latin1");
    for (;;) {
      if (inData) {
        const end = buffered.indexOf("\r\n.\r\n");
        if (end === -1) return;
        buffered = buffered.slice(end + 5);
        inData = false;
        socket.write("250 2.0.0 queued\r\n");
        continue;
      }
      const lf = buffered.indexOf("\r\n");
      if (lf === -1) return;
      const line = buffered.slice(0, lf);
      buffered = buffered.slice(lf + 2);
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === "DATA") {
        inData = true;
        buffered = `\r\n${buffered}`;
        socket.write("354 go ahead\r\n");
      } else if (verb === "QUIT") {
        socket.end("221 2.0.0 bye\r\n");
      } else {
        socket.write(verb === "EHLO" ? "250 injection.test\r\n" : "250 2.0.0 ok\r\n");
      }
    }
  });
}

describe("AUTH", () => {
  for (const authMechanism of ["plain", "login"]) {
    test(`AUTH ${authMechanism.toUpperCase()} after STARTTLS, once per session`, async () => {
      const options = { listen: ["127.0.0.1:0"], starttls: true, auth: "alice:s3cret" };
      await withSink(options, async (target) => {
        const result = await runClient(target, {
          sessions: 2,
          messages: 30,
          starttls: true,
          auth: "alice:s3cret",
          authMechanism,
        });
        assert.equal(result.messages.accepted, 30);
        assert.equal(result.latency.authMs.count, 2);
      });
    });
  }

  test("a wrong password: 535 counted in the auth phase, no message sent", async () => {
    await withSink(
      { listen: ["127.0.0.1:0"], auth: "alice:s3cret", starttls: false },
      async (target) => {
        const result = await runClient(target, {
          sessions: 1,
          messages: 4,
          mode: "per-message",
          auth: "alice:wrong",
        });
        assert.equal(result.messages.failed, 4);
        assert.equal(errorCount(result, "535", "auth"), 4);
      },
    );
  });

  test("npm smtp-server: STARTTLS and AUTH PLAIN, counted at the server", async () => {
    let authenticated = 0;
    let secure = 0;
    const peer = await startSmtpServer({
      disabledCommands: [],
      hideSTARTTLS: false,
      authOptional: false,
      onAuth(auth, _session, callback) {
        authenticated++;
        if (auth.username === "bob" && auth.password === "pw") callback(null, { user: "bob" });
        else callback(new Error("bad credentials"));
      },
      onMailFrom(_address, session, callback) {
        if (session.secure) secure++;
        callback();
      },
    });
    const result = await runClient(`${peer.host}:${peer.port}`, {
      sessions: 2,
      messages: 20,
      starttls: true,
      auth: "bob:pw",
    });
    const counts = await peer.stop();
    assert.equal(result.messages.accepted, 20);
    assert.equal(counts.messages, 20);
    assert.equal(authenticated, 2);
    assert.equal(secure, 20);
  });
});
