/**
 * The floor under the idle-sessions bench (bench/idle.ts): the least a Node.js client can do to
 * hold SESSIONS sessions open and send RATE messages a second through them, the session idle
 * longest taking the next arrival, as mailvolley's open model does. Each session reads the
 * banner, sends EHLO and waits; an arrival writes the envelope group, the 354 the message and
 * its dot, the dot's 250 puts the session back at the end of the idle queue. No histograms, no
 * timeouts, no reply checks: what remains is what sockets, Node.js and V8 cost, so that the
 * bench can tell how much of the CPU 3,000 sessions add is mailvolley's own.
 *
 *   node dist/bench/idle-floor.js HOST PORT SESSIONS RATE SECONDS
 *
 * Prints one JSON line: the main thread's CPU seconds in each second from the first connect
 * (as mailvolley's time series counts them), messages accepted and connections opened.
 */
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { BODY, CRLF, EHLO, FIRST_ENVELOPE, floorConnect, ReplyEnds } from "./lib/floor-wire.js";

const [host, portText, sessionsText, rateText, secondsText] = process.argv.slice(2);
const sessions = Number(sessionsText);
const rate = Number(rateText);
const seconds = Number(secondsText);

const MESSAGE = Buffer.from(`${BODY}.${CRLF}`, "latin1");
const QUIT = Buffer.from(`QUIT${CRLF}`, "latin1");

/** This thread's on-CPU nanoseconds (the first field of schedstat), as mailvolley reads it. */
const cpuNs = () => Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ")[0]);

interface FloorSession {
  socket: Socket;
  send(): void;
}

/** The idle sessions, oldest first: a plain array with a head index, compacted as it goes. */
let idle: FloorSession[] = [];
let head = 0;
let waiting = 0;
let accepted = 0;
let opened = 0;
let ended = false;
const all: FloorSession[] = [];

function becameIdle(s: FloorSession): void {
  if (ended) return;
  if (waiting > 0) {
    waiting--;
    s.send();
    return;
  }
  idle.push(s);
}

function open(): void {
  /** 0: banner, 1: EHLO's reply, 2: idle or MAIL/RCPT/DATA's replies, 3: the dot's reply. */
  let stage = 0;
  let owed = 0;
  const replies = new ReplyEnds((digit) => {
    if (stage === 0) {
      stage = 1;
      socket.write(EHLO);
    } else if (stage === 1) {
      stage = 2;
      becameIdle(self);
    } else if (stage === 2 && --owed === 0 && digit === 0x33) {
      stage = 3;
      socket.write(MESSAGE);
    } else if (stage === 3) {
      stage = 2;
      accepted++;
      becameIdle(self);
    }
  });
  const socket = floorConnect(host, Number(portText), replies);
  opened++;
  socket.on("error", (err) => {
    if (ended) return;
    process.stderr.write(`idle-floor: ${err.message}\n`);
    process.exit(1);
  });
  const self: FloorSession = {
    socket,
    send() {
      owed = 3; // MAIL, RCPT, DATA
      socket.write(FIRST_ENVELOPE);
    },
  };
  all.push(self);
}

/** The next arrival to the session idle longest, or it waits for the next one freed. */
function arrive(): void {
  if (head === idle.length) {
    waiting++;
    return;
  }
  const s = idle[head++];
  if (head > 1024 && head * 2 > idle.length) {
    idle = idle.slice(head);
    head = 0;
  }
  s.send();
}

const start = performance.now();
const cpu: number[] = [];
let lastCpu = cpuNs();
let released = 0;
const sampler = setInterval(() => {
  const now = cpuNs();
  cpu.push((now - lastCpu) / 1e9);
  lastCpu = now;
}, 1000);
const ticker = setInterval(() => {
  const due = Math.floor(((performance.now() - start) / 1000) * rate);
  while (released < due) {
    released++;
    arrive();
  }
  if (performance.now() - start >= seconds * 1000) finish();
}, 5);

function finish(): void {
  clearInterval(ticker);
  clearInterval(sampler);
  ended = true;
  process.stdout.write(`${JSON.stringify({ cpuSecondsPerInterval: cpu, accepted, opened })}\n`);
  for (const s of all) s.socket.end(QUIT);
  setTimeout(() => process.exit(0), 200).unref();
}

for (let i = 0; i < sessions; i++) open();
