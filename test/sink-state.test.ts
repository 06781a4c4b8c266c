/**
 * The sink session's protocol state (src/sink/session-state.ts): its transitions on their own, and the
 * STARTTLS rule that a handshake forgets everything a transaction owns (RFC 3207 §4.2).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ChunkClock } from "../src/sink/chunk-clock.js";
import {
  AUTH_LOGIN_PASS,
  AUTH_LOGIN_USER,
  AUTH_NONE,
  AUTH_PLAIN,
  M_BDAT,
  M_CLOSED,
  M_COMMAND,
  M_DATA,
  M_UPGRADE,
  SessionState,
} from "../src/sink/session-state.js";
import { codes, greeted, withSink } from "./sink-helpers.js";

const REFUSAL = Buffer.from("554 5.5.1 Error: no valid recipients\r\n");
const OTHER = Buffer.from("503 5.5.1 Error: need MAIL command\r\n");

/** A state in the middle of a BDAT transaction: MAIL, two RCPT, a refused chunk, kept content. */
function midTransaction(keepBytes = 64): SessionState {
  const state = new SessionState(false, keepBytes);
  state.greet();
  state.startMail();
  state.addRecipient();
  state.addRecipient();
  assert.equal(state.startBdatChunk(), true);
  state.beginContent();
  state.keepContent(Buffer.from("Subject: x\r\n"), 0, 12);
  state.refuseBdat(REFUSAL);
  state.toBdat();
  return state;
}

/** Everything a transaction owns is back at its start value. */
function assertNoTransaction(state: SessionState): void {
  assert.equal(state.inMail, false);
  assert.equal(state.rcpts, 0);
  assert.equal(state.usedBdat, false);
  assert.equal(state.bdatError, null);
  assert.equal(state.pieces, null);
}

test("a new state reads commands, outside any transaction, greeting or AUTH", () => {
  const state = new SessionState(false, 0);
  assert.equal(state.mode, M_COMMAND);
  assert.equal(state.tls, false);
  assert.equal(state.greeted, false);
  assert.equal(state.authenticated, false);
  assert.equal(state.authStep, AUTH_NONE);
  assert.equal(state.messages, 0);
  assertNoTransaction(state);
  assert.equal(new SessionState(true, 0).tls, true, "implicit TLS");
});

test("MAIL starts a transaction and counts it; RCPT counts recipients", () => {
  const state = new SessionState(false, 0);
  state.startMail();
  state.addRecipient();
  state.addRecipient();
  assert.equal(state.inMail, true);
  assert.equal(state.rcpts, 2);
  assert.equal(state.messages, 1);
  state.resetTransaction();
  state.startMail();
  assert.equal(state.rcpts, 0, "a new MAIL starts with no recipients");
  assert.equal(state.messages, 2);
});

test("resetTransaction clears everything a transaction owns, and only that", () => {
  const state = midTransaction();
  assert.equal(state.inMail, true);
  assert.equal(state.rcpts, 2);
  assert.equal(state.usedBdat, true);
  assert.equal(state.bdatError, REFUSAL);
  assert.equal(state.pieces?.length, 1);
  state.resetTransaction();
  assertNoTransaction(state);
  assert.equal(state.greeted, true, "the greeting outlives a transaction");
  assert.equal(state.messages, 1, "the session's message count outlives it too");
  assert.equal(state.startBdatChunk(), true, "the next BDAT begins new content");
});

test("EHLO ends a transaction and greets", () => {
  const state = midTransaction();
  state.greet();
  assertNoTransaction(state);
  assert.equal(state.greeted, true);
});

test("TLS established: transaction, greeting and AUTH are forgotten, commands are read", () => {
  const state = midTransaction();
  state.endAuth(true);
  state.toUpgrade();
  assert.equal(state.mode, M_UPGRADE);
  state.secured();
  assertNoTransaction(state);
  assert.equal(state.tls, true);
  assert.equal(state.greeted, false);
  assert.equal(state.authenticated, false);
  assert.equal(state.authStep, AUTH_NONE);
  assert.equal(state.mode, M_COMMAND);
  assert.equal(state.messages, 1, "messages per session count the connection, not the TLS");
});

test("BDAT: only the first chunk begins content; the first refusal is kept until reset", () => {
  const state = new SessionState(false, 0);
  state.startMail();
  assert.equal(state.startBdatChunk(), true);
  assert.equal(state.startBdatChunk(), false);
  assert.equal(state.usedBdat, true);
  state.refuseBdat(REFUSAL);
  state.refuseBdat(OTHER);
  assert.equal(state.bdatError, REFUSAL);
});

test("content is kept up to the keep limit, as views of the chunks, and not at all with 0", () => {
  const chunk = Buffer.from("0123456789");
  const state = new SessionState(false, 4);
  state.beginContent();
  state.keepContent(chunk, 0, 3);
  state.keepContent(chunk, 3, 6);
  state.keepContent(chunk, 6, 10);
  assert.deepEqual(state.pieces?.map(String), ["012", "345"]);
  assert.equal(state.pieces?.[0].buffer, chunk.buffer, "no copy");
  state.beginContent();
  assert.deepEqual(state.pieces, [], "a new message keeps afresh");
  const none = new SessionState(false, 0);
  none.beginContent();
  none.keepContent(chunk, 0, 10);
  assert.equal(none.pieces, null);
});

test("AUTH steps: PLAIN awaits one line, LOGIN the user then the password", () => {
  const state = new SessionState(false, 0);
  state.awaitAuth(AUTH_PLAIN);
  assert.equal(state.authStep, AUTH_PLAIN);
  assert.equal(state.takeAuthStep(), AUTH_PLAIN);
  assert.equal(state.authStep, AUTH_NONE, "taking the step ends the exchange");
  state.endAuth(false);
  assert.equal(state.authenticated, false);
  state.awaitAuth(AUTH_LOGIN_USER);
  assert.equal(state.takeAuthStep(), AUTH_LOGIN_USER);
  state.rememberLoginUser("user");
  assert.equal(state.authStep, AUTH_LOGIN_PASS);
  assert.equal(state.loginUser, "user");
  assert.equal(state.takeAuthStep(), AUTH_LOGIN_PASS);
  state.endAuth(true);
  assert.equal(state.authenticated, true);
  assert.equal(state.loginUser, "", "the user name is forgotten when the exchange ends");
});

test("read modes follow the verbs", () => {
  const state = new SessionState(false, 0);
  state.toData();
  assert.equal(state.mode, M_DATA);
  state.toCommand();
  state.toBdat();
  assert.equal(state.mode, M_BDAT);
  state.toCommand();
  assert.equal(state.mode, M_COMMAND);
  state.toUpgrade();
  assert.equal(state.mode, M_UPGRADE);
  state.close();
  assert.equal(state.mode, M_CLOSED);
});

// Without a second EHLO after the handshake: EHLO resets the transaction by itself, which would
// hide state that the handshake failed to forget.
test("STARTTLS forgets a BDAT transaction: DATA is allowed after the handshake", async () => {
  await withSink({}, async (sink) => {
    const plain = await greeted(sink);
    const bdat = "MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nBDAT 3\r\nabc";
    assert.deepEqual(codes(await plain.send(bdat, 3)), [250, 250, 250]);
    assert.deepEqual(codes(await plain.send("STARTTLS\r\n")), [220]);
    const secure = await plain.startTls();
    const replies = await secure.send("MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n", 3);
    assert.deepEqual(codes(replies), [250, 250, 354]);
    assert.match((await secure.send("hi\r\n.\r\n"))[0], /^250 2\.0\.0 Ok: queued/);
    assert.equal(sink.stats().messagesAccepted, 1);
    assert.equal(sink.stats().bytes, 4);
    await secure.close();
  });
});

test("STARTTLS forgets a refused BDAT chunk: a new BDAT transaction is accepted", async () => {
  await withSink({}, async (sink) => {
    const plain = await greeted(sink);
    // No RCPT: the chunk is consumed and refused, and the refusal is kept until LAST.
    assert.deepEqual(codes(await plain.send("MAIL FROM:<a@x>\r\nBDAT 3\r\nabc", 2)), [250, 554]);
    assert.deepEqual(codes(await plain.send("STARTTLS\r\n")), [220]);
    const secure = await plain.startTls();
    const txn = "MAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nBDAT 3 LAST\r\nxyz";
    const replies = await secure.send(txn, 3);
    assert.deepEqual(codes(replies), [250, 250, 250]);
    assert.match(replies[2], /queued/);
    assert.equal(sink.stats().messagesAccepted, 1);
    assert.equal(sink.stats().bytes, 3);
    await secure.close();
  });
});

test("ChunkClock: one reading of each clock per read chunk, read again after a tick", async () => {
  const clock = new ChunkClock();
  const epoch = clock.epochMs();
  const wall = clock.wallMs();
  assert.ok(Math.abs(epoch - Date.now()) < 1000, "epoch milliseconds");
  await sleep(5);
  assert.equal(clock.epochMs(), epoch, "the same chunk: the same time");
  assert.equal(clock.wallMs(), wall);
  clock.tick();
  assert.ok(clock.epochMs() > epoch, "a new chunk reads the clock again");
  assert.ok(clock.wallMs() > wall);
});
