/**
 * A private Postfix that relays everything it accepts to one receiver on loopback (a run's
 * --receive sink): its own config directory and queue, `relayhost = [127.0.0.1]:PORT`, no DNS,
 * and retry times cut to about a second, so a deferred message comes again within the test.
 * One instance of postfix-instance.ts (`postfix -c DIR start-fg`, stopped by that DIR), with
 * the main.cf and master.cf the smtpd peer has, and the relay's lines on top.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOST, once } from "./peer.js";
import { postfixMainCf, postfixMasterCf, startPostfixInstance } from "./postfix-instance.js";

export { havePostfix as havePostfixRelay } from "./postfix-instance.js";

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
  return postfixMainCf(dir, "relay.mailvolley.invalid", lines);
}

export async function startPostfixRelay(o: RelayOptions): Promise<RelayPeer> {
  const postfix = await startPostfixInstance("mailvolley-relay-", (dir, conf, port) => {
    writeFileSync(join(conf, "main.cf"), mainCf(dir, o));
    writeFileSync(join(conf, "master.cf"), postfixMasterCf(port, { qmgrWakeup: 1 }));
    if (o.headerChecks)
      writeFileSync(join(conf, "header_checks"), `${o.headerChecks.join("\n")}\n`);
  });
  return { host: HOST, port: postfix.port, log: postfix.log, stop: once(postfix.halt) };
}
