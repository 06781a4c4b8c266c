/**
 * The delivery join on one core: arrivals a second through the receiving end (sink/receive.ts:
 * key lookup in the header block, the per-message record) and the join itself
 * (stats/delivery.ts), and the memory each in-flight message costs there (the receiver's
 * record plus the client's ledger entry). Run alone: `node --expose-gc dist/bench/delivery-join.js`.
 * No sockets: the sink's parsing of SMTP is measured by bench/sink.ts; this is what --receive
 * adds per message.
 */
import { Receiver } from "../src/sink/receive.js";
import { AcceptLedger } from "../src/stats/accept-ledger.js";
import { joinDeliveries } from "../src/stats/delivery.js";

const RUN = "5ea01165ebeb";
const N = 500_000;

/** A header block as Postfix relays it: Received lines, then mailvolley's generated fields. */
function headerOf(seq: number): Buffer {
  const s = String(seq).padStart(12, "0");
  return Buffer.from(
    [
      "Received: from mailvolley (localhost [127.0.0.1])",
      "\tby relay.mailvolley.invalid (Postfix) with ESMTP id 4dQx1Z6Ynvz9t",
      "\tfor <sink@localhost>; Fri,  4 Dec 2026 03:44:14 +0000 (UTC)",
      "From: <mailvolley@localhost>",
      "To: <sink@localhost>",
      "Date: Fri, 04 Dec 2026 03:44:14 +0000",
      `Message-ID: <${s}.${RUN}@mailvolley.invalid>`,
      "Subject: mailvolley test message",
      `X-Mailvolley-Run: ${RUN}`,
      "X-Mailvolley-Sent: 1764819854123.456",
      `X-Mailvolley-Id: ${RUN}.${s}`,
      "",
      "body line one",
      "",
    ].join("\r\n"),
    "latin1",
  );
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function main(): Promise<void> {
  // Built before the clock starts: the sink hands over views of its read buffers, not new ones.
  const headers = Array.from({ length: 4096 }, (_, i) => headerOf(i));
  const envelope = { from: "mailvolley@localhost", rcpts: ["sink@localhost"] };
  gc();
  const before = process.memoryUsage().heapUsed;
  const ledger = new AcceptLedger();
  for (let seq = 0; seq < N; seq++) ledger.record(seq, 1e12 + seq, 1e12 + seq + 5, "4dQx1Z6Ynvz9t");
  const receiver = new Receiver(RUN);
  const t0 = process.hrtime.bigint();
  for (let seq = 0; seq < N; seq++) {
    // A different header per message: the number is patched as the client does.
    const h = headers[seq & 4095];
    const at = h.indexOf(`${RUN}.`, h.indexOf("X-Mailvolley-Id")) + RUN.length + 1;
    h.write(String(seq).padStart(12, "0"), at, "latin1");
    receiver.arrived(h, envelope, 1e12 + seq + 100);
  }
  const arriveNs = Number(process.hrtime.bigint() - t0);
  gc();
  const held = process.memoryUsage().heapUsed - before;
  const t1 = process.hrtime.bigint();
  const d = joinDeliveries({
    receiver: "bench",
    parts: [
      {
        runId: RUN,
        accepts: ledger.snapshot(),
        arrivals: receiver.arrivals,
        lastArrivalMs: receiver.counts.lastArrivalMs,
        classOf: () => 0,
        recipientsOf: () => 1,
      },
    ],
    counts: receiver.counts,
    classNames: ["default"],
    firstConnectMs: 1e12,
    drainTimedOut: false,
  });
  const joinNs = Number(process.hrtime.bigint() - t1);
  if (d.delivered !== N) throw new Error(`joined ${d.delivered} of ${N}`);
  const perSecond = (N * 1e9) / arriveNs;
  process.stdout.write(
    `${JSON.stringify(
      {
        messages: N,
        arrivalsPerSecond: Math.round(perSecond),
        joinMessagesPerSecond: Math.round((N * 1e9) / joinNs),
        bytesPerMessage: Math.round(held / N),
        gcExposed: typeof (globalThis as { gc?: unknown }).gc === "function",
      },
      null,
      2,
    )}\n`,
  );
}

await main();
