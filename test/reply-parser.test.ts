/**
 * The reply parser fed recorded transcripts whole, one byte at a time and cut at every byte
 * (RFC 5321 §4.2: a reply may arrive split anywhere, and many replies may share one read).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  enhancedCode,
  MAX_REPLY_LINE,
  MAX_REPLY_LINES,
  ReplyParser,
} from "../src/smtp/reply-parser.js";
import {
  AIOSMTPD_SESSION,
  SMTP_SERVER_EARLY_TALK,
  SMTP_SERVER_SESSION,
  SMTP_SINK_421_BANNER,
  SMTP_SINK_PIPELINED_CHUNKS,
  SMTP_SINK_REJECT_SESSION,
  SMTP_SINK_SESSION,
} from "./helpers/transcripts.js";

interface Reply {
  code: number;
  lines: string[] | null;
}

interface Outcome {
  replies: Reply[];
  errors: string[];
}

/**
 * A read buffer shared by every read, as the client's is, left holding whole replies from
 * earlier reads: the parser must not look past the length it is given.
 */
const SHARED = Buffer.alloc(64 * 1024, "550 5.0.0 stale bytes of an earlier read\r\n");

function parse(chunks: readonly Buffer[], captureText = false, shared = false): Outcome {
  const outcome: Outcome = { replies: [], errors: [] };
  const parser = new ReplyParser({
    onReply: (code, lines) => outcome.replies.push({ code, lines }),
    onProtocolError: (reason) => outcome.errors.push(reason),
  });
  parser.keepText(captureText);
  for (const chunk of chunks) {
    if (!shared) {
      parser.push(chunk);
      continue;
    }
    chunk.copy(SHARED);
    parser.push(SHARED, chunk.length);
    SHARED.fill("550 5.0.0 stale bytes of an earlier read\r\n", 0, chunk.length);
  }
  assert.equal(parser.midReply, false, "a complete transcript leaves no partial reply");
  return outcome;
}

/**
 * The replies a transcript holds, by a deliberately different method (split into lines, group
 * until a line whose fourth character is not a hyphen).
 */
function expected(text: string, captureText: boolean): Reply[] {
  const replies: Reply[] = [];
  let lines: string[] = [];
  for (const line of text.split(/\r?\n/).slice(0, -1)) {
    lines.push(line.slice(4));
    if (line[3] === "-") continue;
    const code = Number(line.slice(0, 3));
    replies.push({ code, lines: captureText || code >= 400 ? lines : null });
    lines = [];
  }
  return replies;
}

const bytes = (text: string) => Buffer.from(text, "latin1");

function byteByByte(buf: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < buf.length; i++) chunks.push(buf.subarray(i, i + 1));
  return chunks;
}

const TRANSCRIPTS: Record<string, string> = {
  "smtp-sink session": SMTP_SINK_SESSION,
  "smtp-sink pipelined replies": SMTP_SINK_PIPELINED_CHUNKS.join(""),
  "smtp-sink rejecting RCPT": SMTP_SINK_REJECT_SESSION,
  "smtp-sink 421 banner": SMTP_SINK_421_BANNER,
  "aiosmtpd session": AIOSMTPD_SESSION,
  "smtp-server session": SMTP_SERVER_SESSION,
  "smtp-server early talk": SMTP_SERVER_EARLY_TALK,
  "bare LF line ends": SMTP_SINK_SESSION.replaceAll("\r\n", "\n"),
  "code alone and code-space lines": "220\r\n250-a\r\n250\r\n250 \r\n",
};

describe("recorded transcripts", () => {
  for (const [name, text] of Object.entries(TRANSCRIPTS)) {
    test(`${name}: whole, byte by byte, and cut at every byte, in chunks and in a shared buffer`, () => {
      const buf = bytes(text);
      for (const [capture, shared] of [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ]) {
        const want = { replies: expected(text, capture), errors: [] };
        assert.deepEqual(parse([buf], capture, shared), want);
        assert.deepEqual(parse(byteByByte(buf), capture, shared), want);
        for (let cut = 1; cut < buf.length; cut++) {
          const chunks = [buf.subarray(0, cut), buf.subarray(cut)];
          assert.deepEqual(parse(chunks, capture, shared), want, `cut at ${cut}`);
        }
      }
    });
  }

  test("smtp-sink pipelined replies, as the chunks arrived", () => {
    const outcome = parse(SMTP_SINK_PIPELINED_CHUNKS.map(bytes));
    assert.deepEqual(
      outcome.replies.map((r) => r.code),
      [250, 250, 250, 354, 250, 250, 250, 354, 250, 221],
    );
  });

  test("every three-way cut of smtp-sink's EHLO reply", () => {
    const text = SMTP_SINK_SESSION.slice(0, SMTP_SINK_SESSION.indexOf("250 \r\n") + 6);
    const buf = bytes(text);
    const want = { replies: expected(text, true), errors: [] };
    for (let a = 1; a < buf.length; a++) {
      for (let b = a; b < buf.length; b++) {
        const chunks = [buf.subarray(0, a), buf.subarray(a, b), buf.subarray(b)];
        assert.deepEqual(parse(chunks, true), want, `cuts at ${a}, ${b}`);
      }
    }
  });

  test("the empty final line of smtp-sink's EHLO is text ''", () => {
    const { replies } = parse([bytes(SMTP_SINK_SESSION)], true);
    assert.equal(replies[1].code, 250);
    assert.equal(replies[1].lines?.at(-1), "");
    assert.equal(replies[1].lines?.[0], "smtp-sink");
  });

  test("text is captured for errors only, unless captureText is set", () => {
    const { replies } = parse([bytes(SMTP_SINK_REJECT_SESSION)]);
    assert.equal(replies[0].lines, null);
    assert.deepEqual(replies[3], { code: 450, lines: ["4.3.0 Error: command failed"] });
  });
});

describe("reply text decoding", () => {
  test("UTF-8 where the octets are valid UTF-8 (SMTPUTF8, RFC 6531), whatever the chunking", () => {
    const buf = Buffer.from(
      "550-5.1.1 Empfänger unbekannt ›\r\n550 5.1.1 Пользователь\r\n",
      "utf8",
    );
    const want = ["5.1.1 Empfänger unbekannt ›", "5.1.1 Пользователь"];
    assert.deepEqual(parse([buf]).replies, [{ code: 550, lines: want }]);
    assert.deepEqual(parse(byteByByte(buf)).replies, [{ code: 550, lines: want }]);
  });

  test("latin-1 where they are not: one character per octet, never a failure", () => {
    const buf = Buffer.from([...Buffer.from("550 caf"), 0xe9, 0x20, 0x9b, 0x0d, 0x0a]);
    assert.deepEqual(parse([buf]).replies, [{ code: 550, lines: ["caf\u00e9 \u009b"] }]);
  });
});

describe("state", () => {
  test("midReply is true inside a reply and inside a line", () => {
    const parser = new ReplyParser({ onReply: () => {}, onProtocolError: () => {} });
    assert.equal(parser.midReply, false);
    parser.push(bytes("25"));
    assert.equal(parser.midReply, true);
    parser.push(bytes("0-first\r\n"));
    assert.equal(parser.midReply, true);
    parser.push(bytes("250 last\r\n"));
    assert.equal(parser.midReply, false);
  });

  test("a line of exactly MAX_REPLY_LINE octets is accepted whatever the chunking", () => {
    const line = bytes(`250 ${"x".repeat(MAX_REPLY_LINE - 4)}\r\n`);
    const crAt = line.length - 1;
    for (const chunks of [[line], [line.subarray(0, crAt), line.subarray(crAt)]]) {
      const codes: number[] = [];
      let errors = 0;
      const parser = new ReplyParser({
        onReply: (code) => codes.push(code),
        onProtocolError: () => errors++,
      });
      for (const chunk of chunks) parser.push(chunk);
      assert.deepEqual(codes, [250]);
      assert.equal(errors, 0);
    }
  });

  test("reset() inside onReply drops the rest of the chunk (RFC 3207 §5 injection)", () => {
    const codes: number[] = [];
    const parser: ReplyParser = new ReplyParser({
      onReply: (code) => {
        codes.push(code);
        if (code === 220) parser.reset();
      },
      onProtocolError: () => assert.fail("no protocol error expected"),
    });
    parser.push(bytes("220 2.0.0 Ready to start TLS\r\n250 injected\r\n"));
    assert.deepEqual(codes, [220]);
    parser.push(bytes("250 after the handshake\r\n"));
    assert.deepEqual(codes, [220, 250]);
  });

  test("reset() forgets a partial reply", () => {
    const replies: number[] = [];
    const parser = new ReplyParser({
      onReply: (code) => replies.push(code),
      onProtocolError: (reason) => assert.fail(reason),
    });
    parser.push(bytes("250-half of a reply\r\n25"));
    parser.reset();
    assert.equal(parser.midReply, false);
    parser.push(bytes("220 fresh\r\n"));
    assert.deepEqual(replies, [220]);
  });

  test("keepText is read at a reply's first line", () => {
    const got: (string[] | null)[] = [];
    const parser = new ReplyParser({
      onReply: (_code, lines) => got.push(lines),
      onProtocolError: (reason) => assert.fail(reason),
    });
    parser.push(bytes("220 banner\r\n"));
    parser.keepText(true);
    parser.push(bytes("250-mx\r\n250 PIPELINING\r\n"));
    parser.keepText(false);
    parser.push(bytes("250 2.1.0 Ok\r\n"));
    assert.deepEqual(got, [null, ["mx", "PIPELINING"], null]);
  });
});

describe("protocol errors: reported once, never thrown", () => {
  const BROKEN: Record<string, string> = {
    "not a reply": "hello there\r\n",
    "HTTP answer": "HTTP/1.1 400 Bad Request\r\n",
    "letter in the code": "2x0 ok\r\n",
    "first digit 6": "600 nope\r\n",
    "first digit 1": "150 nope\r\n",
    "second digit 6": "260 nope\r\n",
    "bad separator": "250_ok\r\n",
    "shorter than a code": "25\r\n",
    "empty line": "\r\n",
    "code changes mid-reply": "250-a\r\n251 b\r\n",
    "after a good reply": "220 ok\r\n250-a\r\nxyz\r\n",
  };
  for (const [name, text] of Object.entries(BROKEN)) {
    test(name, () => {
      for (const chunks of [[bytes(text)], byteByByte(bytes(text))]) {
        const outcome = { replies: 0, errors: [] as string[] };
        const parser = new ReplyParser({
          onReply: () => outcome.replies++,
          onProtocolError: (reason) => outcome.errors.push(reason),
        });
        for (const chunk of chunks) parser.push(chunk);
        // Anything after the failure is ignored, the failure is not reported again.
        parser.push(bytes("250 ok\r\nnonsense\r\n"));
        assert.equal(outcome.errors.length, 1, outcome.errors.join("; "));
        assert.equal(outcome.replies, text.startsWith("220 ok") ? 1 : 0);
      }
    });
  }

  function overLong(chunks: Buffer[]): string[] {
    const errors: string[] = [];
    const parser = new ReplyParser({
      onReply: () => assert.fail("no reply expected"),
      onProtocolError: (reason) => errors.push(reason),
    });
    for (const chunk of chunks) parser.push(chunk);
    parser.push(bytes("\r\n250 ok\r\n"));
    return errors;
  }

  test("an over-long line in one chunk, with or without its line end", () => {
    const line = `250 ${"x".repeat(MAX_REPLY_LINE + 10)}`;
    assert.deepEqual(overLong([bytes(`${line}\r\n`)]), ["reply line too long"]);
    assert.deepEqual(overLong([bytes(line)]), ["reply line too long"]);
  });

  test("an over-long line arriving in small pieces", () => {
    const line = bytes(`250 ${"x".repeat(MAX_REPLY_LINE + 10)}\r\n`);
    const pieces: Buffer[] = [];
    for (let i = 0; i < line.length; i += 100) pieces.push(line.subarray(i, i + 100));
    assert.deepEqual(overLong(pieces), ["reply line too long"]);
    assert.deepEqual(overLong(byteByByte(line.subarray(0, MAX_REPLY_LINE + 50))), [
      "reply line too long",
    ]);
  });

  test("a line just under the limit is accepted whole and in pieces", () => {
    const text = `250 ${"x".repeat(MAX_REPLY_LINE - 10)}\r\n`;
    const buf = bytes(text);
    const want = { replies: [{ code: 250, lines: null }], errors: [] };
    assert.deepEqual(parse([buf]), want);
    for (let cut = 1; cut < buf.length; cut += 97) {
      assert.deepEqual(parse([buf.subarray(0, cut), buf.subarray(cut)]), want);
    }
  });

  test("a reply streaming 250- lines forever", () => {
    const errors: string[] = [];
    const parser = new ReplyParser({
      onReply: () => assert.fail("no reply expected"),
      onProtocolError: (reason) => errors.push(reason),
    });
    parser.push(bytes("250-more\r\n".repeat(MAX_REPLY_LINES + 5)));
    assert.deepEqual(errors, ["reply has too many lines"]);
    const ok = parse([bytes(`${"250-more\r\n".repeat(MAX_REPLY_LINES - 1)}250 end\r\n`)]);
    assert.equal(ok.replies.length, 1);
  });
});

describe("enhancedCode (RFC 3463)", () => {
  const CASES: [string, string][] = [
    ["4.7.0 too many connections", "4.7.0"],
    ["2.1.5 Ok", "2.1.5"],
    ["5.5.1", "5.5.1"],
    ["5.7.1 <a@b>: Relay access denied", "5.7.1"],
    ["4.123.456 wide", "4.123.456"],
    ["Ok: queued", ""],
    ["", ""],
    ["3.0.0 not a class", ""],
    ["4.7 short", ""],
    ["4..0 empty subject", ""],
    ["4.7. empty detail", ""],
    ["4.1234.5 subject too wide", ""],
    ["2.0.0Ok", ""],
    ["2.0.0: colon", ""],
    [" 2.0.0 leading space", ""],
  ];
  for (const [text, want] of CASES) {
    test(JSON.stringify(text), () => assert.equal(enhancedCode(text), want));
  }

  test("from recorded replies", () => {
    const { replies } = parse([bytes(SMTP_SINK_SESSION)], true);
    const codes = replies.map((r) => enhancedCode(r.lines?.[0] ?? ""));
    assert.deepEqual(codes, ["", "", "2.1.0", "2.1.5", "", "2.0.0", "2.1.0", "2.0.0", "5.5.1", ""]);
  });
});

test("replyLine: the reply's last line with its code while onReply runs, text captured or not", () => {
  const wire = Buffer.from("250-first\r\n250 2.1.0 Ok\r\n354 go ahead\r\n");
  const seen: string[] = [];
  const parser: ReplyParser = new ReplyParser({
    onReply: () => seen.push(parser.replyLine()),
    onProtocolError: (reason) => assert.fail(reason),
  });
  // One byte a read: each line is completed from the carried bytes of earlier reads.
  for (let i = 0; i < wire.length; i++) parser.push(wire.subarray(i, i + 1));
  parser.push(wire);
  assert.deepEqual(seen, ["250 2.1.0 Ok", "354 go ahead", "250 2.1.0 Ok", "354 go ahead"]);
  assert.equal(parser.replyLine(), "", "nothing outside onReply");
});

test("wantsText: asked once per positive reply, its answer keeps that reply's text alone", () => {
  // A pipelined burst: MAIL's and RCPT's 250, DATA's 354, the final dot's multi-line 250, and a
  // 451 whose text is kept unasked. The handler wants the third reply's (the final reply).
  const wire = Buffer.from(
    "250 2.1.0 Ok\r\n354 go ahead\r\n250-2.0.0 Ok\r\n250 queued as 4dQx1Z6Ynvz9t\r\n451 4.3.0 later\r\n",
  );
  const replies: Reply[] = [];
  let asked = 0;
  const parser = new ReplyParser({
    onReply: (code, lines) => replies.push({ code, lines }),
    onProtocolError: (reason) => assert.fail(reason),
    wantsText: () => ++asked === 3,
  });
  parser.push(wire);
  assert.equal(asked, 3, "asked for each positive reply, not for the 451");
  assert.deepEqual(replies, [
    { code: 250, lines: null },
    { code: 354, lines: null },
    { code: 250, lines: ["2.0.0 Ok", "queued as 4dQx1Z6Ynvz9t"] },
    { code: 451, lines: ["4.3.0 later"] },
  ]);
});
