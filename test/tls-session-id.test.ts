/**
 * The built-in sink resumes TLS 1.2 sessions by session ID (RFC 5246 §7.3) as well as from
 * tickets, for clients that take no tickets; `sink --no-tls-resume` resumes neither. The client
 * is OpenSSL's own s_client, told to refuse tickets (-no_ticket) and to offer the session of its
 * previous connection (-sess_out, -sess_in): an independent TLS stack, with nothing of
 * mailvolley's client in it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startMailvolley } from "./helpers/cli.js";
import { executable, requirePeer } from "./helpers/peer.js";
import { tempDir } from "./helpers/tmp.js";

const OPENSSL = "/usr/bin/openssl";

/**
 * One s_client connection, STARTTLS (`starttls`) or TLS from the first byte, TLS 1.2 without
 * tickets; it writes its session to `file` and offers the one there when `offer`. Returns what
 * s_client says of the handshake: "New" or "Reused".
 */
function sClient(port: number, starttls: boolean, file: string, offer: boolean): Promise<string> {
  const args = ["s_client", "-connect", `127.0.0.1:${port}`, "-tls1_2", "-no_ticket", "-crlf"];
  if (starttls) args.push("-starttls", "smtp");
  args.push("-sess_out", file, ...(offer ? ["-sess_in", file] : []));
  return new Promise((resolve, reject) => {
    const child = spawn(OPENSSL, args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    child.stderr.resume();
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      const kind = /^(New|Reused), TLSv1\.2,/m.exec(out);
      if (kind) resolve(kind[1]);
      else reject(new Error(`openssl s_client ${args.join(" ")}: no handshake in\n${out}`));
    });
    // The session's only command: s_client sends it once the handshake is done.
    child.stdin.end("QUIT\n");
  });
}

/** `mailvolley sink` on a STARTTLS and an implicit-TLS port; ends after `sessions` sessions. */
async function startCliSink(sessions: number, flags: string[]) {
  const args = ["sink", "--listen", "127.0.0.1:0", "--listen", "tls://127.0.0.1:0"];
  args.push("--exit-after-sessions", String(sessions), "--json", "-", ...flags);
  const sink = startMailvolley(args);
  const ports = await new Promise<number[]>((resolve, reject) => {
    let stderr = "";
    sink.child.stderr?.on("data", (d: string) => {
      stderr += d;
      const m = /listening on 127\.0\.0\.1:(\d+), 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolve([Number(m[1]), Number(m[2])]);
    });
    sink.done.then(() => reject(new Error(`sink exited early: ${stderr}`)));
  });
  return { ports, done: sink.done };
}

describe("built-in sink, TLS 1.2 session IDs", () => {
  test("a client without tickets resumes by session ID; --no-tls-resume resumes none", async (t) => {
    if (!requirePeer(t, "openssl", executable(OPENSSL), "apt-get install openssl")) return;
    const dir = tempDir("mailvolley-tls-id-");
    for (const [flags, later] of [
      [[], "Reused"],
      [["--no-tls-resume"], "New"],
    ] as const) {
      const connections = 3;
      const sink = await startCliSink(2 * connections, [...flags]);
      const seen: string[] = [];
      for (const [i, port] of sink.ports.entries()) {
        const file = join(dir, `session-${flags.length}-${i}.pem`);
        for (let c = 0; c < connections; c++) seen.push(await sClient(port, i === 0, file, c > 0));
      }
      const kinds = ["New", later, later];
      assert.deepEqual(seen, [...kinds, ...kinds], `sink ${flags.join(" ")}`);
      const out = await sink.done;
      assert.equal(out.code, 0, out.stderr);
      const resumed = later === "Reused" ? 2 * (connections - 1) : 0;
      const full = 2 * connections - resumed;
      assert.match(out.stdout, new RegExp(`TLS handshakes full ${full}  resumed ${resumed}`));
      const json = JSON.parse(out.stdout.slice(out.stdout.indexOf("{")));
      assert.deepEqual(json.tls, { full, resumed });
    }
  });
});
