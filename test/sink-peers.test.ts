/**
 * Third-party clients against the sink: Postfix smtp-source (lock-step HELO, many sessions),
 * swaks (pipelining, STARTTLS, AUTH, LMTP with several recipients) and nodemailer (STARTTLS with
 * AUTH). Counts are checked at the sink. Missing peers skip loudly, or fail under
 * MAILVOLLEY_REQUIRE_PEERS=1.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import type { Sink } from "../src/sink/index.js";
import { requirePeer } from "./helpers/peer.js";
import { haveSmtpSource, SMTP_SOURCE } from "./helpers/smtp-source.js";
import { haveSwaks, SWAKS } from "./helpers/swaks.js";
import { portOf, withSink } from "./sink-helpers.js";

const run = promisify(execFile);

/** The slice of nodemailer used here (the package ships no types, @types is not installed). */
interface Nodemailer {
  createTransport(options: object): {
    sendMail(message: object): Promise<{ response: string }>;
    close(): void;
  };
}
const nodemailerModule = "nodemailer";
const nodemailer = ((await import(nodemailerModule)) as { default: Nodemailer }).default;

function swaks(sink: Sink, ...args: string[]) {
  const server = `127.0.0.1:${portOf(sink)}`;
  return run(SWAKS, ["--server", server, "--from", "a@example.test", ...args], {
    timeout: 30_000,
  });
}

test("Postfix smtp-source -d -s 20 -m 5000: the sink counts 5000", async (t) => {
  if (!requirePeer(t, "postfix smtp-source", haveSmtpSource(), "apt-get install postfix")) return;
  await withSink({}, async (sink) => {
    await run(SMTP_SOURCE, ["-d", "-s", "20", "-m", "5000", `127.0.0.1:${portOf(sink)}`], {
      timeout: 120_000,
    });
    const stats = sink.stats();
    assert.equal(stats.messagesAccepted, 5000);
    assert.equal(stats.recipients, 5000);
    assert.equal(stats.messagesRejected, 0);
  });
});

test("swaks --pipeline delivers through the pipelined path", async (t) => {
  if (!requirePeer(t, "swaks", haveSwaks(), "apt-get install swaks")) return;
  await withSink({}, async (sink) => {
    const { stdout } = await swaks(sink, "--to", "b@example.test", "--pipeline");
    assert.match(stdout, /-> MAIL FROM:<a@example\.test>\n -> RCPT TO:<b@example\.test>\n -> DATA/);
    assert.equal(sink.stats().messagesAccepted, 1);
  });
});

test("swaks -tls: STARTTLS with the self-signed certificate", async (t) => {
  if (!requirePeer(t, "swaks", haveSwaks(), "apt-get install swaks")) return;
  await withSink({}, async (sink) => {
    const { stdout } = await swaks(sink, "--to", "b@example.test", "-tls");
    assert.match(stdout, /TLS started/);
    assert.equal(sink.stats().messagesAccepted, 1);
  });
});

test("swaks --auth PLAIN and LOGIN; wrong password is refused", async (t) => {
  if (!requirePeer(t, "swaks", haveSwaks(), "apt-get install swaks")) return;
  await withSink({ auth: "user:secret" }, async (sink) => {
    for (const mech of ["PLAIN", "LOGIN"]) {
      const auth = ["--auth", mech, "--auth-user", "user", "--auth-password", "secret"];
      await swaks(sink, "--to", "b@example.test", ...auth);
    }
    const wrong = ["--auth", "PLAIN", "--auth-user", "user", "--auth-password", "nope"];
    await assert.rejects(swaks(sink, "--to", "b@example.test", ...wrong));
    assert.equal(sink.stats().messagesAccepted, 2);
  });
});

test("swaks --protocol LMTP with three recipients gets three replies", async (t) => {
  if (!requirePeer(t, "swaks", haveSwaks(), "apt-get install swaks")) return;
  await withSink({ lmtp: true }, async (sink) => {
    const to = "1@example.test,2@example.test,3@example.test";
    const { stdout } = await swaks(sink, "--protocol", "LMTP", "--to", to);
    assert.equal(stdout.match(/<- {2}250 2\.0\.0 Ok: queued/g)?.length, 3, stdout);
    assert.equal(sink.stats().messagesAccepted, 1);
    assert.equal(sink.stats().recipients, 3);
  });
});

test("nodemailer: STARTTLS required, AUTH, several messages on one connection", async () => {
  await withSink({ auth: "user:secret" }, async (sink) => {
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: portOf(sink),
      secure: false,
      requireTLS: true,
      pool: true,
      maxConnections: 1,
      auth: { user: "user", pass: "secret" },
      tls: { rejectUnauthorized: false },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const info = await transport.sendMail({
          from: "a@example.test",
          to: "b@example.test",
          subject: `n${i}`,
          text: ".leading dot\nline\n",
        });
        assert.match(info.response, /^250 /);
      }
    } finally {
      transport.close();
    }
    assert.equal(sink.stats().messagesAccepted, 3);
    assert.equal(sink.stats().sessions, 1);
  });
});
