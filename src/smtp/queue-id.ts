/** The queue id a gateway names in its 2xx to the data, so a user can find the message in its log. */

const QUEUED_AS = /queued as ([A-Za-z0-9._-]+)/i;

/** The queue id a 2xx reply's text names (`250 2.0.0 Ok: queued as 4dQx1Z6Ynvz9t`), or "". */
export function queueIdOf(lines: readonly string[] | null): string {
  if (lines === null) return "";
  for (const line of lines) {
    const m = QUEUED_AS.exec(line);
    if (m) return m[1];
  }
  return "";
}
