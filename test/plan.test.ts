/**
 * Plans, message classes with exact shares, message files and address lists, as the server
 * receives them.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadPlan } from "../src/config/plan.js";
import { classCycle } from "../src/messages/cycle.js";
import type { Result } from "../src/result/result.js";
import { mailvolley } from "./helpers/cli.js";
import { runClient } from "./helpers/run-client.js";
import { type ScriptedServer, startScriptedServer } from "./helpers/scripted-server.js";
import { tempDir } from "./helpers/tmp.js";

const dir = tempDir("mailvolley-plan-");
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function headerOf(content: Buffer, name: string): string | undefined {
  const text = content.toString("latin1");
  const match = new RegExp(`^${name}: (.*)\\r$`, "im").exec(
    text.slice(0, text.indexOf("\r\n\r\n") + 2),
  );
  return match?.[1];
}

function countBy(server: ScriptedServer, header: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const conn of server.connections) {
    for (const message of conn.messages) {
      const value = headerOf(message, header) ?? "(none)";
      counts[value] = (counts[value] ?? 0) + 1;
    }
  }
  return counts;
}

describe("class shares", () => {
  test("60/15/10/10/5 over 10,000 messages are exact", () => {
    const cycle = classCycle([60, 15, 10, 10, 5]);
    const counts = [0, 0, 0, 0, 0];
    for (let seq = 0; seq < 10_000; seq++) counts[cycle[seq % cycle.length]]++;
    assert.deepEqual(counts, [6000, 1500, 1000, 1000, 500]);
  });

  test("shares are spread evenly, not in blocks", () => {
    const cycle = classCycle([1, 1]);
    assert.deepEqual([...cycle], [0, 1]);
    const thirds = classCycle([2, 1]);
    assert.deepEqual([...thirds], [0, 1, 0]);
    const decimals = classCycle([33.33, 66.67]);
    assert.equal(decimals.length, 10_000);
  });
});

describe("plan files", () => {
  test("vars, --set and classes", () => {
    const path = file(
      "plan.yaml",
      [
        "vars:",
        "  gateway: 127.0.0.1:2525",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the plan's own ${var} syntax
        "target: ${gateway}",
        "sessions: 4",
        "ramp-up: 2s",
        "classes:",
        "  - { name: standard, share: 60, subject: LOADTEST standard }",
        "  - { name: sec, share: 40, subject: LOADTEST (sec), headers: { X-Sec: yes }, recipients: 2 }",
      ].join("\n"),
    );
    const plan = loadPlan(path, ["gateway=[::1]:25", "sessions=7"]);
    assert.equal(plan.options.target, "[::1]:25");
    assert.equal(plan.options.sessions, "7");
    assert.equal(plan.options.rampUp, "2s");
    assert.equal(plan.classes.length, 2);
    assert.deepEqual(plan.classes[1].headers, [["X-Sec", "yes"]]);
    assert.equal(plan.classes[1].recipients, 2);
    assert.equal(plan.where.rampUp, `${path}:5`);
  });

  test("JSON plans work too", () => {
    const path = file(
      "plan.json",
      JSON.stringify({ sessions: 2, classes: [{ name: "a", share: 1 }] }),
    );
    const plan = loadPlan(path, []);
    assert.equal(plan.options.sessions, 2);
    assert.equal(plan.classes[0].name, "a");
  });

  const bad: [string, string, RegExp][] = [
    [
      "unknown class field",
      "classes:\n  - { name: a, share: 1, colour: red }\n",
      /:2: class field "colour"/,
    ],
    ["bad share", "classes:\n  - { name: a, share: -1 }\n", /:2: share of "a"/],
    [
      "duplicate class",
      "classes:\n  - { name: a, share: 1 }\n  - { name: a, share: 2 }\n",
      /:3: class "a" is named twice/,
    ],
    [
      "unknown variable",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the plan's own ${var} syntax
      "sessions: 2\ntarget: ${nowhere}\n",
      /:2: unknown variable \$\{nowhere\}/,
    ],
    ["YAML syntax", "sessions: [1\n", /\.yaml:\d+: /],
    [
      "two sources",
      "classes:\n  - { name: a, share: 1, eml: x, mbox: y }\n",
      /one of eml, emlDir, mbox, template/,
    ],
  ];
  for (const [what, text, pattern] of bad) {
    test(`error: ${what} names the file and line`, () => {
      const path = file(`bad-${what.replace(/\W/g, "-")}.yaml`, text);
      assert.throws(() => loadPlan(path, []), pattern);
    });
  }
});

describe("plans on the command line", () => {
  test("a plan may hold thresholds and sink emulation; compare ignores its mode", async () => {
    const path = file(
      "compare.yaml",
      [
        "sessions: 2",
        "messages: 60",
        "mode: reuse",
        "pause: 0s",
        "sink-max-connection-rate: 10/60s",
        "threshold: ['error_rate<50%']",
      ].join("\n"),
    );
    const out = await mailvolley(["compare", "--plan", path, "--json", "-", "-q"]);
    assert.equal(out.code, 99, out.stderr);
    assert.match(out.stderr, /threshold breached: per-message: error_rate<50%/);
    const runs = (JSON.parse(out.stdout) as { runs: { mode: string }[] }).runs;
    assert.deepEqual(
      runs.map((r) => r.mode),
      ["per-message", "reuse"],
    );
  });

  test("the command line wins over --set, which wins over the plan", async () => {
    const path = file("layers.yaml", "sessions: 3\nmessages: 30\nworkers: 1\n");
    const out = await mailvolley([
      "run",
      "--plan",
      path,
      "--set",
      "messages=20",
      "-s",
      "2",
      "--json",
      "-",
      "-q",
    ]);
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(out.stdout) as Result;
    assert.equal(result.sessions, 2);
    assert.equal(result.messages.attempted, 20);
  });
});

describe("classes and files on the wire", () => {
  test("every message carries its class; counts per class are exact at the server", async () => {
    const server = await startScriptedServer({});
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 3,
        messages: 200,
        classes: [
          { name: "bulk", share: 3, headers: [], subject: "bulk mail" },
          { name: "vip", share: 1, headers: [["X-Vip", "1"]], recipients: 2 },
        ],
      });
      assert.equal(result.messages.accepted, 200);
      assert.deepEqual(countBy(server, "X-Mailvolley-Class"), { bulk: 150, vip: 50 });
      assert.deepEqual(countBy(server, "X-Vip"), { "1": 50, "(none)": 150 });
      assert.equal(result.recipients.attempted, 150 + 2 * 50);
      const rows = Object.fromEntries(result.classes.map((c) => [c.name, c]));
      assert.equal(rows.bulk.accepted, 150);
      assert.equal(rows.vip.accepted, 50);
      // Per-class phase histograms: every message's envelope and data phase, in its class.
      assert.equal(rows.bulk.envelopeMs?.count, 150);
      assert.equal(rows.vip.dataMs?.count, 50);
      assert.equal(result.latency.envelopeMs.count, 200);
    } finally {
      await server.close();
    }
  });

  test("an mbox of N messages arrives as N messages with their subjects, in order", async () => {
    const mbox = file(
      "list.mbox",
      [1, 2, 3]
        .map(
          (n) =>
            `From list@example.org Thu Jan  1 00:00:0${n} 2026\nSubject: post ${n}\n\n.dot line\n>From quoted\n`,
        )
        .join("\n"),
    );
    const server = await startScriptedServer({});
    try {
      const result = await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 3,
        mbox,
      });
      assert.equal(result.messages.accepted, 3);
      const messages = server.connections[0].messages;
      assert.deepEqual(
        messages.map((m) => headerOf(m, "Subject")),
        ["post 1", "post 2", "post 3"],
      );
      const text = messages[0].toString("latin1");
      assert.ok(text.startsWith("X-Mailvolley-Run: "), "trace prefix first");
      assert.ok(text.includes("\r\n..dot line\r\n"), "dot-stuffed on the wire");
      assert.ok(text.includes("\r\nFrom quoted\r\n"), "mboxo >From unescaped");
      const mail = server.connections[0].commands.find((l) => l.startsWith("MAIL")) ?? "";
      assert.doesNotMatch(mail, /SIZE=/, "no SIZE= unless the server offers SIZE");
    } finally {
      await server.close();
    }
  });

  test("SIZE= follows each file message's own size", async () => {
    const eml = file("one.eml", "Subject: one\n\nshort\n");
    const server = await startScriptedServer({ capabilities: ["PIPELINING", "SIZE 1000000"] });
    try {
      await runClient(`127.0.0.1:${server.port}`, { sessions: 1, messages: 2, file: eml });
      const conn = server.connections[0];
      const size = Number(
        /SIZE=(\d+)/.exec(conn.commands.find((l) => l.startsWith("MAIL")) ?? "")?.[1],
      );
      assert.equal(size, conn.messages[0].length);
    } finally {
      await server.close();
    }
  });

  test("address lists are used in turn; XVERP and DSN parameters when asked", async () => {
    const toFile = file("to.txt", "# recipients\nalice@example.org\nbob@example.org\n");
    const fromFile = file("from.txt", "bounce1@example.org\nbounce2@example.org\n");
    // XVERP goes only to a server that offers it (issue 16 item 10).
    const capabilities = ["PIPELINING", "8BITMIME", "ENHANCEDSTATUSCODES", "DSN", "XVERP"];
    const server = await startScriptedServer({ capabilities });
    try {
      await runClient(`127.0.0.1:${server.port}`, {
        sessions: 1,
        messages: 4,
        toFile,
        fromFile,
        xverp: true,
        dsnRet: "hdrs",
        dsnNotify: "failure,delay",
      });
      const commands = server.connections[0].commands;
      assert.deepEqual(
        commands.filter((l) => l.startsWith("RCPT")),
        [
          "RCPT TO:<alice@example.org> NOTIFY=FAILURE,DELAY",
          "RCPT TO:<bob@example.org> NOTIFY=FAILURE,DELAY",
          "RCPT TO:<alice@example.org> NOTIFY=FAILURE,DELAY",
          "RCPT TO:<bob@example.org> NOTIFY=FAILURE,DELAY",
        ],
      );
      const mails = commands.filter((l) => l.startsWith("MAIL"));
      assert.equal(mails[0], "MAIL FROM:<bounce1@example.org> XVERP RET=HDRS");
      assert.equal(mails[1], "MAIL FROM:<bounce2@example.org> XVERP RET=HDRS");
    } finally {
      await server.close();
    }
  });
});
