/**
 * The queue id in each common MTA's reply to the data, from the reply's text as the reply
 * parser hands it over (after `ddd` and its separator): the id a user greps the gateway's log for.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { queueIdOf } from "../src/smtp/queue-id.js";
import { ReplyParser } from "../src/smtp/reply-parser.js";

/** Real replies to the final dot, as each MTA words them. */
const REPLIES: readonly [string, string, string][] = [
  ["Postfix", "250 2.0.0 Ok: queued as 4dQx1Z6Ynvz9t\r\n", "4dQx1Z6Ynvz9t"],
  ["Postfix, short ids", "250 2.0.0 Ok: queued as 3889020CE28\r\n", "3889020CE28"],
  ["Exim 4.96", "250 OK id=1t7bXg-0003Qm-2B\r\n", "1t7bXg-0003Qm-2B"],
  ["Exim 4.97 and later", "250 OK id=1rV5ld-00000000Jx2-3xQ3\r\n", "1rV5ld-00000000Jx2-3xQ3"],
  ["Sendmail", "250 2.0.0 4B4FQx3x012345 Message accepted for delivery\r\n", "4B4FQx3x012345"],
  ["OpenSMTPD", "250 2.0.0 4f1a2b3c Message accepted for delivery\r\n", "4f1a2b3c"],
  ["OpenSMTPD, older", "250 2.0.0: 4f1a2b3c Message accepted for delivery\r\n", "4f1a2b3c"],
  [
    "Microsoft Exchange",
    "250 2.6.0 <a1b2@mailvolley.invalid> [InternalId=15526306121985, Hostname=EX01.contoso.com] Queued mail for delivery\r\n",
    "15526306121985",
  ],
  [
    "Exchange Online, multi-line",
    "250-2.6.0 <a1b2@mailvolley.invalid> [InternalId=24730421379090, Hostname=DM6PR11MB4107.namprd11.prod.outlook.com]\r\n250 2.6.0 12345 bytes in 0.123, 95.123 KB/sec Queued mail for delivery\r\n",
    "24730421379090",
  ],
  [
    "Haraka",
    "250 Message Queued (F4F8C0A2-1B3C-4D5E-9F60-718293A4B5C6.1)\r\n",
    "F4F8C0A2-1B3C-4D5E-9F60-718293A4B5C6.1",
  ],
  ["mailvolley's sink", "250 2.0.0 Ok: queued\r\n", ""],
  ["qmail (no queue id: qp is a process id)", "250 ok 1733330000 qp 12345\r\n", ""],
];

for (const [mta, reply, id] of REPLIES) {
  test(`${mta}: ${id === "" ? "no queue id" : id}`, () => {
    let lines: string[] | null = null;
    const parser = new ReplyParser({
      onReply: (_code, l) => {
        lines = l;
      },
      onProtocolError: (reason) => assert.fail(reason),
    });
    parser.keepText(true);
    parser.push(Buffer.from(reply, "latin1"));
    assert.ok(lines !== null, "the reply's text was captured");
    assert.equal(queueIdOf(lines), id);
  });
}

test("no text captured: no queue id", () => {
  assert.equal(queueIdOf(null), "");
});
