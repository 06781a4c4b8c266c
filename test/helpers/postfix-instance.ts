/**
 * One private Postfix for the tests, whatever it plays: `postfix -c DIR start-fg` in a directory
 * of its own (config, queue, data, log), on a free loopback port, stopped by that directory. The
 * main.cf lines every instance shares and the one master.cf are written here, once: the smtpd
 * peer (postfix-smtpd.ts) and the relay (postfix-relay.ts) add only what they play.
 *
 * `postfix -c DIR start-fg` runs master in the foreground with its log on stdout
 * (maillog_file = /dev/stdout, Postfix ≥ 3.4), which goes to a file here. Postfix must start as
 * root (master binds, then drops to mail_owner); it does not touch /etc/postfix, which Debian's
 * "No configuration" leaves without a main.cf.
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
import { freePort, HOST, quitProbe } from "./peer.js";

export const POSTFIX = "/usr/sbin/postfix";
/** Readiness probes come from here, so anvil counts them for another client than the test's. */
const PROBE_SOURCE = "127.0.0.2";

/** Postfix can run here: installed, a `postfix` user, and root to start it. */
export function havePostfix(): boolean {
  if (process.getuid?.() !== 0) return false;
  return (
    existsSync(POSTFIX) && spawnSync("id", ["-u", "postfix"], { stdio: "ignore" }).status === 0
  );
}

/**
 * main.cf for the instance at `dir`: loopback only, its own queue and data, no local delivery,
 * no DNS or name lookups (the tests are offline), the log on stdout; then `lines`.
 */
export function postfixMainCf(dir: string, hostname: string, lines: readonly string[]): string {
  const base = [
    "compatibility_level = 3.6",
    `queue_directory = ${dir}/queue`,
    `data_directory = ${dir}/data`,
    "mail_owner = postfix",
    "setgid_group = postdrop",
    "inet_interfaces = 127.0.0.1",
    "inet_protocols = ipv4",
    `myhostname = ${hostname}`,
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
  ];
  return `${[...base, ...lines].join("\n")}\n`;
}

export interface MasterOptions {
  /** A second smtpd listener with implicit TLS (smtps) on this port. */
  smtpsPort?: number;
  /** qmgr's wakeup time, seconds: 1 for a relay that retries within the test. Default 300. */
  qmgrWakeup?: number;
}

/**
 * master.cf(5) (service type private unpriv chroot wakeup maxproc command), no chroot: smtpd on
 * `port`, the queue's daemons, the smtp client (relay) and discard (the smtpd peer's transport);
 * a service nothing asks for is never started.
 */
export function postfixMasterCf(port: number, o: MasterOptions = {}): string {
  const services = [
    `${HOST}:${port} inet n - n - - smtpd`,
    ...(o.smtpsPort === undefined
      ? []
      : [`${HOST}:${o.smtpsPort} inet n - n - - smtpd -o smtpd_tls_wrappermode=yes`]),
    "pickup unix n - n 60 1 pickup",
    "cleanup unix n - n - 0 cleanup",
    `qmgr unix n - n ${o.qmgrWakeup ?? 300} 1 qmgr`,
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
    // Session ticket keys and the TLS session cache live in tlsmgr.
    "tlsmgr unix - - n 1000? 1 tlsmgr",
    "postlog unix-dgram n - n - 1 postlogd",
  ];
  return `${services.join("\n")}\n`;
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
export type Configure = (dir: string, conf: string, port: number) => Promise<void> | void;

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
