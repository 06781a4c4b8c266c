/**
 * EHLO capabilities (RFC 5321 §4.1.1.1) parsed from the replies the real peers sent.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilitiesOf, NO_CAPABILITIES, parseCapabilities } from "../src/smtp/capabilities.js";
import { ReplyParser } from "../src/smtp/reply-parser.js";
import { AIOSMTPD_SESSION, SMTP_SERVER_SESSION, SMTP_SINK_SESSION } from "./helpers/transcripts.js";

/** The text lines of the second reply of a session transcript: the EHLO reply. */
function ehloLines(transcript: string): string[] {
  const replies: string[][] = [];
  const parser = new ReplyParser({
    onReply: (_code, lines) => replies.push(lines ?? []),
    onProtocolError: (reason) => assert.fail(reason),
  });
  parser.keepText(true);
  parser.push(Buffer.from(transcript, "latin1"));
  return replies[1];
}

test("Postfix smtp-sink, with its empty last line", () => {
  const caps = parseCapabilities(ehloLines(SMTP_SINK_SESSION));
  assert.deepEqual(caps, {
    ...NO_CAPABILITIES,
    pipelining: true,
    eightBitMime: true,
    enhancedStatusCodes: true,
    dsn: true,
    auth: ["PLAIN", "LOGIN"],
  });
});

test("aiosmtpd: no PIPELINING, a SIZE limit", () => {
  const caps = parseCapabilities(ehloLines(AIOSMTPD_SESSION));
  assert.equal(caps.pipelining, false);
  assert.equal(caps.size, 33_554_432);
  assert.equal(caps.eightBitMime, true);
  assert.equal(caps.enhancedStatusCodes, false);
});

test("npm smtp-server: the greeting line is not a keyword", () => {
  const caps = parseCapabilities(ehloLines(SMTP_SERVER_SESSION));
  assert.equal(caps.pipelining, true);
  assert.equal(caps.smtpUtf8, true);
  assert.equal(caps.starttls, false);
  assert.equal(caps.size, -1);
});

test("a keyword on the greeting line is ignored", () => {
  assert.equal(parseCapabilities(["PIPELINING"]).pipelining, false);
});

test("keywords are case-insensitive, parameters by space or equals", () => {
  const caps = parseCapabilities([
    "mx.example greets you",
    "pipelining",
    "Chunking",
    "STARTTLS",
    "size 10240000",
    "AUTH=login plain",
    "AUTH cram-md5",
    "X-UNKNOWN whatever",
    "  ENHANCEDSTATUSCODES  ",
  ]);
  assert.equal(caps.pipelining, true);
  assert.equal(caps.chunking, true);
  assert.equal(caps.starttls, true);
  assert.equal(caps.size, 10_240_000);
  assert.deepEqual(caps.auth, ["LOGIN", "PLAIN", "CRAM-MD5"]);
  assert.equal(caps.enhancedStatusCodes, true);
});

test("SIZE without a limit, or with garbage, is 0; no SIZE is -1", () => {
  assert.equal(parseCapabilities(["mx", "SIZE"]).size, 0);
  assert.equal(parseCapabilities(["mx", "SIZE 0"]).size, 0);
  assert.equal(parseCapabilities(["mx", "SIZE lots"]).size, 0);
  assert.equal(parseCapabilities(["mx"]).size, -1);
  assert.equal(parseCapabilities([]).size, -1);
});

test("results are frozen; NO_CAPABILITIES offers nothing", () => {
  const caps = parseCapabilities(["mx", "PIPELINING"]);
  assert.ok(Object.isFrozen(caps));
  assert.ok(Object.isFrozen(NO_CAPABILITIES));
  assert.equal(NO_CAPABILITIES.pipelining, false);
  assert.deepEqual(NO_CAPABILITIES.auth, []);
});

test("capabilitiesOf remembers the last replies, whatever their greeting, and no others", () => {
  const sink = ehloLines(SMTP_SINK_SESSION);
  const first = capabilitiesOf(sink);
  assert.deepEqual(first, parseCapabilities(sink));
  // Another connection to the same server: a greeting naming another client, the same keywords.
  const again = capabilitiesOf(["other.example Hello [127.0.0.9]", ...sink.slice(1)]);
  assert.equal(again, first);
  // A server that offers less is parsed, not remembered from the last one.
  const aiosmtpd = capabilitiesOf(ehloLines(AIOSMTPD_SESSION));
  assert.equal(aiosmtpd.pipelining, false);
  assert.equal(aiosmtpd.size, 33_554_432);
  const fewer = capabilitiesOf(sink.slice(0, 2));
  assert.deepEqual(fewer, parseCapabilities(sink.slice(0, 2)));
  assert.notEqual(fewer, first);
  assert.equal(capabilitiesOf([]).pipelining, false);
});

test("capabilitiesOf remembers both replies of a STARTTLS connection, before and after TLS", () => {
  const before = ehloLines(SMTP_SINK_SESSION);
  const after = [before[0], ...before.slice(1).filter((line) => line !== "STARTTLS"), "SIZE 1000"];
  const plain = capabilitiesOf(before);
  const secure = capabilitiesOf(after);
  assert.deepEqual(secure, parseCapabilities(after));
  // The next connection: the same two replies, both remembered.
  assert.equal(capabilitiesOf(before), plain);
  assert.equal(capabilitiesOf(after), secure);
  // A third reply replaces the older of the two.
  const third = capabilitiesOf(before.slice(0, 2));
  assert.deepEqual(third, parseCapabilities(before.slice(0, 2)));
  assert.equal(capabilitiesOf(after), secure);
  assert.notEqual(capabilitiesOf(before), plain);
});
