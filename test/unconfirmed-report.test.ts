/**
 * The words that explain unconfirmed messages (sent whole, no final reply), in the terminal and
 * the HTML that `mailvolley report` writes: against a self-test's sink, against what came out of
 * the gateway (--receive), and alone; and the Sink count line's verdict on the range.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { unconfirmedLine } from "../src/report/accounting.js";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { fixedResult } from "./helpers/fixed-result.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-unconfirmed-");

/** The fixed reuse result with 12 of its accepted messages unconfirmed instead. */
function unconfirmedResult(change: (r: Result) => void = () => {}): Result {
  const r = JSON.parse(JSON.stringify(fixedResult("reuse"))) as Result;
  r.messages.accepted -= 12;
  r.messages.unconfirmed = 12;
  change(r);
  return r;
}

/** `report FILE` and `report FILE --html`: the terminal text and the page, through the bin. */
async function reports(name: string, result: Result): Promise<{ text: string; html: string }> {
  const json = join(dir, `${name}.json`);
  const page = join(dir, `${name}.html`);
  writeFileSync(json, JSON.stringify(result));
  const { code, stdout, stderr } = await mailvolley(["report", json, "--no-color"]);
  assert.equal(code, 0, stderr);
  const html = await mailvolley(["report", json, "--html", page, "-q"]);
  assert.equal(html.code, 0, html.stderr);
  return { text: stdout, html: readFileSync(page, "utf8") };
}

/** The line of the terminal summary that starts with `label`. */
function line(text: string, label: string): string {
  return text.split("\n").find((l) => l.startsWith(label)) ?? `(no ${label} line)`;
}

describe("unconfirmed messages in words", () => {
  test("a self-test: how many of them the sink took, and the sink count within the range", async () => {
    const { text, html } = await reports(
      "sink",
      unconfirmedResult((r) => {
        r.target = "embedded-sink";
        r.sink = { messagesAccepted: 388, sessions: 4 };
      }),
    );
    assert.match(line(text, "Messages"), /failed 0 {3}unconfirmed 12$/);
    assert.equal(
      line(text, "Unconfirmed"),
      "Unconfirmed   12 unconfirmed: the sink accepted 10 of them",
    );
    assert.match(
      line(text, "Sink count"),
      /accepted 388 {3}sessions 4 {3}within the client's 378 accepted \+ 12 unconfirmed/,
    );
    assert.match(
      html,
      /<p class="unconfirmed">Unconfirmed — 12 unconfirmed: the sink accepted 10 of them<\/p>/,
    );
    assert.match(html, /data-field="messages\.unconfirmed" data-value="12"/);
  });

  test("a sink outside the range DIFFERS, and the line says so", async () => {
    const { text, html } = await reports(
      "differs",
      unconfirmedResult((r) => {
        r.target = "embedded-sink";
        r.sink = { messagesAccepted: 395, sessions: 4 };
      }),
    );
    assert.match(line(text, "Sink count"), /DIFFERS from the client's 378 accepted/);
    const words = "12 unconfirmed, yet the sink accepted 395 against the client's 378: they differ";
    assert.equal(line(text, "Unconfirmed"), `Unconfirmed   ${words}`);
    assert.ok(html.includes(`Unconfirmed — ${words.replace("'", "&#39;")}`), "in the HTML");
  });

  test("through a gateway (--receive): how many of them came out of it", () => {
    // The same line the terminal and HTML print (as above); the join counts an arrival the
    // client never saw accepted in delivery.unconfirmed.
    const result = unconfirmedResult((r) => {
      r.delivery = { unconfirmed: 10 } as Result["delivery"];
    });
    assert.equal(unconfirmedLine(result), "12 unconfirmed: 10 of them came out of the gateway");
  });

  test("without a sink or a receiver: what they are", async () => {
    const { text, html } = await reports("alone", unconfirmedResult());
    const words =
      "12 unconfirmed: sent in full, but no final reply came; the server may have taken them";
    assert.equal(line(text, "Unconfirmed"), `Unconfirmed   ${words}`);
    assert.ok(html.includes(`Unconfirmed — ${words}`));
  });

  test("a self-test whose sink holds replies past the timeout: its count waits, and agrees", async () => {
    const json = join(dir, "self-test.json");
    const args = ["run", "--chunking", "-m", "24", "-s", "2", "--timeout", "300ms"];
    args.push("--sink-fault", "mail:ok:delay=800ms:every=5", "--json", json, "--no-color");
    const { code, stdout, stderr } = await mailvolley(args);
    assert.equal(code, 1, stderr); // not every message was accepted
    const r = JSON.parse(readFileSync(json, "utf8")) as Result;
    const unconfirmed = r.messages.unconfirmed ?? 0;
    const sink = r.sink?.messagesAccepted ?? -1;
    const counts = `${JSON.stringify(r.messages)}, sink ${sink}`;
    assert.ok(unconfirmed > 0, `the window behind each held reply is unconfirmed: ${counts}`);
    assert.ok(r.messages.accepted <= sink && sink <= r.messages.accepted + unconfirmed, counts);
    const took = sink - r.messages.accepted;
    assert.equal(
      line(stdout, "Unconfirmed"),
      `Unconfirmed   ${unconfirmed} unconfirmed: the sink accepted ${took} of them`,
    );
    const verdict = took === 0 ? "equals the client's" : "within the client's";
    assert.match(line(stdout, "Sink count"), new RegExp(verdict));
  });

  test("none unconfirmed: no line, and the count reads 0", async () => {
    const { text, html } = await reports("none", fixedResult("reuse"));
    assert.equal(line(text, "Unconfirmed"), "(no Unconfirmed line)");
    assert.match(line(text, "Messages"), /unconfirmed 0$/);
    assert.doesNotMatch(html, /class="unconfirmed"/);
  });
});
