/**
 * A real Postfix (master, smtpd, cleanup, qmgr, anvil, discard) in a directory of its own, for
 * the gateway behaviour smtp-sink does not have: anvil's connection count, connection rate and
 * message rate limits (421 4.7.0 and 450 4.7.1), and queue IDs in the 250 to the data. Every
 * message goes to the discard transport; the count a test checks is Postfix's own delivery log
 * (`status=sent`), read once the queue has drained. The instance itself: postfix-instance.ts.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort, HOST, once, type PeerCounts } from "./peer.js";
import {
  havePostfix,
  postfixMainCf,
  postfixMasterCf,
  startPostfixInstance,
} from "./postfix-instance.js";

export {
  POSTFIX,
  type PostfixInstance,
  startPostfixInstance,
} from "./postfix-instance.js";

/** Postfix can run here: installed, a `postfix` user, and root to start it. */
export const haveSmtpd = havePostfix;

export interface SmtpdLimits {
  /** smtpd_client_connection_count_limit: concurrent connections per client. */
  connectionCount?: number;
  /** smtpd_client_connection_rate_limit: connections per client per minute. */
  connectionRate?: number;
  /** smtpd_client_message_rate_limit: messages per client per minute. */
  messageRate?: number;
  /** More main.cf lines, `name = value`. */
  extra?: string[];
  /**
   * STARTTLS (smtpd_tls_security_level = may) with a self-signed certificate, and a second
   * listener with implicit TLS (smtps: smtpd_tls_wrappermode = yes) on `smtpsPort`. Session
   * tickets stay on, as by default (their keys come from tlsmgr).
   */
  tls?: boolean;
}

export interface SmtpdPeer {
  host: string;
  port: number;
  /** With `tls`: the implicit-TLS (smtps) port. */
  smtpsPort?: number;
  /** Waits for the queue to drain, stops Postfix, returns what it delivered. Safe twice. */
  stop(): Promise<PeerCounts>;
}

/** A self-signed EC certificate for the TLS listeners, made by openssl in `conf`. */
function tlsLines(conf: string): string[] {
  const cert = join(conf, "cert.pem");
  const key = join(conf, "key.pem");
  const made = spawnSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"].concat([
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      "/CN=localhost",
    ]),
    { stdio: "ignore" },
  );
  if (made.status !== 0) throw new Error("openssl could not make the test certificate");
  return [
    `smtpd_tls_cert_file = ${cert}`,
    `smtpd_tls_key_file = ${key}`,
    "smtpd_tls_security_level = may",
    "smtpd_tls_loglevel = 0",
  ];
}

function mainCf(dir: string, limits: SmtpdLimits): string {
  const lines = [
    "default_transport = discard",
    "local_transport = discard",
    "relay_transport = discard",
    // The limits apply to loopback clients too (the default exempts $mynetworks).
    "smtpd_client_event_limit_exceptions =",
    "anvil_rate_time_unit = 60s",
  ];
  if (limits.connectionCount !== undefined) {
    lines.push(`smtpd_client_connection_count_limit = ${limits.connectionCount}`);
  }
  if (limits.connectionRate !== undefined) {
    lines.push(`smtpd_client_connection_rate_limit = ${limits.connectionRate}`);
  }
  if (limits.messageRate !== undefined) {
    lines.push(`smtpd_client_message_rate_limit = ${limits.messageRate}`);
  }
  if (limits.tls) lines.push(...tlsLines(join(dir, "conf")));
  lines.push(...(limits.extra ?? []));
  return postfixMainCf(dir, "smtpd.mailvolley.invalid", lines);
}

/** Counts of the log so far: messages queued by cleanup, removed by qmgr, sent by discard. */
function logCounts(log: string): { queued: number; removed: number; sent: number } {
  const count = (re: RegExp) => (log.match(re) ?? []).length;
  return {
    queued: count(/postfix\/cleanup\[\d+\]: [0-9A-F]+: message-id=/g),
    removed: count(/postfix\/qmgr\[\d+\]: [0-9A-F]+: removed/g),
    sent: count(/postfix\/discard\[\d+\]: [0-9A-F]+: .*status=sent/g),
  };
}

export async function startPostfixSmtpd(limits: SmtpdLimits = {}): Promise<SmtpdPeer> {
  let smtpsPort: number | undefined;
  const postfix = await startPostfixInstance("mailvolley-postfix-", async (dir, conf, port) => {
    smtpsPort = limits.tls ? await freePort() : undefined;
    writeFileSync(join(conf, "main.cf"), mainCf(dir, limits));
    writeFileSync(join(conf, "master.cf"), postfixMasterCf(port, { smtpsPort }));
  });
  const stop = async (): Promise<PeerCounts> => {
    // Every queued message is delivered (to discard) and removed before the count is read.
    const drained = Date.now() + 15_000;
    for (;;) {
      const c = logCounts(postfix.log());
      if (c.removed >= c.queued || Date.now() > drained) break;
      await sleep(50);
    }
    const counts = logCounts(postfix.log());
    await postfix.halt();
    return { messages: counts.sent };
  };
  return { host: HOST, port: postfix.port, smtpsPort, stop: once(stop) };
}
