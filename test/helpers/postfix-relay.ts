/**
 * A private Postfix that relays everything it accepts to one receiver on loopback (a run's
 * --receive sink): its own config directory and queue, `relayhost = [127.0.0.1]:PORT`, no DNS,
 * and retry times cut to about a second, so a deferred message comes again within the test.
 * Started and stopped by postfix-smtpd.ts's startPostfixInstance (`postfix -c DIR start-fg`,
 * stopped by that DIR), which it shares with the smtpd peer.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOST, once } from "./peer.js";
import { startPostfixInstance } from "./postfix-smtpd.js";

export { haveSmtpd as havePostfixRelay } from "./postfix-smtpd.js";

export interface RelayOptions {
  /** The receiver's port on 127.0.0.1: where every message goes. */
  receiverPort: number;
  /** header_checks(5) regexp lines, e.g. `/^X-Mailvolley-Class: spam/ DISCARD`. */
  headerChecks?: string[];
  /** More main.cf lines, `name = value`. */
  extra?: string[];
}

export interface RelayPeer {
  host: string;
  port: number;
  /** Postfix's log so far (maillog_file). */
  log(): string;
  /** Stops this Postfix (by its config directory) and removes the directory. Safe twice. */
  stop(): Promise<void>;
}

function mainCf(dir: string, o: RelayOptions): string {
  const lines = [
    "compatibility_level = 3.6",
    `queue_directory = ${dir}/queue`,
    `data_directory = ${dir}/data`,
    "mail_owner = postfix",
    "setgid_group = postdrop",
    "inet_interfaces = 127.0.0.1",
    "inet_protocols = ipv4",
    "myhostname = relay.mailvolley.invalid",
    "mydomain = mailvolley.invalid",
    "myorigin = mailvolley.invalid",
    "mydestination =",
    "relay_domains =",
    "alias_maps =",
    "alias_database =",
    "mynetworks = 127.0.0.0/8",
    "smtpd_relay_restrictions = permit_mynetworks, reject",
    "smtpd_peername_lookup = no",
    "maillog_file = /dev/stdout",
    // Everything, bounces included, goes to the receiver; no DNS (the tests are offline).
    `relayhost = [${HOST}]:${o.receiverPort}`,
    "default_transport = smtp",
    "relay_transport = smtp",
    "local_transport = smtp",
    "smtp_dns_support_level = disabled",
    "smtp_host_lookup = native",
    // Retries within seconds, not minutes.
    "queue_run_delay = 1s",
    "minimal_backoff_time = 1s",
    "maximal_backoff_time = 2s",
    "smtp_connect_timeout = 5s",
    "delay_warning_time = 0",
    "default_destination_concurrency_limit = 10",
  ];
  if (o.headerChecks) lines.push(`header_checks = regexp:${dir}/conf/header_checks`);
  lines.push(...(o.extra ?? []));
  return `${lines.join("\n")}\n`;
}

function masterCf(port: number): string {
  const services = [
    `${HOST}:${port} inet n - n - - smtpd`,
    "pickup unix n - n 60 1 pickup",
    "cleanup unix n - n - 0 cleanup",
    "qmgr unix n - n 1 1 qmgr",
    "rewrite unix - - n - - trivial-rewrite",
    "bounce unix - - n - 0 bounce",
    "defer unix - - n - 0 bounce",
    "trace unix - - n - 0 bounce",
    "verify unix - - n - 1 verify",
    "flush unix n - n 1000? 0 flush",
    "proxymap unix - - n - - proxymap",
    "showq unix n - n - - showq",
    "error unix - - n - - error",
    "retry unix - - n - - error",
    "discard unix - - n - - discard",
    "smtp unix - - n - - smtp",
    "relay unix - - n - - smtp",
    "anvil unix - - n - 1 anvil",
    "scache unix - - n - 1 scache",
    "tlsmgr unix - - n 1000? 1 tlsmgr",
    "postlog unix-dgram n - n - 1 postlogd",
  ];
  return `${services.join("\n")}\n`;
}

export async function startPostfixRelay(o: RelayOptions): Promise<RelayPeer> {
  const postfix = await startPostfixInstance("mailvolley-relay-", (dir, conf, port) => {
    writeFileSync(join(conf, "main.cf"), mainCf(dir, o));
    writeFileSync(join(conf, "master.cf"), masterCf(port));
    if (o.headerChecks)
      writeFileSync(join(conf, "header_checks"), `${o.headerChecks.join("\n")}\n`);
  });
  return { host: HOST, port: postfix.port, log: postfix.log, stop: once(postfix.halt) };
}
