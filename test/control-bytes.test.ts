/**
 * No raw control byte reaches an output: a server that puts a terminal escape sequence in its
 * text (`ESC ] 0 ; X BEL` retitles an xterm) is quoted with the control characters shown as
 * `\x1b` in the terminal summary, the HTML report (also re-rendered by `report --html`) and
 * the JSON; a file whose bytes an error quotes is quoted the same way, on one line. Through the
 * built bin, against a scripted server.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { mailvolley } from "./helpers/cli.js";
import { type Script, startScriptedServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-controls-");
const TITLE = "\x1b]0;X\x07";
/** Bytes a terminal acts on: C0 controls but LF (and CR, TAB), DEL, C1 in latin-1 and UTF-8. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]/;

function assertNoRawControl(bytes: Buffer, where: string): void {
  const text = bytes.toString("latin1");
  assert.equal(bytes.indexOf(0x1b), -1, `${where} holds ESC`);
  assert.equal(bytes.indexOf(0x07), -1, `${where} holds BEL`);
  const raw = RAW.exec(text);
  assert.equal(raw, null, `${where} holds the raw byte ${JSON.stringify(raw?.[0])}`);
}

describe("a server's control characters are shown, never sent raw", () => {
  const scripts: [string, Script][] = [
    [
      "a 550 at MAIL",
      { onCommand: (line) => (line.startsWith("MAIL") ? `550 5.7.1 ${TITLE} no` : undefined) },
    ],
    ["a 550 after the dot", { onMessage: () => `550 5.7.1 ${TITLE} no` }],
    ["a 554 banner", { banner: `554 5.3.2 ${TITLE} busy` }],
    [
      "a 421 at RCPT",
      { onCommand: (l) => (l.startsWith("RCPT") ? `421 4.3.2 ${TITLE}` : undefined) },
    ],
    ["DEL and a C1 CSI in UTF-8", { onMessage: () => `550 5.7.1 a\x7fb\u009b2J no` }],
  ];
  for (const [what, script] of scripts) {
    test(`${what}: terminal, JSON, HTML and report --html`, async () => {
      const server = await startScriptedServer(script);
      const base = join(dir, what.replaceAll(" ", "-"));
      try {
        const out = await mailvolley([
          "run",
          `127.0.0.1:${server.port}`,
          "-m",
          "3",
          "-s",
          "1",
          "--json",
          `${base}.json`,
          "--html",
          `${base}.html`,
        ]);
        assert.ok(out.code !== null && out.code !== 2, out.stderr);
        assertNoRawControl(Buffer.from(out.stdout + out.stderr), "the terminal");
        assert.match(out.stdout + out.stderr, /\\x(1b|7f|9b)/);
      } finally {
        await server.close();
      }
      const html = readFileSync(`${base}.html`);
      assertNoRawControl(html, "the HTML");
      assert.match(
        html.toString("utf8"),
        /\\x(1b|7f|9b)/,
        "the control shown as the terminal shows it",
      );
      assertNoRawControl(readFileSync(`${base}.json`), "the JSON");
      const again = await mailvolley(["report", `${base}.json`, "--html", `${base}-again.html`]);
      assert.equal(again.code, 0, again.stderr);
      assertNoRawControl(Buffer.from(again.stdout + again.stderr), "report's summary");
      assertNoRawControl(readFileSync(`${base}-again.html`), "report --html");
    });
  }
});

test("report of a file that is not JSON: its bytes quoted escaped, on one line", async () => {
  const garbage = join(dir, "garbage.json");
  writeFileSync(garbage, `${TITLE}PWNED\nsecond line\n`);
  const out = await mailvolley(["report", garbage]);
  assert.equal(out.code, 2, out.stderr);
  assert.equal(out.stdout, "");
  assert.equal(out.stderr.split("\n").length, 2, `not one line: ${JSON.stringify(out.stderr)}`);
  assert.match(out.stderr, /^mailvolley: result: cannot read ".*garbage\.json": .*\\x1b/);
  assertNoRawControl(Buffer.from(out.stderr), "the error");
});
