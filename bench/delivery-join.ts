/**
 * The delivery join on one core: arrivals a second through the receiving end (sink/receive.ts:
 * key lookup in the header block, the per-message record) and the join itself
 * (stats/delivery.ts), and the memory each in-flight message costs there (the receiver's
 * record plus the client's ledger entry). Run alone: `node --expose-gc dist/bench/delivery-join.js`.
 * No sockets: the sink's parsing of SMTP is measured by bench/sink.ts; this is what --receive
 * adds per message. Then the same for a sink on another host: the receiver of every run
 * (`sink --json`), its arrivals written and read back as JSON, and the offline join
 * (`report --arrivals`), serialisation included.
 */
import { Receiver } from "../src/sink/receive.js";
import { AcceptLedger, acceptLedgerJson } from "../src/stats/accept-ledger.js";
import { arrivalsJson, joinArrivals, mergeArrivals } from "../src/stats/arrivals-file.js";
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

/** Every message arriving once at `receiver`; returns arrivals a second. */
function arriveAll(receiver: Receiver, headers: Buffer[]): number {
  const envelope = { from: "mailvolley@localhost", rcpts: ["sink@localhost"] };
  const t0 = process.hrtime.bigint();
  for (let seq = 0; seq < N; seq++) {
    // A different header per message: the number is patched as the client does.
    const h = headers[seq & 4095];
    const at = h.indexOf(`${RUN}.`, h.indexOf("X-Mailvolley-Id")) + RUN.length + 1;
    h.write(String(seq).padStart(12, "0"), at, "latin1");
    receiver.arrived(h, envelope, 1e12 + seq + 100);
  }
  return (N * 1e9) / Number(process.hrtime.bigint() - t0);
}

async function main(): Promise<void> {
  // Built before the clock starts: the sink hands over views of its read buffers, not new ones.
  const headers = Array.from({ length: 4096 }, (_, i) => headerOf(i));
  gc();
  const before = process.memoryUsage().heapUsed;
  const ledger = new AcceptLedger();
  for (let seq = 0; seq < N; seq++) ledger.record(seq, 1e12 + seq, 1e12 + seq + 5, "4dQx1Z6Ynvz9t");
  const receiver = new Receiver(RUN);
  const perSecond = arriveAll(receiver, headers);
  gc();
  const held = process.memoryUsage().heapUsed - before;
  const accepts = ledger.snapshot();
  const t1 = process.hrtime.bigint();
  const d = joinDeliveries({
    receiver: "bench",
    parts: [
      {
        runId: RUN,
        accepts,
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
  // A sink on another host (sink --json): every run's keys, then the join offline.
  const anyRun = new Receiver(null);
  const anyRunPerSecond = arriveAll(anyRun, headers);
  const t2 = process.hrtime.bigint();
  const file = JSON.parse(JSON.stringify(arrivalsJson(anyRun.runs, anyRun.counts)));
  const ledgerJson = acceptLedgerJson(RUN, 1e12, ["default"], accepts, () => ({
    index: 0,
    recipients: 1,
  }));
  const offline = joinArrivals([ledgerJson], mergeArrivals([file]), "bench");
  const offlineNs = Number(process.hrtime.bigint() - t2);
  if (offline.delivered !== N) throw new Error(`joined offline ${offline.delivered} of ${N}`);
  process.stdout.write(
    `${JSON.stringify(
      {
        messages: N,
        arrivalsPerSecond: Math.round(perSecond),
        joinMessagesPerSecond: Math.round((N * 1e9) / joinNs),
        bytesPerMessage: Math.round(held / N),
        sinkJsonArrivalsPerSecond: Math.round(anyRunPerSecond),
        offlineJoinMessagesPerSecond: Math.round((N * 1e9) / offlineNs),
        gcExposed: typeof (globalThis as { gc?: unknown }).gc === "function",
      },
      null,
      2,
    )}\n`,
  );
}

await main();
