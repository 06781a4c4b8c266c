/**
 * The help of every command as a user reads it: every option says what it takes, a default is
 * written one way, each group holds its options, and no line is wider than the terminal.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { describe, test } from "node:test";
import { BIN, mailvolley } from "./helpers/cli.js";
import { requirePeer } from "./helpers/peer.js";

const COMMANDS = ["run", "compare", "sink", "probe", "report", "merge", "kubernetes"];

/** The option entries of a help text: an entry's first line and its wrapped continuation. */
function optionEntries(help: string): string[] {
  const entries: string[] = [];
  for (const line of help.split("\n")) {
    // yargs starts an option at column 2 ("-s, --sessions") or 6 ("--rate"); its wrapped
    // description continues further in, where a line may start with a flag it names.
    if (/^( {2}(-\w, )+| {6})--[\w-]+/.test(line)) entries.push(line.trim());
    else if (/^\s{6,}\S/.test(line) && entries.at(-1))
      entries[entries.length - 1] += ` ${line.trim()}`;
    else if (line.trim() === "" || /^\S/.test(line)) entries.push("");
  }
  return entries.filter((entry) => entry !== "");
}

/** The help under a pseudo-terminal `columns` wide (util-linux `script`). */
function helpOnTerminal(command: string, columns: number): string {
  const line = `stty cols ${columns}; '${process.execPath}' '${BIN}' ${command} --help`;
  const out = spawnSync("/usr/bin/script", ["-qec", line, "/dev/null"], { encoding: "utf8" });
  return out.stdout.replaceAll("\r", "");
}

function haveScript(): boolean {
  try {
    accessSync("/usr/bin/script", constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

describe("--help", () => {
  for (const command of COMMANDS) {
    test(`${command} --help: every option names its type, defaults are on/off for flags`, async () => {
      const out = await mailvolley([command, "--help"]);
      assert.equal(out.code, 0, out.stderr);
      const untyped = optionEntries(out.stdout).filter(
        (entry) => !/\[(?!default:)[^\]]+\]/.test(entry) && !/^--(help|version)\b/.test(entry),
      );
      assert.deepEqual(untyped, [], "options without a type");
      assert.doesNotMatch(out.stdout, /\[default: (true|false|offered)\]/);
      const wide = out.stdout.split("\n").filter((line) => [...line].length > 100);
      assert.deepEqual(wide, [], "piped, the help is 100 columns wide");
    });
  }

  test("no line of any help is wider than a 60-column terminal", (t) => {
    if (!requirePeer(t, "util-linux script", haveScript(), "apt-get install bsdutils")) return;
    for (const command of COMMANDS) {
      const help = helpOnTerminal(command, 60);
      assert.match(help, /--help/);
      const wide = help.split("\n").filter((line) => [...line].length > 60);
      assert.deepEqual(wide, [], `${command} --help at 60 columns`);
    }
  });

  test("run --help: --json under Reports, and --sink-tls-resume names the sink's own flag", async () => {
    const out = await mailvolley(["run", "--help"]);
    const reports = out.stdout.split("\n\n").find((group) => group.startsWith("Reports:"));
    assert.match(reports ?? "", /^\s+--json\s/m);
    assert.match(reports ?? "", /^\s+--html\s/m);
    const sinkTls = optionEntries(out.stdout).find((entry) =>
      entry.startsWith("--sink-tls-resume"),
    );
    assert.match(sinkTls ?? "", /--no-sink-tls-resume: a full handshake every time/);
    assert.doesNotMatch(sinkTls ?? "", /--no-tls-resume/);
  });
});
