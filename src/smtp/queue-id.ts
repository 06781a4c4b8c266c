/**
 * The queue id a gateway names in its 2xx to the data, so a user can find the message in its
 * log. RFC 5321 §4.2 leaves the reply's text free: each MTA words it its own way, so each has
 * its pattern here, tried in order on every line of the reply.
 */

const QUEUE_IDS: readonly RegExp[] = [
  // Postfix `250 2.0.0 Ok: queued as 4dQx1Z6Ynvz9t`, and the many that copied its wording.
  /queued as ([A-Za-z0-9._-]+)/i,
  // Exim `250 OK id=1xZa3e-0004Ab-Cd` (4.97 and later: `id=1rV5ld-00000000Jx2-3xQ3`).
  /\bid=([A-Za-z0-9]+(?:-[A-Za-z0-9]+)+)/,
  // Microsoft Exchange `250 2.6.0 <…> [InternalId=15526306121985, Hostname=…] Queued mail for delivery`.
  /\[InternalId=(\d+)/i,
  // Haraka `250 Message Queued (F4F8C0A2-1B3C-4D5E-9F60-718293A4B5C6.1)`.
  /Message Queued \(([A-Za-z0-9.-]+)\)/i,
  // Sendmail `250 2.0.0 5B4FQx3x012345 Message accepted for delivery`; OpenSMTPD
  // `250 2.0.0 4f1a2b3c Message accepted for delivery` (older: `250 2.0.0: 4f1a2b3c …`).
  /^(?:\d\.\d{1,3}\.\d{1,3}:? )?([A-Za-z0-9]{8,}) Message accepted for delivery/i,
];

/** The queue id a 2xx reply's lines (each line's text, after `ddd` and its separator) name (`250 2.0.0 Ok: queued as 4dQx1Z6Ynvz9t`), or "". */
export function queueIdOf(lines: readonly string[] | null): string {
  if (lines === null) return "";
  for (const line of lines) {
    for (const pattern of QUEUE_IDS) {
      const m = pattern.exec(line);
      if (m) return m[1];
    }
  }
  return "";
}
