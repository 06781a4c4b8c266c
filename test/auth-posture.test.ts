/**
 * AUTH posture (issue 17 item 8): the password can stay out of argv (--auth-file, or the
 * MAILVOLLEY_AUTH environment variable), AUTH over plaintext is warned about once, and --help
 * says why --tls-verify is off by default.
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parseTarget } from "../src/config/parse.js";
import { parseSecurity, plaintextAuthWarning } from "../src/config/security.js";
import { fillSinkOptions } from "../src/config/sink-config.js";
import type { Result } from "../src/result/result.js";
import { startSink } from "../src/sink/index.js";
import { mailvolley } from "./helpers/cli.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-auth-");
const authFile = join(dir, "auth");
writeFileSync(authFile, "alice:s3cret:with:colons\nignored second line\n", { mode: 0o600 });

describe("credentials outside argv", () => {
  test("--auth-file reads user:password from its first line", () => {
    const settings = parseSecurity({ authFile }, {});
    assert.deepEqual(settings.auth, { user: "alice", pass: "s3cret:with:colons", mechanism: null });
  });

  test("MAILVOLLEY_AUTH is used when neither --auth nor --auth-file is given", () => {
    assert.equal(parseSecurity({}, { MAILVOLLEY_AUTH: "bob:pw" }).auth?.user, "bob");
    assert.equal(
      parseSecurity({ auth: "carol:pw" }, { MAILVOLLEY_AUTH: "bob:pw" }).auth?.user,
      "carol",
    );
    assert.equal(parseSecurity({}, {}).auth, null);
  });

  test("bad credentials name their source and never echo a secret from a file or env", () => {
    assert.throws(() => parseSecurity({ auth: "a:b", authFile }, {}), /--auth-file: give either/);
    assert.throws(
      () => parseSecurity({ authFile: join(dir, "missing") }, {}),
      /--auth-file "[^"]*missing": no such file; check the path of the file of user:password/,
    );
    const noColon = join(dir, "no-colon");
    writeFileSync(noColon, "topsecret\n");
    assert.throws(
      () => parseSecurity({ authFile: noColon }, {}),
      (error: Error) =>
        /--auth-file: its first line is not user:password/.test(error.message) &&
        !error.message.includes("topsecret"),
    );
    assert.throws(
      () => parseSecurity({}, { MAILVOLLEY_AUTH: "topsecret" }),
      (error: Error) =>
        /MAILVOLLEY_AUTH: its value/.test(error.message) && !error.message.includes("topsecret"),
    );
  });
});

describe("AUTH over plaintext", () => {
  test("warned for TCP without TLS; not with TLS, a unix socket or a self-test", () => {
    const auth = parseSecurity({ auth: "a:b" }, {});
    const tcp = parseTarget("target", "mx.example.com:25");
    assert.match(plaintextAuthWarning(auth, tcp) ?? "", /plaintext.*--starttls/);
    assert.equal(
      plaintextAuthWarning(parseSecurity({ auth: "a:b", starttls: true }, {}), tcp),
      null,
    );
    assert.equal(plaintextAuthWarning(auth, parseTarget("target", "unix:/tmp/s")), null);
    assert.equal(plaintextAuthWarning(auth, null), null);
    assert.equal(plaintextAuthWarning(parseSecurity({}, {}), tcp), null);
  });

  test("a run with --auth-file: the password is not in argv, the warning is printed once", async () => {
    const sink = await startSink(
      fillSinkOptions({
        listen: ["127.0.0.1:0"],
        starttls: false,
        auth: "alice:s3cret:with:colons",
      }),
    );
    try {
      const target = `127.0.0.1:${sink.addresses[0].port}`;
      const out = await mailvolley([
        "run",
        target,
        "--auth-file",
        authFile,
        "-m",
        "3",
        "-s",
        "2",
        "--workers",
        "1",
        "--json",
        "-",
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.equal((JSON.parse(out.stdout) as Result).messages.accepted, 3);
      assert.equal(out.stderr.match(/AUTH goes over plaintext/g)?.length, 1, out.stderr);
      assert.doesNotMatch(out.stdout + out.stderr, /s3cret/);
    } finally {
      await sink.close();
    }
  });
});

test("--help says --tls-verify is off by default, and why", async () => {
  const out = await mailvolley(["run", "--help"]);
  assert.match(
    out.stdout.replace(/\s+/g, " "),
    /--tls-verify Check the server certificate and name\. Off by default: test gateways mostly have self-signed certificates/,
  );
});
