/**
 * A real Postfix (master, smtpd, cleanup, qmgr, anvil, discard) in a directory of its own, for
 * the gateway behaviour smtp-sink does not have: anvil's connection count, connection rate and
 * message rate limits (421 4.7.0 and 450 4.7.1), and queue IDs in the 250 to the data. Every
 * message goes to the discard transport; the count a test checks is Postfix's own delivery log
 * (`status=sent`), read once the queue has drained.
 *
 * `postfix -c DIR start-fg` runs master in the foreground with its log on stdout
 * (maillog_file = /dev/stdout, Postfix ≥ 3.4), which goes to a file here, as smtp-sink's does.
 * Postfix must start as root (master binds, then drops to mail_owner); it does not touch
 * /etc/postfix, which Debian's "No configuration" leaves without a main.cf.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitExit } from "./child.js";
import { freePort, HOST, once, type PeerCounts, quitProbe } from "./peer.js";

export const POSTFIX = "/usr/sbin/postfix";
/** Readiness probes come from here, so anvil counts them for another client than the test's. */
const PROBE_SOURCE = "127.0.0.2";

/** Postfix can run here: installed, a `postfix` user, and root to start it. */
export function haveSmtpd(): boolean {
  if (process.getuid?.() !== 0) return false;
  return (
    existsSync(POSTFIX) && spawnSync("id", ["-u", "postfix"], { stdio: "ignore" }).status === 0
  );
}

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
    "compatibility_level = 3.6",
    `queue_directory = ${dir}/queue`,
    `data_directory = ${dir}/data`,
    "mail_owner = postfix",
    "setgid_group = postdrop",
    "inet_interfaces = 127.0.0.1",
    "inet_protocols = ipv4",
    "myhostname = smtpd.mailvolley.invalid",
    "mydomain = mailvolley.invalid",
    "mydestination =",
    "relay_domains =",
    "alias_maps =",
    "alias_database =",
    "mynetworks = 127.0.0.0/8",
    "smtpd_relay_restrictions = permit_mynetworks, reject",
    "default_transport = discard",
    "local_transport = discard",
    "relay_transport = discard",
    "maillog_file = /dev/stdout",
    // The limits apply to loopback clients too (the default exempts $mynetworks).
    "smtpd_client_event_limit_exceptions =",
    "anvil_rate_time_unit = 60s",
    // No lookups of the client's name: the tests are offline.
    "smtpd_peername_lookup = no",
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
  return `${lines.join("\n")}\n`;
}

function masterCf(port: number, smtpsPort: number | undefined): string {
  // service type private unpriv chroot wakeup maxproc command: master.cf(5); no chroot.
  const services = [
    `${HOST}:${port} inet n - n - - smtpd`,
    ...(smtpsPort === undefined
      ? []
      : [
          `${HOST}:${smtpsPort} inet n - n - - smtpd -o smtpd_tls_wrappermode=yes`,
          // Session ticket keys and the session cache live in tlsmgr.
          "tlsmgr unix - - n 1000? 1 tlsmgr",
        ]),
    "pickup unix n - n 60 1 pickup",
    "cleanup unix n - n - 0 cleanup",
    "qmgr unix n - n 300 1 qmgr",
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
    "anvil unix - - n - 1 anvil",
    "scache unix - - n - 1 scache",
    "postlog unix-dgram n - n - 1 postlogd",
  ];
  return `${services.join("\n")}\n`;
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
    writeFileSync(join(conf, "master.cf"), masterCf(port, smtpsPort));
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

/** A private Postfix in a directory of its own, started and waiting for mail on `port`. */
export interface PostfixInstance {
  readonly port: number;
  /** Postfix's log so far (maillog_file). */
  log(): string;
  /** Stops this Postfix by its config directory and removes the directory. */
  halt(): Promise<void>;
}

/** `configure` writes main.cf, master.cf and any table into `conf` for the instance at `dir`. */
type Configure = (dir: string, conf: string, port: number) => Promise<void> | void;

/** Starts `postfix -c DIR start-fg` in a new directory named from `prefix`, configured by `configure`. */
export async function startPostfixInstance(
  prefix: string,
  configure: Configure,
): Promise<PostfixInstance> {
  let why = "";
  // The free port may be taken between freePort() and master's bind: then another one.
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = await startOnce(prefix, configure);
    if (typeof started !== "string") return started;
    why = started;
    if (!/in use/i.test(started)) break;
  }
  throw new Error(why);
}

async function startOnce(prefix: string, configure: Configure): Promise<PostfixInstance | string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // mkdtemp makes it 0700; Postfix's daemons run as mail_owner and must reach data/ and queue/.
  chmodSync(dir, 0o755);
  const conf = join(dir, "conf");
  mkdirSync(conf);
  mkdirSync(join(dir, "queue"));
  mkdirSync(join(dir, "data"));
  const uid = Number(spawnSync("id", ["-u", "postfix"], { encoding: "utf8" }).stdout.trim());
  chownSync(join(dir, "data"), uid, -1);
  const port = await freePort();
  await configure(dir, conf, port);
  const logPath = join(dir, "log");
  const log = () => readFileSync(logPath, "latin1");
  writeFileSync(logPath, "");
  const out = openSync(logPath, "a");
  const child = spawn(POSTFIX, ["-c", conf, "start-fg"], { stdio: ["ignore", out, out] });
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  const deadline = Date.now() + 15_000;
  while (!(await quitProbe(port, HOST, 2000, PROBE_SOURCE))) {
    if (exited || Date.now() > deadline) {
      spawnSync(POSTFIX, ["-c", conf, "abort"], { stdio: "ignore" });
      const why = log().trim().split("\n").slice(-5).join("\n");
      closeSync(out);
      rmSync(dir, { recursive: true, force: true });
      return `postfix did not start on port ${port}: ${why}`;
    }
    await sleep(50);
  }
  const halt = async () => {
    spawnSync(POSTFIX, ["-c", conf, "stop"], { stdio: "ignore" });
    await waitExit(child, 15_000);
    closeSync(out);
    rmSync(dir, { recursive: true, force: true });
  };
  return { port, log, halt };
}
