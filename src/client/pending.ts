/**
 * The commands in flight on one connection, in the order their replies must arrive
 * (RFC 2920 §3.1: the server answers pipelined commands in order). A preallocated ring of
 * (expectation, transaction slot) pairs with head and tail cursors: no closures, no shift().
 */
import type { Phase } from "../smtp/phases.js";
import type { SessionOptions } from "./run-interfaces.js";

export enum Expect {
  Banner = 0,
  Ehlo = 1,
  Helo = 2,
  Mail = 3,
  Rcpt = 4,
  Data = 5,
  Dot = 6,
  Rset = 7,
  Quit = 8,
  StartTls = 9,
  /** AUTH's final 235. */
  Auth = 10,
  /** AUTH LOGIN's 334 asking for the username. */
  AuthUser = 11,
  /** AUTH LOGIN's 334 asking for the password. */
  AuthPassword = 12,
  /** The reply to BDAT … LAST: the message's final reply (RFC 3030). */
  Bdat = 13,
}

/**
 * The phase each expectation is counted under, and so whose timeout applies: one entry per
 * Expect member (`satisfies` fails to compile when one is missing, extra or not a Phase).
 */
const PHASE_BY_EXPECT = {
  [Expect.Banner]: "banner",
  [Expect.Ehlo]: "ehlo",
  [Expect.Helo]: "helo",
  [Expect.Mail]: "mail",
  [Expect.Rcpt]: "rcpt",
  [Expect.Data]: "data",
  [Expect.Dot]: "dot",
  [Expect.Rset]: "rset",
  [Expect.Quit]: "quit",
  [Expect.StartTls]: "starttls",
  [Expect.Auth]: "auth",
  [Expect.AuthUser]: "auth",
  [Expect.AuthPassword]: "auth",
  [Expect.Bdat]: "bdat",
} as const satisfies Record<Expect, Phase>;

/**
 * PHASE_BY_EXPECT as an array indexed by Expect, for the hot path. Integer keys enumerate in
 * ascending order, and Expect's values are 0…n-1, so index and member agree.
 */
export const PHASE_OF: readonly Phase[] = Object.freeze(Object.values(PHASE_BY_EXPECT));

/**
 * The ring a session needs: two envelopes and a QUIT can be in flight (with BDAT: a window of
 * whole transactions); 1000 is the most recipients a message takes.
 */
export function pendingCapacity(config: SessionOptions): number {
  const recipients = Math.max(config.recipients, ...config.classes.map((c) => c.recipients ?? 0));
  const chunked = config.chunking ? config.window * (recipients + 3) : 0;
  return Math.max(2 * recipients + 16, chunked + 8);
}

export class PendingReplies {
  private readonly kinds: Uint8Array;
  private readonly slots: Uint8Array;
  private readonly mask: number;
  private head = 0;
  private tail = 0;
  count = 0;

  /** `capacity` is rounded up to a power of two. */
  constructor(capacity: number) {
    let size = 8;
    while (size < capacity) size <<= 1;
    this.kinds = new Uint8Array(size);
    this.slots = new Uint8Array(size);
    this.mask = size - 1;
  }

  push(kind: Expect, slot: number): void {
    if (this.count > this.mask) throw new Error("pending-reply ring overflow");
    this.kinds[this.tail] = kind;
    this.slots[this.tail] = slot;
    this.tail = (this.tail + 1) & this.mask;
    this.count++;
  }

  /** The expectation the next reply answers; only valid while count > 0. */
  get headKind(): Expect {
    return this.kinds[this.head];
  }

  get headSlot(): number {
    return this.slots[this.head];
  }

  shift(): void {
    this.head = (this.head + 1) & this.mask;
    this.count--;
  }

  clear(): void {
    this.head = 0;
    this.tail = 0;
    this.count = 0;
  }
}

/**
 * Whether a positive reply is one the command can get (RFC 5321 §4.3.2): 220 for the banner,
 * 221 for QUIT, 354 for DATA, 2xx otherwise. A mismatch means the replies are out of step.
 */
export function replyFits(kind: Expect, code: number): boolean {
  switch (kind) {
    case Expect.Banner:
      return code === 220;
    case Expect.Quit:
      return code === 221 || (code >= 250 && code < 300);
    case Expect.Data:
      return code === 354;
    case Expect.StartTls:
      return code === 220;
    case Expect.Auth:
      return code === 235;
    case Expect.AuthUser:
    case Expect.AuthPassword:
      return code === 334;
    default:
      return code >= 250 && code < 300;
  }
}

/**
 * Why a reply cannot answer the command it lines up with, or null: a positive reply that does
 * not fit (replyFits), or a 2xx whose enhanced status code is an address status (X.1.Y,
 * RFC 3463: what MAIL and RCPT get) where the final reply to a message (or RSET's) is due: the server
 * skipped or delayed that reply, and what arrives is the next MAIL's. `subject`: the reply's
 * enhanced-code subject, -1 when it has none. LMTP's per-recipient replies after the data may
 * carry 2.1.5 (RFC 2033 §4.2), so they are not held to it.
 */
export function replyMismatch(
  kind: Expect,
  code: number,
  subject: number,
  lmtp: boolean,
  holding = true,
): string | null {
  if (code >= 400) return null;
  if (!replyFits(kind, code)) return `reply ${code} does not answer ${PHASE_OF[kind]}`;
  // RSET gets 2.0.0; with BDAT it follows a transaction still in flight, whose skipped final
  // reply would shift the next MAIL's 2.1.0 onto it. Postfix smtp-sink answers every RSET with
  // `250 2.1.0 Ok`, though: with no final 2xx held (`holding`) nothing could have shifted, so
  // the address status on RSET is the server's quirk, not a sign of lost order.
  const rset = kind === Expect.Rset && holding;
  const final = kind === Expect.Dot || kind === Expect.Bdat || rset;
  if (final && subject === 1 && !lmtp) {
    return `reply ${code} with an address status (X.1.Y) cannot answer ${PHASE_OF[kind]}`;
  }
  return null;
}

/**
 * Which expectations' positive replies have their text read, indexed by Expect: EHLO's and
 * HELO's (the capabilities), and with `queueIds` the final reply of a message (the run joins
 * deliveries by the queue id it names). No other positive reply is decoded.
 */
export function keepsTextOf(queueIds: boolean): Uint8Array {
  const keeps = new Uint8Array(PHASE_OF.length);
  keeps[Expect.Ehlo] = keeps[Expect.Helo] = 1;
  if (queueIds) keeps[Expect.Dot] = keeps[Expect.Bdat] = 1;
  return keeps;
}
