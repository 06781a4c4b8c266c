/**
 * Micro-benchmarks of the hot-path code without sockets: the reply parser (bytes/s, replies/s,
 * heap bytes allocated per reply) and the wire encoders (message rendering, envelopes,
 * dot-stuffing). Run in a child with `--expose-gc` and a fixed 64 MiB young generation so that a measured
 * batch fits the young generation and its heap growth is its allocation; a batch during which a
 * collection ran reports its allocation as unknown (bench/lib/measure.ts).
 */
import type { RunConfig } from "../src/config/run-config.js";
import { buildRunConfig } from "../src/config/run-config.js";
import { MessageFactory } from "../src/messages/factory.js";
import { After, Before, MessageWire } from "../src/messages/message-wire.js";
import type { Capabilities } from "../src/smtp/capabilities.js";
import { NO_CAPABILITIES, parseCapabilities } from "../src/smtp/capabilities.js";
import { dotStuff, generateBody, HeaderTemplate } from "../src/smtp/message.js";
import { type ReplyHandler, ReplyParser } from "../src/smtp/reply-parser.js";
import { type MicroResult, measure } from "./lib/measure.js";

class Counting implements ReplyHandler {
  replies = 0;
  onReply(): void {
    this.replies++;
  }
  onProtocolError(reason: string): void {
    throw new Error(reason);
  }
}

/** What smtp-sink sends per pipelined message: the dot's 250, then MAIL, RCPT, DATA. */
const STEADY_GROUP = Buffer.from(
  "250 2.0.0 Ok: queued as 1A2B3C\r\n250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n",
  "latin1",
);
const EHLO_REPLY = Buffer.from(
  "250-mx.example.com\r\n250-PIPELINING\r\n250-SIZE 10240000\r\n250-VRFY\r\n250-ETRN\r\n250-STARTTLS\r\n250-ENHANCEDSTATUSCODES\r\n250-8BITMIME\r\n250-DSN\r\n250 CHUNKING\r\n",
  "latin1",
);

export async function microBench(): Promise<MicroResult[]> {
  const out: MicroResult[] = [];
  const handler = new Counting();

  const parser = new ReplyParser(handler);
  out.push(
    await measure(
      "reply parser: steady-state group per push (4 replies)",
      STEADY_GROUP.length,
      50_000,
      () => parser.push(STEADY_GROUP),
    ),
  );

  const big = Buffer.concat(Array.from({ length: 600 }, () => STEADY_GROUP));
  const bigParser = new ReplyParser(handler);
  out.push(
    await measure("reply parser: 64 KiB chunks of groups", big.length, 200, () =>
      bigParser.push(big),
    ),
  );

  // A group split in the middle of a line: the carry path.
  const cut = 40;
  const head = STEADY_GROUP.subarray(0, cut);
  const tail = STEADY_GROUP.subarray(cut);
  const splitParser = new ReplyParser(handler);
  out.push(
    await measure(
      "reply parser: group split mid-line across two pushes",
      STEADY_GROUP.length,
      50_000,
      () => {
        splitParser.push(head);
        splitParser.push(tail);
      },
    ),
  );

  const ehloParser = new ReplyParser({
    onReply: (_code, lines) => {
      if (lines) parseCapabilities(lines);
    },
    onProtocolError: (reason) => {
      throw new Error(reason);
    },
  });
  ehloParser.keepText(true);
  out.push(
    await measure(
      "reply parser + capabilities: EHLO reply (10 lines)",
      EHLO_REPLY.length,
      20_000,
      () => ehloParser.push(EHLO_REPLY),
    ),
  );

  const wire = await makeWire(buildRunConfig({ size: 1024 }));
  const caps = parseCapabilities(["mx", "PIPELINING", "SIZE 10240000"]);
  const sample = wire.message(0, Date.now(), caps);
  const t0 = performance.timeOrigin;
  out.push(
    await measure(
      "wire: message (header render + body + dot + next envelope)",
      sample.length,
      20_000,
      (i) => wire.message(i, t0 + i * 0.013, caps),
    ),
  );
  out.push(
    await measure(
      "wire: message into the session's reused buffer (header fields patched)",
      sample.length,
      50_000,
      (i) => wire.message(i, t0 + i * 0.013, caps, true),
    ),
  );

  const template = new HeaderTemplate({
    from: "a@b",
    to: "c@d",
    subject: "s",
    runId: "0123456789ab",
  });
  const headerOut = Buffer.allocUnsafe(template.length);
  out.push(
    await measure("wire: header render into a buffer", template.length, 50_000, (i) =>
      template.renderInto(headerOut, i, t0 + i * 0.013),
    ),
  );

  const envelope = wire.envelope(NO_CAPABILITIES, 0);
  out.push(
    await measure("wire: envelope (cached)", envelope.length, 100_000, (i) =>
      wire.envelope(caps, i),
    ),
  );

  const uniqueWire = await makeWire(buildRunConfig({ uniqueRecipients: true, recipients: 3 }));
  const uniqueEnvelope = uniqueWire.envelope(caps, 1);
  out.push(
    await measure(
      "wire: envelope with unique recipients (-N -r 3)",
      uniqueEnvelope.length,
      20_000,
      (i) => uniqueWire.envelope(caps, i),
    ),
  );

  const text = Buffer.concat([generateBody(1 << 20), Buffer.from(".leading dot\n", "latin1")]);
  out.push(await measure("smtp: dotStuff 1 MiB", text.length, 20, () => dotStuff(text)));

  out.push(await measure("smtp: generateBody 1 MiB", 1 << 20, 20, () => generateBody(1 << 20)));
  return out;
}

/** The two wire calls the session makes per message, for the default class and no source. */
interface WireCalls {
  /** `reuse`: the session's buffer is free again, as after a write the kernel took whole. */
  message(seq: number, epochMs: number, caps: Capabilities, reuse?: boolean): Buffer;
  envelope(caps: Capabilities, seq: number): Buffer;
}

async function makeWire(config: RunConfig): Promise<WireCalls> {
  const messages = new MessageFactory(await MessageWire.create(config), 1);
  return {
    message: (seq, epochMs, caps, reuse = false) => {
      // Without reuse, the last Buffer counts as still queued: the next one is built afresh.
      if (!reuse) messages.written(true);
      messages.begin(0, seq, epochMs);
      return messages.content(0, After.Envelope, caps, epochMs);
    },
    envelope: (caps, seq) => {
      messages.begin(0, seq, 0);
      return messages.envelopeGroup(0, caps, Before.Nothing);
    },
  };
}
