/**
 * Nothing written half-way: every output path (run, compare, probe, merge, report, sink) is
 * checked before any traffic without being created, written whole through a temporary file and
 * a rename, and a write that fails is one line naming the option, never a node:fs stack trace.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { checkOutputPath, writeWhole } from "../src/cli/output.js";
import { mailvolley } from "./helpers/cli.js";
import { startScriptedServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-outputs-");

/** One line on stderr, naming `option`, no stack trace. */
function oneLine(stderr: string, pattern: RegExp): void {
  assert.equal(stderr.trimEnd().split("\n").length, 1, `more than one line: ${stderr}`);
  assert.match(stderr, pattern);
  assert.doesNotMatch(stderr, /\n\s+at |node:fs/);
}

describe("bad input leaves no file behind", () => {
  const cases: [string, string[], RegExp][] = [
    ["a bad threshold", ["--threshold", "garbage"], /--threshold/],
    ["a missing mbox", ["--mbox", join(dir, "missing.mbox")], /mbox/],
    ["a bad count", ["-s", "0"], /--sessions/],
  ];
  for (const [what, args, pattern] of cases) {
    test(`run --json a.json --html a.html with ${what}: exit 2, neither file made`, async () => {
      const json = join(dir, `${what.replaceAll(" ", "-")}.json`);
      const html = join(dir, `${what.replaceAll(" ", "-")}.html`);
      const out = await mailvolley(["run", "-m", "10", "--json", json, "--html", html, ...args]);
      assert.equal(out.code, 2, out.stderr);
      oneLine(out.stderr, pattern);
      assert.equal(existsSync(json), false, "--json made before the input was valid");
      assert.equal(existsSync(html), false, "--html made before the input was valid");
    });
  }
});

describe("an output path that cannot be written: one line naming the option", () => {
  const notADir = join(dir, "plain-file");
  writeFileSync(notADir, "x");
  const bad = [join(dir, "no-such-dir", "out.json"), join(notADir, "out.json"), dir];
  for (const path of bad) {
    test(`checked before traffic, nothing created: ${path}`, async () => {
      const server = await startScriptedServer({});
      try {
        const target = `127.0.0.1:${server.port}`;
        for (const args of [
          ["run", target, "-m", "5", "--json", path],
          ["run", target, "-m", "5", "--html", path],
          ["compare", target, "-m", "5", "--json", path],
          ["probe", target, "--probe", "connection-rate", "--max", "2", "--json", path],
        ]) {
          const out = await mailvolley(args);
          assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
          oneLine(out.stderr, new RegExp(`${args.at(-2)}: cannot write`));
        }
        assert.equal(server.connections.length, 0, "no traffic before the check");
      } finally {
        await server.close();
      }
    });
  }

  test("merge, report and sink check theirs before reading or listening", async () => {
    const path = join(dir, "no-such-dir", "out.json");
    for (const args of [
      ["merge", "a.json", "b.json", "--json", path],
      ["report", "a.json", "--html", path],
      ["sink", "--listen", "127.0.0.1:0", "--json", path],
    ]) {
      const out = await mailvolley(args);
      assert.equal(out.code, 2, `${args.join(" ")}: ${out.stderr}`);
      oneLine(out.stderr, /--(json|html): cannot write .*ENOENT/);
    }
  });

  test("run --json /dev/full: the run goes, then one line and exit 1", async (t) => {
    if (!existsSync("/dev/full")) return t.skip("no /dev/full on this system");
    const out = await mailvolley(["run", "-m", "5", "-q", "--json", "/dev/full"]);
    assert.equal(out.code, 1, out.stderr);
    oneLine(out.stderr, /^mailvolley: --json: cannot write "\/dev\/full" \(ENOSPC\)/);
  });

  test("sink --json /dev/full: one line and exit 1 after the count", async (t) => {
    if (!existsSync("/dev/full")) return t.skip("no /dev/full on this system");
    const out = await mailvolley([
      "sink",
      "--listen",
      "127.0.0.1:0",
      "-q",
      "--idle-exit",
      "1ms",
      "--json",
      "/dev/full",
    ]);
    assert.equal(out.code, 1, out.stderr);
    oneLine(out.stderr, /--json: cannot write "\/dev\/full" \(ENOSPC\)/);
  });
});

describe("outputs compared as the files they name, before traffic", () => {
  /** A fresh directory for one case. */
  const fresh = (() => {
    let n = 0;
    return () => {
      const sub = join(dir, `same-${n++}`);
      mkdirSync(sub);
      return sub;
    };
  })();
  const cases: [string, (sub: string) => [string, string]][] = [
    [
      "a symlink to the other output, not yet written",
      (sub) => {
        symlinkSync("a.json", join(sub, "l.json"));
        return [join(sub, "a.json"), join(sub, "l.json")];
      },
    ],
    [
      "a symlink to the other output, already there",
      (sub) => {
        writeFileSync(join(sub, "a.json"), "old\n");
        symlinkSync(join(sub, "a.json"), join(sub, "l.json"));
        return [join(sub, "a.json"), join(sub, "l.json")];
      },
    ],
    [
      "a hard link to the other output",
      (sub) => {
        writeFileSync(join(sub, "a.json"), "old\n");
        linkSync(join(sub, "a.json"), join(sub, "h.json"));
        return [join(sub, "a.json"), join(sub, "h.json")];
      },
    ],
    [
      "one name through a symlinked directory",
      (sub) => {
        mkdirSync(join(sub, "d"));
        symlinkSync("d", join(sub, "e"));
        return [join(sub, "d", "r.json"), join(sub, "e", "r.json")];
      },
    ],
  ];
  for (const [what, make] of cases) {
    test(`--json and --html on ${what}: exit 2, no traffic, nothing written`, async () => {
      const sub = fresh();
      const [json, html] = make(sub);
      const before = readdirSync(sub, { recursive: true }).sort();
      const server = await startScriptedServer({});
      try {
        const target = `127.0.0.1:${server.port}`;
        const out = await mailvolley(["run", target, "-m", "5", "--json", json, "--html", html]);
        assert.equal(out.code, 2, out.stderr);
        oneLine(
          out.stderr,
          /^mailvolley: --html: --json already writes ".*" \(the same file\); give each output its own file$/m,
        );
        assert.equal(server.connections.length, 0, "no traffic before the check");
      } finally {
        await server.close();
      }
      assert.deepEqual(readdirSync(sub, { recursive: true }).sort(), before);
    });
  }

  test("a symlink into a missing directory: exit 2 before traffic", async () => {
    const sub = fresh();
    const link = join(sub, "m.json");
    symlinkSync(join(sub, "missing", "r.json"), link);
    const server = await startScriptedServer({});
    try {
      const out = await mailvolley(["run", `127.0.0.1:${server.port}`, "-m", "5", "--json", link]);
      assert.equal(out.code, 2, out.stderr);
      oneLine(out.stderr, /^mailvolley: --json: cannot write ".*m\.json" \(ENOENT\)/);
      assert.equal(server.connections.length, 0, "no traffic before the check");
    } finally {
      await server.close();
    }
  });
});

describe("written whole", () => {
  test("a new file appears complete, with no temporary file left beside it", async () => {
    const sub = join(dir, "whole");
    mkdirSync(sub);
    const file = join(sub, "r.json");
    const out = await mailvolley(["run", "-m", "5", "-q", "--json", file]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(readFileSync(file, "utf8")).messages.accepted, 5);
    assert.deepEqual(readdirSync(sub), ["r.json"]);
  });

  test("an existing file is replaced, keeping its mode; a symlink keeps pointing at it", () => {
    const sub = join(dir, "replace");
    mkdirSync(sub);
    const file = join(sub, "old.json");
    writeFileSync(file, "old content that is longer than the new one\n");
    chmodSync(file, 0o640);
    const link = join(sub, "link.json");
    symlinkSync(file, link);
    checkOutputPath("--json", link);
    writeWhole(link, "new\n");
    assert.equal(readFileSync(file, "utf8"), "new\n");
    assert.equal(statSync(file).mode & 0o777, 0o640);
    assert.ok(lstatSync(link).isSymbolicLink(), "the link is not replaced by a file");
    assert.deepEqual(readdirSync(sub).sort(), ["link.json", "old.json"]);
  });

  test("a dangling symlink: its target is created, the link stays a link", async () => {
    const sub = join(dir, "dangling");
    mkdirSync(sub);
    const link = join(sub, "link.json");
    symlinkSync("target.json", link); // relative: resolved from the link's directory
    const out = await mailvolley(["run", "-s", "1", "-m", "2", "-q", "--json", link]);
    assert.equal(out.code, 0, out.stderr);
    assert.ok(lstatSync(link).isSymbolicLink(), "the link is not replaced by a file");
    assert.equal(JSON.parse(readFileSync(join(sub, "target.json"), "utf8")).messages.accepted, 2);
  });

  test("a file in a directory where none can be created is written in place", (t) => {
    const sub = join(dir, "immutable");
    mkdirSync(sub);
    const file = join(sub, "kept.json");
    writeFileSync(file, "old\n");
    try {
      execFileSync("chattr", ["+i", sub], { stdio: "ignore" }); // even root may not create here
    } catch {
      return t.skip("chattr +i not available here");
    }
    try {
      assert.throws(() => checkOutputPath("--json", join(sub, "new.json")), /--json: cannot write/);
      checkOutputPath("--json", file);
      writeWhole(file, "new\n");
      assert.equal(readFileSync(file, "utf8"), "new\n");
    } finally {
      execFileSync("chattr", ["-i", sub]);
    }
  });

  test("checking a path creates nothing; a directory is no file", () => {
    const file = join(dir, "checked.json");
    checkOutputPath("--json", file);
    assert.equal(existsSync(file), false);
    assert.throws(() => checkOutputPath("--html", dir), /--html: cannot write .*EISDIR/);
    checkOutputPath("--json", "-");
    checkOutputPath("--json", "/dev/null");
  });
});
