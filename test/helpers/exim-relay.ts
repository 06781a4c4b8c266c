/**
 * A private Exim 4 that relays everything it accepts to one receiver on loopback (a run's
 * --receive sink), a second real gateway beside Postfix: a `manualroute` router to 127.0.0.1
 * and an `smtp` transport on the receiver's port, which sends with BDAT (RFC 3030) where the
 * receiver offers CHUNKING. Its own config, spool and log in a temporary directory, retries
 * every second. Debian's exim4-daemon-light conflicts with postfix, so .ci/run unpacks it into
 * EXIM_ROOT (never installed); it runs from there with LD_LIBRARY_PATH for libidn12, its setuid
 * bit removed so that it keeps that variable when it executes itself again to deliver.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { waitExit } from "./child.js";
import { executable, freePort, HOST, once, quitProbe } from "./peer.js";

/** Where .ci/run unpacks Exim; MAILVOLLEY_EXIM_ROOT elsewhere. */
const EXIM_ROOT = process.env.MAILVOLLEY_EXIM_ROOT ?? "/var/tmp/mailvolley-exim";
const EXIM = join(EXIM_ROOT, "usr/sbin/exim4");
const LIBS = join(EXIM_ROOT, "usr/lib/x86_64-linux-gnu");
/** The user Exim is built to run as (Debian's package makes it; .ci/run does here). */
const EXIM_USER = "Debian-exim";

export interface EximOptions {
  /** The receiver's port on 127.0.0.1: where every message goes. */
  receiverPort: number;
  /** More main configuration lines, `name = value`. */
  extra?: string[];
  /** Routers tried before the one to the receiver, as configuration lines. */
  routers?: string[];
}

export interface EximPeer {
  host: string;
  port: number;
  /** Exim's main log so far. */
  log(): string;
  /** Stops this Exim and removes its directory. Safe twice. */
  stop(): Promise<void>;
}

/** Exim can run here: unpacked, its user made, and root to start it. */
export function haveEximRelay(): boolean {
  if (process.getuid?.() !== 0 || !executable(EXIM)) return false;
  return spawnSync("id", ["-u", EXIM_USER], { stdio: "ignore" }).status === 0;
}

function config(dir: string, port: number, o: EximOptions): string {
  return `${[
    // Its own executable, not the /usr/sbin/exim4 it was built for, keeping the loader's path.
    `exim_path = ${EXIM}`,
    "keep_environment = LD_LIBRARY_PATH",
    `exim_user = ${EXIM_USER}`,
    `exim_group = ${EXIM_USER}`,
    `spool_directory = ${dir}/spool`,
    `log_file_path = ${dir}/log/%slog`,
    `pid_file_path = ${dir}/exim.pid`,
    `daemon_smtp_ports = ${port}`,
    `local_interfaces = ${HOST}`,
    "primary_hostname = relay.mailvolley.invalid",
    "qualify_domain = mailvolley.invalid",
    "acl_smtp_rcpt = acl_check_rcpt",
    "host_lookup =",
    "dsn_advertise_hosts = *",
    "chunking_advertise_hosts = *",
    "tls_advertise_hosts =",
    // Deliver at once however many messages a connection brings (the default queues after 10).
    "smtp_accept_queue_per_connection = 0",
    "smtp_accept_max = 100",
    "remote_max_parallel = 10",
    ...(o.extra ?? []),
    "begin acl",
    "acl_check_rcpt:",
    `  accept hosts = ${HOST}`,
    "  deny",
    "begin routers",
    ...(o.routers ?? []),
    // Everything, its own bounces included, to the receiver; no DNS (the tests are offline).
    "to_receiver:",
    "  driver = manualroute",
    "  domains = *",
    `  route_list = * ${HOST} byname`,
    "  transport = to_receiver",
    "  self = send",
    "  no_more",
    "begin transports",
    "to_receiver:",
    "  driver = smtp",
    `  port = ${o.receiverPort}`,
    "  hosts_try_chunking = *",
    "  hosts_avoid_tls = *",
    "begin retry",
    // Retries within seconds, not minutes: the daemon's queue runner comes every second.
    "* * F,1h,1s",
  ].join("\n")}\n`;
}

export async function startEximRelay(o: EximOptions): Promise<EximPeer> {
  const dir = mkdtempSync(join(tmpdir(), "mailvolley-exim-"));
  // mkdtemp makes it 0700; Exim delivers and logs as its own user, who must reach spool/ and log/.
  chmodSync(dir, 0o755);
  const uid = Number(spawnSync("id", ["-u", EXIM_USER], { encoding: "utf8" }).stdout.trim());
  const gid = Number(spawnSync("id", ["-g", EXIM_USER], { encoding: "utf8" }).stdout.trim());
  for (const sub of ["spool", "log"]) {
    mkdirSync(join(dir, sub));
    chownSync(join(dir, sub), uid, gid);
  }
  const port = await freePort();
  const conf = join(dir, "exim.conf");
  writeFileSync(conf, config(dir, port, o));
  const child: ChildProcess = spawn(EXIM, ["-C", conf, "-bdf", "-q1s"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LD_LIBRARY_PATH: LIBS },
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  const mainlog = join(dir, "log", "mainlog");
  const log = () => (existsSync(mainlog) ? readFileSync(mainlog, "latin1") : "");
  const halt = async () => {
    child.kill("SIGTERM");
    await waitExit(child, 10_000);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  while (!(await quitProbe(port, HOST, 2000))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const why = `${stderr}${log()}`.trim().split("\n").slice(-5).join("\n");
      await halt();
      throw new Error(`exim did not start on port ${port}: ${why}`);
    }
    await sleep(50);
  }
  return { host: HOST, port, log, stop: once(halt) };
}
