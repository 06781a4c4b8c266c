/**
 * The delivery join on one core, without sockets (the sink's parsing of SMTP is bench/sink.ts's):
 * what --receive adds per message. Run alone: `node --expose-gc dist/bench/delivery-join.js`.
 *
 * - Arrivals a second through the run's receiving end and its streaming join: the key found in
 *   the header block, the accept records fed in chunks as the threads send them, each message
 *   folded once it has fully arrived, the timeline moved on as the run goes.
 * - Memory per message in flight: the heap the join retains with N messages accepted and not
 *   yet arrived, and with N arrived before their accept records.
 * - Memory per message of the run: the heap the join retains after N messages have all arrived
 *   (the ring of the last RECENT ones whole, one octet per message number), and the slope
 *   between two such runs, the cost that grows with the run.
 * - A receiver on another host: `sink --json`'s receiver of every run, its arrivals written and
 *   read back as JSON, and the offline join of `report --arrivals`.
 */
import { loadavg } from "node:os";
import { AcceptLedger, acceptLedgerJson } from "../src/delivery/accept-ledger.js";
import { arrivalsJson, joinArrivals, mergeArrivals } from "../src/delivery/arrivals-file.js";
import { DeliveryJoin } from "../src/delivery/join.js";
import { Receiver } from "../src/delivery/receiver.js";

const RUN = "5ea01165ebeb";
const N = 500_000;
/** Accept records cross from a thread every sweep (100 ms): 10,000/s a chunk of 1,000. */
const CHUNK = 1000;
const T0 = 1e12;
const QUEUE_ID = "4dQx1Z6Ynvz9t";

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

// Built before any clock starts: the sink hands over views of its read buffers, not new ones.
const HEADERS = Array.from({ length: 4096 }, (_, i) => headerOf(i));
const ENVELOPE = { from: "mailvolley@localhost", rcpts: ["sink@localhost"] };

/** The heap and the typed arrays' backing stores (outside the heap) after a full collection. */
function gc(): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  collect?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

function newJoin(): DeliveryJoin {
  const join = new DeliveryJoin({ classNames: ["default"] });
  join.addRun(RUN, { classOf: () => 0, recipientsOf: () => 1 });
  join.timeline.setOrigin(T0);
  return join;
}

/** Message `seq` arriving at `receiver`: its header patched with its number, as the client does. */
function arrive(receiver: Receiver, seq: number): void {
  const h = HEADERS[seq & 4095];
  const at = h.indexOf(`${RUN}.`, h.indexOf("X-Mailvolley-Id")) + RUN.length + 1;
  h.write(String(seq).padStart(12, "0"), at, "latin1");
  receiver.arrived(h, ENVELOPE, T0 + seq + 100);
}

/** `n` messages through a join: each chunk's accept records, then their arrivals. */
function runThrough(join: DeliveryJoin, receiver: Receiver, n: number): void {
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK);
    for (let seq = from; seq < to; seq++) join.accept(RUN, seq, T0 + seq, T0 + seq + 5, QUEUE_ID);
    for (let seq = from; seq < to; seq++) arrive(receiver, seq);
    join.advance(T0 + from - 1000);
  }
}

/** Arrivals a second through the receiving end and the streaming join, accepts included. */
function throughput(): number {
  const join = newJoin();
  const receiver = new Receiver(RUN, join);
  const t0 = process.hrtime.bigint();
  runThrough(join, receiver, N);
  const d = finish(join);
  const ns = Number(process.hrtime.bigint() - t0);
  if (d.delivered !== N) throw new Error(`joined ${d.delivered} of ${N}`);
  return (N * 1e9) / ns;
}

function finish(join: DeliveryJoin) {
  return join.finish({
    receiver: "bench",
    counts: { foreign: 0, notices: 0, noticesUnjoined: 0 },
    firstConnectMs: T0,
  });
}

/** Octets the join retains per message with `n` in flight, accepted or arrived first. */
function inFlightBytes(n: number, arrivedFirst: boolean): number {
  const join = newJoin();
  const receiver = new Receiver(RUN, join);
  const before = gc();
  for (let seq = 0; seq < n; seq++) {
    // A queue id of its own per message, as a gateway gives.
    if (arrivedFirst) arrive(receiver, seq);
    else
      join.accept(RUN, seq, T0 + seq, T0 + seq + 5, `4dQx1Z${seq.toString(36).padStart(7, "0")}`);
  }
  join.advance(Number.POSITIVE_INFINITY);
  const held = gc() - before;
  if (join.held !== n) throw new Error(`${join.held} held of ${n}`);
  return held / n;
}

/** Octets the join retains after `n` messages have all arrived. */
function afterRun(n: number): number {
  const join = newJoin();
  const receiver = new Receiver(RUN, join);
  const before = gc();
  runThrough(join, receiver, n);
  join.advance(Number.POSITIVE_INFINITY);
  const held = gc() - before;
  if (receiver.accounted !== n) throw new Error(`accounted ${receiver.accounted} of ${n}`);
  return held;
}

/** A sink on another host (sink --json): every run's keys, then the join offline. */
function elsewhere(): { sinkJsonArrivalsPerSecond: number; offlineJoinMessagesPerSecond: number } {
  const ledger = new AcceptLedger();
  for (let seq = 0; seq < N; seq++) ledger.record(seq, T0 + seq, T0 + seq + 5, QUEUE_ID);
  const anyRun = new Receiver(null);
  const t0 = process.hrtime.bigint();
  for (let seq = 0; seq < N; seq++) arrive(anyRun, seq);
  const arriveNs = Number(process.hrtime.bigint() - t0);
  const t1 = process.hrtime.bigint();
  const file = JSON.parse(JSON.stringify(arrivalsJson(anyRun.runs, anyRun.counts)));
  const json = acceptLedgerJson(RUN, T0, ["default"], ledger.snapshot(), () => ({
    index: 0,
    recipients: 1,
  }));
  const offline = joinArrivals([json], mergeArrivals([file]), "bench");
  const offlineNs = Number(process.hrtime.bigint() - t1);
  if (offline.delivered !== N) throw new Error(`joined offline ${offline.delivered} of ${N}`);
  return {
    sinkJsonArrivalsPerSecond: Math.round((N * 1e9) / arriveNs),
    offlineJoinMessagesPerSecond: Math.round((N * 1e9) / offlineNs),
  };
}

function main(): void {
  const gcExposed = typeof (globalThis as { gc?: unknown }).gc === "function";
  throughput(); // warm up
  const best = Math.max(throughput(), throughput(), throughput());
  const inFlightAccepted = inFlightBytes(N, false);
  const inFlightArrived = inFlightBytes(N, true);
  const small = afterRun(N);
  const large = afterRun(4 * N);
  process.stdout.write(
    `${JSON.stringify(
      {
        messages: N,
        arrivalsPerSecond: Math.round(best),
        inFlightBytesPerMessage: {
          acceptedNotArrived: Math.round(inFlightAccepted),
          arrivedBeforeAcceptRecord: Math.round(inFlightArrived),
        },
        afterAllArrived: {
          [`heapBytesAfter${N}`]: small,
          [`heapBytesAfter${4 * N}`]: large,
          bytesPerRunMessage: Number(((large - small) / (3 * N)).toFixed(2)),
        },
        ...elsewhere(),
        gcExposed,
        loadAverage1m: Number(loadavg()[0].toFixed(2)),
      },
      null,
      2,
    )}\n`,
  );
}

main();
